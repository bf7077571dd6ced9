// The one registry of runtime options: for each, its name, environment
// variable, command-line flag, meaning, and typed get/set with validation.
// Options::from_env, the heist CLI, `heist info` and docs/options.md all
// come from this table, so they cannot disagree.
#pragma once

#include <span>
#include <string>

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
};

std::span<const OptionSpec> option_table() noexcept;

}  // namespace heist
