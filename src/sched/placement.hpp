// The Topology the victim and chunk policies see, assembled from where each
// rank's workers sit (platform::ProcessSites) and which node each rank is on.
// Places are numbered rank by rank: rank r's worker w is place base(r) + w
// (rank * workers + w when every rank has the same number of workers). Ids of
// the inner levels are made unique across ranks by adding base(r).
#pragma once

#include <vector>

#include "platform/hw_topology.hpp"
#include "policy/topology.hpp"

namespace heist::sched {

struct RankSites {
  std::vector<platform::WorkerSite> workers;
  int node = 0;  // ranks with equal ids share a node
};

policy::Topology build_topology(const std::vector<RankSites>& ranks);

}  // namespace heist::sched
