#include "common/app_options.hpp"

namespace heist::apps {

AppOptions::Option& AppOptions::Option::one_of(std::initializer_list<const char*> values) {
  choices.assign(values.begin(), values.end());
  return *this;
}

AppOptions::Option& AppOptions::add_target(const char* name, Target target, const char* help) {
  options_.push_back(Option{name, target, help, {}});
  return options_.back();
}

}  // namespace heist::apps
