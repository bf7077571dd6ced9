// AppOptions to CLI11: the one place the apps' options meet the
// command-line library.
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/app_options.hpp"

namespace heist::apps {

void add_to_command(const AppOptions& options, CLI::App& command) {
  for (const AppOptions::Option& o : options.options()) {
    std::visit(
        [&](auto* target) {
          using T = std::remove_pointer_t<decltype(target)>;
          if constexpr (std::is_same_v<T, bool>) {
            command.add_flag(o.name, *target, o.help);
          } else {
            CLI::Option* added = command.add_option(o.name, *target, o.help);
            if (!o.choices.empty()) added->check(CLI::IsMember(o.choices));
            added->capture_default_str();
          }
        },
        o.target);
  }
}

void parse_arguments(const AppOptions& options, const std::vector<std::string>& args) {
  CLI::App command;
  add_to_command(options, command);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes the arguments last first
  try {
    command.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace heist::apps
