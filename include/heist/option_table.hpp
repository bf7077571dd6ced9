// The one registry of runtime options: for each, its name, environment
// variable, command-line flag, meaning, and typed get/set with validation.
// Options::from_env, the heist CLI, `heist info` and docs/options.md all
// come from this table, so they cannot disagree.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "heist/options.hpp"

namespace heist {

struct OptionSpec {
  const char* name;  // e.g. "workers"
  const char* env;   // e.g. "HEIST_WORKERS"
  const char* flag;  // e.g. "--workers"
  const char* help;
  std::string (*get)(const Options&);
  // Parses and validates `value`; throws OptionError("<flag>: <why>").
  void (*set)(Options&, const std::string& value);
  // Whether the simulator (`heist sim`, sim/) models the option: the
  // simulated workers honour it with the runtime's meaning. Only these are
  // options of `heist sim`; the rest (threads, stacks, MPI, progress,
  // tracing, fault injection) describe what its machine model replaces.
  bool simulated = false;
  // Whether ranks may run with different values: the option describes only
  // a process's own threads, stacks, memory or trace. Every other option
  // must be the same on every rank (compared at start-up, Options::
  // program_arguments).
  bool per_rank = false;
};

std::span<const OptionSpec> option_table() noexcept;

// HEIST_* environment variables that are not runtime options but are read
// by heist's tests and tools; Options::from_env accepts them.
std::span<const char* const> other_environment_variables() noexcept;

// The option table's name nearest to `name` (edit distance): its HEIST_*
// variable (and the other known variables) when `environment`, else its
// flag. For "did you mean" in messages.
std::string nearest_option_name(std::string_view name, bool environment);

// The option's key in the `params` object of `heist bench --json` and
// `heist sim --json`: its long flag without the dashes, '-' -> '_'
// ("--victim" -> "victim", "--slaw-s" -> "slaw_s").
std::string option_key(const OptionSpec& spec);

}  // namespace heist
