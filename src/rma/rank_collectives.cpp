#include "rma/rank_collectives.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "rma/mpi_session.hpp"
#include "sched/scheduler.hpp"

namespace heist::rma {

void check_same_program(MPI_Comm comm, int ranks, const sched::Scheduler& scheduler, std::size_t stride) {
  // What every rank must agree on: the task registry (ids name the same
  // functions) and the options that shape the window and the slots.
  const Options& o = scheduler.options();
  constexpr int kChecks = 6;
  const std::uint64_t mine[kChecks] = {
      scheduler.registry().hash(),
      stride,
      (std::uint64_t{o.public_queue_slots} << 32) ^ o.inbox_slots ^ (std::uint64_t{o.mailbox_slots} << 12),
      static_cast<std::uint64_t>(o.protocol),
      static_cast<std::uint64_t>(o.ranks_per_node),
      static_cast<std::uint64_t>(o.victim.kind) | static_cast<std::uint64_t>(o.balance) << 8 |
          std::uint64_t{o.answer_max_tasks} << 16};  // the answer areas' size
  std::vector<std::uint64_t> all(kChecks * static_cast<std::size_t>(ranks));
  check(MPI_Allgather(mine, kChecks, MPI_UINT64_T, all.data(), kChecks, MPI_UINT64_T, comm),
        "MPI_Allgather (start-up check)");
  static const char* const what[kChecks] = {
      "task registry (a different binary, or tasks registered in another order)",
      "task slot size (--task-input-bytes)", "public queue or inbox size (--public-queue-slots, --inbox-slots)",
      "steal protocol (--protocol)", "virtual nodes (--ranks-per-node)",
      "victim selection or balancing (--victim, --balance, --answer-max-tasks)"};
  for (int r = 1; r < ranks; ++r)
    for (int k = 0; k < kChecks; ++k)
      if (all[static_cast<std::size_t>(r) * kChecks + static_cast<std::size_t>(k)] != all[static_cast<std::size_t>(k)])
        throw DistError("heist: rank " + std::to_string(r) + " differs from rank 0 in its " + what[k] +
                        "; every rank must run the same program with the same options");
}

std::exception_ptr agree_on_error(MPI_Comm comm, int ranks, std::exception_ptr mine) {
  std::string text;
  if (mine) {
    try {
      std::rethrow_exception(mine);
    } catch (const std::exception& e) {
      text = e.what();
    } catch (...) {
      text = "a task threw a non-standard exception";
    }
    text = text.substr(0, 1000);
    if (text.empty()) text = "a task threw an exception without a message";
  }
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks));
  check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm), "MPI_Allgather (task errors)");
  std::vector<int> offsets(static_cast<std::size_t>(ranks), 0);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  if (total == 0) return nullptr;
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm),
        "MPI_Allgatherv (task errors)");
  if (mine) return mine;
  for (int r = 0; r < ranks; ++r)
    if (const int n = lengths[static_cast<std::size_t>(r)]; n > 0)
      return std::make_exception_ptr(std::runtime_error(
          "heist: rank " + std::to_string(r) + ": " +
          all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]), static_cast<std::size_t>(n))));
  return nullptr;
}

RunStats gather_stats(MPI_Comm comm, int rank, int ranks, const RunStats& local) {
  static_assert(std::is_trivially_copyable_v<WorkerStats>);
  const int mine = static_cast<int>(local.workers.size() * sizeof(WorkerStats));
  std::vector<int> sizes(static_cast<std::size_t>(ranks));
  check(MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm), "MPI_Gather (statistics sizes)");
  std::vector<int> offsets(static_cast<std::size_t>(ranks), 0);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += sizes[static_cast<std::size_t>(r)];
  }
  RunStats all;
  if (rank == 0) all.workers.resize(static_cast<std::size_t>(total) / sizeof(WorkerStats));
  check(MPI_Gatherv(local.workers.data(), mine, MPI_BYTE, all.workers.data(), sizes.data(), offsets.data(), MPI_BYTE, 0,
                    comm),
        "MPI_Gatherv (statistics)");
  return rank == 0 ? all : local;
}

std::uint64_t all_reduce(MPI_Comm comm, std::uint64_t value, bool max) {
  std::uint64_t result = 0;
  check(MPI_Allreduce(&value, &result, 1, MPI_UINT64_T, max ? MPI_MAX : MPI_SUM, comm), "MPI_Allreduce");
  return result;
}

}  // namespace heist::rma
