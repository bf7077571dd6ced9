#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "kernel.hpp"

namespace heist::peers {

// A parallel programming model: its kernels, and how to run code on `workers` threads.
struct Model {
  std::string_view name;
  std::span<const KernelEntry> kernels;
  void (*with_workers)(int workers, const std::function<void()>& body);
};

// Parses the command line, runs and verifies the chosen benchmark, prints the report.
// Returns the process exit code: 0 verified, 1 wrong result, 2 invalid command line.
int run_peer(int argc, char** argv, const Model& model);

}  // namespace heist::peers
