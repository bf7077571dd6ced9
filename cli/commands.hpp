// The `heist` command's subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace heist::cli {

// Each adds its subcommand to `root` and returns the action to run when that
// subcommand was given (returning the exit code).
std::function<int()> add_bench_command(CLI::App& root);
std::function<int()> add_info_command(CLI::App& root);
std::function<int()> add_sim_command(CLI::App& root);

// Exit code for invalid user input (bad option, unknown app, ...).
inline constexpr int kUsageError = 2;

}  // namespace heist::cli
