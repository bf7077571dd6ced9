// TraceRecorder: the trace of one process (--trace FILE), written in Chrome's
// trace-event JSON format, which Perfetto (ui.perfetto.dev) and
// chrome://tracing load. One process per rank: with one rank the file is
// FILE; under mpirun rank r writes FILE with ".rank<r>" before its extension
// (trace.json -> trace.rank1.json), and tools/trace_merge.py joins them.
//
// Layout: pid = rank ("rank r"), tid = worker ("worker i"); a rank whose
// public queue was stolen from by another rank gets a "public queue" track.
// Task spans are complete events ("X", cat "task"), steals are an "X" on the
// thief (cat "steal"), a zero-length "X" on the victim and a flow ("s" on
// the victim, "f" bound to the thief's span), queue lengths are counter
// events ("C", one counter per worker). Timestamps are the monotonic clock
// in microseconds, which the processes of one node share; across nodes
// clocks are not aligned.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heist/options.hpp"
#include "trace/worker_trace.hpp"

namespace heist::task {
class TaskRegistry;
}

namespace heist::trace {

class TraceRecorder {
 public:
  TraceRecorder(const Options& options, int workers);

  WorkerTrace& worker(int i) { return *workers_[static_cast<std::size_t>(i)]; }
  // This process is rank `rank` of a job of several (before write).
  void set_rank(int rank) noexcept {
    rank_ = rank;
    several_ranks_ = true;
  }
  // FILE, or FILE with ".rank<r>" before its extension in a job of several ranks.
  std::string path() const;
  // Writes the file; call after the workers stopped. Throws std::runtime_error
  // when the file cannot be written. Warns on stderr when events were dropped.
  void write(const task::TaskRegistry& registry) const;

 private:
  std::string file_;
  int rank_ = 0;
  bool several_ranks_ = false;
  std::vector<std::unique_ptr<WorkerTrace>> workers_;
};

}  // namespace heist::trace
