#include "rma/rank_collectives.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <type_traits>
#include <vector>

#include "rma/mpi_session.hpp"
#include "sched/scheduler.hpp"

namespace heist::rma {

namespace {

std::string encode(const sched::AgreedSettings& settings) {
  std::string text;
  for (const auto& [name, value] : settings) {
    text.append(name).push_back('\0');
    text.append(value).push_back('\0');
  }
  return text;
}

sched::AgreedSettings decode(std::string_view text) {
  sched::AgreedSettings settings;
  while (!text.empty()) {
    const std::size_t a = text.find('\0');
    const std::size_t b = text.find('\0', a + 1);
    settings.emplace_back(std::string(text.substr(0, a)), std::string(text.substr(a + 1, b - a - 1)));
    text.remove_prefix(b + 1);
  }
  return settings;
}

std::uint64_t fnv1a(std::string_view text) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// The first setting in which `theirs` differs from `ours` (rank 0's): its
// name, their value and ours ("(not given)" where one side lacks it).
std::tuple<std::string, std::string, std::string> first_difference(
    const sched::AgreedSettings& ours, const sched::AgreedSettings& theirs) {
  const auto value_in = [](const auto& settings, const std::string& name) -> std::optional<std::string> {
    for (const auto& [n, v] : settings)
      if (n == name) return v;
    return std::nullopt;
  };
  const auto quoted = [](const std::optional<std::string>& v) { return v ? "'" + *v + "'" : "(not given)"; };
  for (const auto& list : {ours, theirs})
    for (const auto& [name, value] : list) {
      const std::optional<std::string> a = value_in(ours, name), b = value_in(theirs, name);
      if (a != b) return {name, quoted(b), quoted(a)};
    }
  return {"the order of the program's arguments", "", ""};
}

}  // namespace

void check_same_program(MPI_Comm comm, int ranks, const sched::Scheduler& scheduler, std::size_t stride,
                        const sched::AgreedSettings& agreed) {
  // What every rank must agree on: the task registry (ids name the same
  // functions), the options that shape the window and the slots, and then
  // every option and program argument that is not per-rank (a digest here;
  // the texts only when digests differ, to name what differs).
  const Options& o = scheduler.options();
  const std::string settings = encode(agreed);
  constexpr int kChecks = 7;
  const std::uint64_t mine[kChecks] = {
      scheduler.registry().hash(),
      stride,
      (std::uint64_t{o.public_queue_slots} << 32) ^ o.inbox_slots ^ (std::uint64_t{o.mailbox_slots} << 12),
      static_cast<std::uint64_t>(o.protocol),
      static_cast<std::uint64_t>(o.ranks_per_node),
      static_cast<std::uint64_t>(o.victim.kind) | static_cast<std::uint64_t>(o.balance) << 8 |
          std::uint64_t{o.answer_max_tasks} << 16,  // the answer areas' size
      fnv1a(settings)};
  std::vector<std::uint64_t> all(kChecks * static_cast<std::size_t>(ranks));
  check(MPI_Allgather(mine, kChecks, MPI_UINT64_T, all.data(), kChecks, MPI_UINT64_T, comm),
        "MPI_Allgather (start-up check)");
  static const char* const what[kChecks - 1] = {
      "task registry (a different binary, or tasks registered in another order)",
      "task slot size (--task-input-bytes)", "public queue or inbox size (--public-queue-slots, --inbox-slots)",
      "steal protocol (--protocol)", "virtual nodes (--ranks-per-node)",
      "victim selection or balancing (--victim, --balance, --answer-max-tasks)"};
  const auto at = [&](int r, int k) { return all[static_cast<std::size_t>(r) * kChecks + static_cast<std::size_t>(k)]; };
  for (int r = 1; r < ranks; ++r)
    for (int k = 0; k < kChecks - 1; ++k)
      if (at(r, k) != at(0, k))
        throw OptionError("heist: rank " + std::to_string(r) + " differs from rank 0 in its " + what[k] +
                          "; every rank must run the same program with the same options");
  std::vector<int> differing;
  for (int r = 1; r < ranks; ++r)
    if (at(r, kChecks - 1) != at(0, kChecks - 1)) differing.push_back(r);
  if (differing.empty()) return;
  // Every rank learns every rank's settings and finds the same difference.
  const int length = static_cast<int>(settings.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks));
  check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm), "MPI_Allgather (start-up settings)");
  std::vector<int> offsets(static_cast<std::size_t>(ranks), 0);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string texts(static_cast<std::size_t>(total), '\0');
  check(MPI_Allgatherv(settings.data(), length, MPI_CHAR, texts.data(), lengths.data(), offsets.data(), MPI_CHAR,
                       comm),
        "MPI_Allgatherv (start-up settings)");
  const auto of = [&](int r) {
    return decode(std::string_view(texts).substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                                 static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  };
  const int r = differing.front();
  const auto [name, theirs, ours] = first_difference(of(0), of(r));
  std::string ranks_text;
  for (const int d : differing) ranks_text += (ranks_text.empty() ? "" : ", ") + std::to_string(d);
  throw OptionError("heist: rank" + std::string(differing.size() > 1 ? "s " : " ") + ranks_text + " differ" +
                    (differing.size() > 1 ? "" : "s") + " from rank 0 in " + name + ": " + theirs + " on rank " +
                    std::to_string(r) + ", " + ours + " on rank 0; every rank must run the same program with the "
                    "same options and arguments");
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
