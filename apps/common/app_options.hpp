// The options an app adds to its `heist bench <app>` (and `heist sim <app>`)
// command, declared without the command-line library: an app names each
// option, the member it sets and its help; common/app_options_cli.cpp hands
// the list to CLI11. So CLI11, whose header-only code every user compiles
// whole, is compiled by that one translation unit, not by every app.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

namespace CLI {
class App;
}

namespace heist::apps {

class AppOptions {
 public:
  // The member an option sets; a bool is a flag (present: true).
  using Target = std::variant<int*, std::int64_t*, std::uint64_t*, double*, std::string*, bool*>;

  struct Option {
    std::string name;                  // "--n"
    Target target;
    std::string help;
    std::vector<std::string> choices;  // empty: any value the target's type parses
    // Restricts the option to these values.
    Option& one_of(std::initializer_list<const char*> values);
  };

  // Adds an option that sets `target`; its current value is the default
  // the help shows. `target` must outlive the command that parses it. The
  // reference returned is valid until the next add.
  template <class T>
  Option& add(const char* name, T& target, const char* help) {
    return add_target(name, Target(&target), help);
  }

  const std::vector<Option>& options() const { return options_; }

 private:
  Option& add_target(const char* name, Target target, const char* help);
  std::vector<Option> options_;
};

// Adds `options` to `command` (common/app_options_cli.cpp).
void add_to_command(const AppOptions& options, CLI::App& command);

// Parses `args` (e.g. {"--n", "30"}) into the options' targets as the app's
// command would; throws std::invalid_argument with CLI11's message when
// they do not parse.
void parse_arguments(const AppOptions& options, const std::vector<std::string>& args);

}  // namespace heist::apps
