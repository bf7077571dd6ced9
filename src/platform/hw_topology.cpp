#include "platform/hw_topology.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include <sched.h>

#ifdef HEIST_WITH_HWLOC
#include <hwloc.h>
#endif

namespace heist::platform {

namespace {

// Renumbers keys 0, 1, ... in order of first appearance.
template <class Key>
class Dense {
 public:
  int operator()(const Key& key) { return ids_.emplace(key, static_cast<int>(ids_.size())).first->second; }

 private:
  std::map<Key, int> ids_;
};

// Refines raw per-PU ids so they nest: numa within socket, cache within both.
std::vector<WorkerSite> nest(const std::vector<WorkerSite>& raw) {
  Dense<int> socket;
  Dense<std::pair<int, int>> numa;
  Dense<std::tuple<int, int, int>> cache;
  std::vector<WorkerSite> out;
  for (const WorkerSite& s : raw)
    out.push_back({cache({s.socket, s.numa, s.cache}), numa({s.socket, s.numa}), socket(s.socket)});
  return out;
}

struct Probe {
  std::vector<WorkerSite> pus;  // the process's PUs in logical order, nested ids
  std::vector<int> os_index;    // their OS numbers (what sched_setaffinity takes)
  std::string detail;
};

#ifdef HEIST_WITH_HWLOC
std::optional<Probe> probe_hwloc() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return std::nullopt;
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return std::nullopt;
  }
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0 || hwloc_bitmap_iszero(set))
    hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(topo));
  std::vector<hwloc_obj_t> pus;
  for (hwloc_obj_t pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, nullptr); pu != nullptr;
       pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, pu))
    pus.push_back(pu);
  // The lowest cache level that groups two of our PUs.
  hwloc_obj_type_t cache_type = HWLOC_OBJ_PU;
  const char* cache_name = "none shared";
  const std::pair<hwloc_obj_type_t, const char*> caches[] = {
      {HWLOC_OBJ_L2CACHE, "L2"}, {HWLOC_OBJ_L3CACHE, "L3"}, {HWLOC_OBJ_L4CACHE, "L4"}};
  for (const auto& [type, name] : caches) {
    std::map<unsigned, int> count;
    bool shared = false;
    for (hwloc_obj_t pu : pus) {
      const hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(topo, type, pu);
      if (c != nullptr && ++count[c->logical_index] > 1) shared = true;
    }
    if (shared) {
      cache_type = type;
      cache_name = name;
      break;
    }
  }
  std::vector<WorkerSite> raw;
  std::vector<int> os_index;
  for (hwloc_obj_t pu : pus) {
    os_index.push_back(static_cast<int>(pu->os_index));
    WorkerSite s;
    const hwloc_obj_t c = cache_type == HWLOC_OBJ_PU ? pu : hwloc_get_ancestor_obj_by_type(topo, cache_type, pu);
    s.cache = c != nullptr ? static_cast<int>(c->logical_index) : -1;
    s.numa = -1;
    for (hwloc_obj_t n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr); n != nullptr;
         n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n))
      if (n->cpuset != nullptr && hwloc_bitmap_isset(n->cpuset, pu->os_index)) {
        s.numa = static_cast<int>(n->logical_index);
        break;
      }
    const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
    s.socket = package != nullptr ? static_cast<int>(package->logical_index) : -1;
    raw.push_back(s);
  }
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  if (raw.empty()) return std::nullopt;
  Probe probe{nest(raw), std::move(os_index), ""};
  int sockets = 0, numas = 0, groups = 0;
  for (const WorkerSite& s : probe.pus) {
    sockets = std::max(sockets, s.socket + 1);
    numas = std::max(numas, s.numa + 1);
    groups = std::max(groups, s.cache + 1);
  }
  probe.detail = std::to_string(probe.pus.size()) + " PUs, " + std::to_string(groups) + " cache groups (" +
                 cache_name + "), " + std::to_string(numas) + " NUMA domains, " + std::to_string(sockets) +
                 " sockets";
  return probe;
}
#endif

const std::optional<Probe>& probe_once() {
  static std::once_flag once;
  static std::optional<Probe> probe;
#ifdef HEIST_WITH_HWLOC
  std::call_once(once, [] { probe = probe_hwloc(); });
#else
  std::call_once(once, [] {});
#endif
  return probe;
}

// Without hwloc: the process's CPU set from the kernel, in OS order.
std::vector<int> affinity_pus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> pus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return pus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) pus.push_back(cpu);
  return pus;
}

ProcessSites flat(int workers, std::string source, std::string detail) {
  return {std::vector<WorkerSite>(static_cast<std::size_t>(workers)), std::move(source), std::move(detail)};
}

}  // namespace

ProcessSites detect_sites(int workers) {
  const std::optional<Probe>& probe = probe_once();
#ifdef HEIST_WITH_HWLOC
  if (!probe) return flat(workers, "none", "hwloc found no processing units");
#else
  if (!probe) return flat(workers, "none", "built without hwloc");
#endif
  ProcessSites out{{}, "hwloc", probe->detail};
  for (int w = 0; w < workers; ++w) out.workers.push_back(probe->pus[static_cast<std::size_t>(w) % probe->pus.size()]);
  // Workers wrapped around the PUs share their sites: the ids still nest.
  return out;
}

const std::vector<int>& process_pus() {
  static const std::vector<int> pus = [] {
    const std::optional<Probe>& probe = probe_once();
    return probe ? probe->os_index : affinity_pus();
  }();
  return pus;
}

ProcessSites sites_from_spec(const HierarchySpec& spec, int workers) {
  ProcessSites out{{}, "user", "--hierarchy " + to_string(spec)};
  const auto group = [](int w, std::uint32_t size) { return size == 0 ? w : w / static_cast<int>(size); };
  std::vector<WorkerSite> raw;
  for (int w = 0; w < workers; ++w) {
    // An unset level groups nothing beyond the level below it.
    const int cache = group(w, spec.workers_per_cache);
    const std::uint32_t numa_size = spec.workers_per_numa != 0 ? spec.workers_per_numa : spec.workers_per_cache;
    const int numa = numa_size == 0 ? w : w / static_cast<int>(numa_size);
    const std::uint32_t socket_size = spec.workers_per_socket != 0 ? spec.workers_per_socket : numa_size;
    const int socket = socket_size == 0 ? w : w / static_cast<int>(socket_size);
    raw.push_back({cache, numa, socket});
  }
  out.workers = nest(raw);
  return out;
}

ProcessSites process_sites(const Options& options, int workers) {
  return options.hierarchy.defined() ? sites_from_spec(options.hierarchy, workers) : detect_sites(workers);
}

}  // namespace heist::platform
