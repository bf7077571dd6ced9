// Where the workers of this process sit in the machine (the platform layer of docs/architecture.md):
// the cache group, NUMA domain and socket of each, as small ids local to the
// process that nest (same cache group implies same NUMA domain implies same
// socket). The policy layer turns them into a Topology.
//
// Detection (hwloc): the process's CPU binding (or, unbound, every allowed
// processing unit), its PUs in hwloc's logical order; worker i is placed on
// PU i (mod the PU count). A cache group is the set of PUs under one object
// of the lowest cache level (L2, L3, L4) that some object shares between two
// of the process's PUs; the NUMA domain is the NUMA node whose CPU set holds
// the PU; the socket is its package. Each level is refined by the levels
// above it, so the ids nest even where the hardware does not (an L3 shared
// across two NUMA nodes becomes two cache groups).
// Worker threads are pinned only with --bind-workers pus (thread_binding.hpp):
// the sites say where workers would run if bound one per PU; an unbound run
// treats them as that grouping.
#pragma once

#include <string>
#include <vector>

#include "heist/options.hpp"

namespace heist::platform {

struct WorkerSite {
  int cache = 0;
  int numa = 0;
  int socket = 0;
};

struct ProcessSites {
  std::vector<WorkerSite> workers;  // one per worker
  std::string source;               // "hwloc", "user" (--hierarchy), "none" (no hwloc: one flat group)
  std::string detail;               // what was found, e.g. "2 PUs, cache level L3"
};

// hwloc detection, for `workers` workers. The machine is probed once per
// process (the result is cached); a failure gives one flat group, source "none".
ProcessSites detect_sites(int workers);
// The OS numbers of the process's PUs in the order worker i takes the i-th
// (mod the count): hwloc's logical order, or without hwloc the process's
// CPU affinity in OS order. Probed once per process.
const std::vector<int>& process_pus();
// The user-defined hierarchy (HierarchySpec: workers per domain).
ProcessSites sites_from_spec(const HierarchySpec& spec, int workers);
// The user's hierarchy if one is set, else detect_sites().
ProcessSites process_sites(const Options& options, int workers);

}  // namespace heist::platform
