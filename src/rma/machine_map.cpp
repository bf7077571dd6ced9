#include "rma/machine_map.hpp"

#include <map>

#include "rma/mpi_session.hpp"

namespace heist::rma {

std::vector<int> node_of_ranks(MPI_Comm comm, int ranks_per_node) {
  int rank = 0, ranks = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  std::vector<int> leader(static_cast<std::size_t>(ranks));
  if (ranks_per_node > 0) {
    for (int r = 0; r < ranks; ++r) leader[static_cast<std::size_t>(r)] = r / ranks_per_node;
  } else {
    MPI_Comm shared = MPI_COMM_NULL;
    check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared),
          "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    int lowest = rank;
    const int rc = MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shared);
    MPI_Comm_free(&shared);
    check(rc, "MPI_Allreduce (node leader)");
    check(MPI_Allgather(&lowest, 1, MPI_INT, leader.data(), 1, MPI_INT, comm), "MPI_Allgather (nodes)");
  }
  std::map<int, int> dense;  // first ranks appear in rank order: ids follow each node's lowest rank
  std::vector<int> nodes;
  for (int l : leader) nodes.push_back(dense.emplace(l, static_cast<int>(dense.size())).first->second);
  return nodes;
}

std::vector<sched::RankSites> gather_sites(MPI_Comm comm, const platform::ProcessSites& mine,
                                           const std::vector<int>& nodes) {
  const int ranks = static_cast<int>(nodes.size());
  const int count = static_cast<int>(mine.workers.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm), "MPI_Allgather (worker counts)");
  std::vector<int> flat_mine;
  for (const platform::WorkerSite& s : mine.workers) flat_mine.insert(flat_mine.end(), {s.cache, s.numa, s.socket});
  std::vector<int> sizes(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    sizes[static_cast<std::size_t>(r)] = 3 * counts[static_cast<std::size_t>(r)];
    offsets[static_cast<std::size_t>(r)] = total;
    total += sizes[static_cast<std::size_t>(r)];
  }
  std::vector<int> all(static_cast<std::size_t>(total));
  check(MPI_Allgatherv(flat_mine.data(), 3 * count, MPI_INT, all.data(), sizes.data(), offsets.data(), MPI_INT, comm),
        "MPI_Allgatherv (worker sites)");
  std::vector<sched::RankSites> out(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    sched::RankSites& rs = out[static_cast<std::size_t>(r)];
    rs.node = nodes[static_cast<std::size_t>(r)];
    for (int w = 0; w < counts[static_cast<std::size_t>(r)]; ++w) {
      const int* s = all.data() + offsets[static_cast<std::size_t>(r)] + 3 * w;
      rs.workers.push_back({s[0], s[1], s[2]});
    }
  }
  return out;
}

}  // namespace heist::rma
