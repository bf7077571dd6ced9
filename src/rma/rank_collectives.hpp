// Collectives over the session's ranks outside regions: the start-up check
// that every rank runs the same program, the agreement on a task error at
// the end of a region, and the statistics gathered on rank 0. Every rank
// calls each of them, in the same order; no worker runs meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>

#include <mpi.h>

#include "heist/stats.hpp"
#include "sched/process_balancer.hpp"

namespace heist::sched {
class Scheduler;
}

namespace heist::rma {

// Throws OptionError, the same on every rank, naming the first rank that
// registered other tasks than rank 0, or the ranks that run with another
// value of an option (not per-rank) or program argument, the first such one
// and both values (Options::program_arguments).
void check_same_program(MPI_Comm comm, int ranks, const sched::Scheduler& scheduler, std::size_t stride,
                        const sched::AgreedSettings& agreed);
// Every rank learns whether a task failed anywhere. Returns `mine` if set,
// else an exception carrying the message of the lowest rank whose region
// recorded one ("heist: rank R: ..."), else null.
std::exception_ptr agree_on_error(MPI_Comm comm, int ranks, std::exception_ptr mine);
// Every rank's statistics on rank 0 (other ranks get theirs back).
RunStats gather_stats(MPI_Comm comm, int rank, int ranks, const RunStats& local);
std::uint64_t all_reduce(MPI_Comm comm, std::uint64_t value, bool max);

}  // namespace heist::rma
