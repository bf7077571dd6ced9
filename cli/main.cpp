// heist: the command-line front end — `heist bench <app>`, `heist sim <app>`, `heist info`.
// Invalid input exits with status 2 and a message on stderr.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <heist/options.hpp>

#include "commands.hpp"

namespace {
// "heist: <message>", once: most of the library's messages carry the prefix already.
std::string prefixed(const std::string& message) {
  return message.rfind("heist", 0) == 0 ? message : "heist: " + message;
}
// For `heist bench foo` (or `heist sim foo`), which CLI11 reports only as
// "A subcommand is required": the message naming foo and the apps there
// are; "" when the error is another one.
std::string unknown_app(const CLI::App& app) {
  for (const char* command : {"bench", "sim"}) {
    const CLI::App* cmd = app.get_subcommand(command);
    if (!cmd->parsed() || !cmd->get_subcommands().empty()) continue;
    const std::vector<std::string> rest = cmd->remaining();
    if (rest.empty() || rest.front().rfind("-", 0) == 0) continue;
    std::string apps;
    for (const CLI::App* sub : cmd->get_subcommands([](const CLI::App*) { return true; }))
      apps += (apps.empty() ? "" : ", ") + sub->get_name();
    return std::string("heist ") + command + ": no app '" + rest.front() + "'; the apps: " + apps;
  }
  return "";
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"heist: work-stealing task runtime — benchmarks, simulator and information"};
  app.require_subcommand(1);
  auto bench = heist::cli::add_bench_command(app);
  auto info = heist::cli::add_info_command(app);
  auto sim = heist::cli::add_sim_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (const std::string unknown = unknown_app(app); !unknown.empty()) {
      std::cerr << unknown << "\n";
      return heist::cli::kUsageError;
    }
    std::cerr << "heist: " << e.what() << "\n(run 'heist --help' or 'heist bench <app> --help')\n";
    return heist::cli::kUsageError;
  }
  try {
    if (app.got_subcommand("bench")) return bench();
    if (app.got_subcommand("info")) return info();
    if (app.got_subcommand("sim")) return sim();
  } catch (const heist::OptionError& e) {  // e.g. found invalid once the ranks are known
    std::cerr << prefixed(e.what()) << "\n";
    return heist::cli::kUsageError;
  } catch (const std::exception& e) {
    std::cerr << prefixed(e.what()) << "\n";
    return 1;
  }
  return heist::cli::kUsageError;
}
