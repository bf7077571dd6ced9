// The input and output bytes of an app's task functions (HotSLAW Table 1's
// "Input / Output Size" column), taken from the types the tasks really use:
// sizeof the registered task's In and Out, or of a closure object.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <heist/heist.hpp>

namespace heist::apps {

struct TaskIo {
  std::string task;           // the registered name, or a description of a closure
  std::size_t input_bytes;    // copied into the task slot at creation
  std::size_t output_bytes;   // written by the task into its spawner's memory
};

template <auto Body>
TaskIo task_io_of(const heist::Task<Body>&, std::string name) {
  using Out = typename heist::Task<Body>::Out;
  std::size_t out = 0;
  if constexpr (!std::is_void_v<Out>) out = sizeof(Out);
  return {std::move(name), sizeof(typename heist::Task<Body>::In), out};
}

// A local-only closure (heist::async(lambda)): its captures are its input;
// what it writes through captured references is not a task output.
template <class Closure>
TaskIo closure_io_of(std::string name) {
  return {std::move(name), sizeof(Closure), 0};
}

}  // namespace heist::apps
