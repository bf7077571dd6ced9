// The machine as every rank sees it (collective calls at start-up): which
// node each rank is on, and where every rank's workers sit, so each process
// builds the same Topology (sched/placement.hpp).
//
// Nodes: with --ranks-per-node K, virtual nodes of K consecutive ranks
// (rank / K), so hierarchy effects show on one machine; otherwise the ranks
// that share memory (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)). Node ids are
// 0, 1, ... in the order of each node's lowest rank.
#pragma once

#include <mpi.h>

#include <vector>

#include "platform/hw_topology.hpp"
#include "sched/placement.hpp"

namespace heist::rma {

// node[r] for every rank r of comm.
std::vector<int> node_of_ranks(MPI_Comm comm, int ranks_per_node);
// Every rank's worker sites and node.
std::vector<sched::RankSites> gather_sites(MPI_Comm comm, const platform::ProcessSites& mine,
                                           const std::vector<int>& nodes);

}  // namespace heist::rma
