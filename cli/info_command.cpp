// `heist info [--json]`: build configuration, machine, registered tasks and
// every runtime option with its variable, flag and current value.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include <heist/option_table.hpp>

#include "commands.hpp"
#include "platform/cpu_count.hpp"
#include "platform/hw_topology.hpp"
#include "sched/placement.hpp"
#include "task/task_registry.hpp"
#include "task/task_slot.hpp"

namespace heist::cli {

std::function<int()> add_info_command(CLI::App& root) {
  auto json = std::make_shared<bool>(false);
  CLI::App* info = root.add_subcommand("info", "print build configuration, topology and runtime options");
  info->add_flag("--json", *json, "print JSON");
  return [json]() -> int {
    Options options;
    try {
      options = Options::from_env();
    } catch (const OptionError& e) {
      std::cerr << "heist info: " << e.what() << "\n";
      return kUsageError;
    }
    const auto& registry = task::TaskRegistry::global();
    nlohmann::ordered_json out;
    out["version"] = HEIST_VERSION;
    out["build_type"] = HEIST_BUILD_TYPE;
    out["compiler"] = HEIST_COMPILER;
    out["sanitizer"] = HEIST_SANITIZER;
    out["hardware_threads"] = std::thread::hardware_concurrency();
    out["usable_cpus"] = platform::usable_cpus();
    out["task_slot_bytes"] = task::slot_stride(options.task_input_bytes);
    out["registered_tasks"] = registry.size();
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(registry.hash()));
    out["registry_hash"] = hash;
    nlohmann::ordered_json table = nlohmann::ordered_json::array();
    for (const OptionSpec& spec : option_table())
      table.push_back({{"name", spec.name}, {"env", spec.env}, {"flag", spec.flag}, {"value", spec.get(options)},
                       {"help", spec.help}, {"simulated", spec.simulated},
                       {"per_rank", spec.per_rank}});
    out["options"] = table;
    // The hierarchy of one process as this machine shows it; under mpirun the
    // ranks add the process and node levels (nodes: --ranks-per-node, or the
    // ranks that share memory).
    const int workers = options.workers != 0 ? options.workers : platform::usable_cpus();
    const platform::ProcessSites sites = platform::process_sites(options, workers);
    const std::string hierarchy = sched::build_topology({sched::RankSites{sites.workers, 0}}).describe();
    const std::string nodes = options.ranks_per_node > 0
                                  ? "virtual nodes of " + std::to_string(options.ranks_per_node) + " consecutive ranks"
                                  : "ranks that share memory (MPI_COMM_TYPE_SHARED)";
    out["topology"] = {{"source", sites.source},   {"detail", sites.detail}, {"workers", workers},
                       {"hierarchy", hierarchy},   {"nodes", nodes},
                       {"inter_node_delay_us", options.inter_node_delay_us}};
    if (*json) {
      std::cout << out.dump() << std::endl;
      return 0;
    }
    std::cout << "heist " << HEIST_VERSION << " (" << HEIST_BUILD_TYPE << ", " << HEIST_COMPILER
              << ", sanitizer: " << (std::string(HEIST_SANITIZER).empty() ? "none" : HEIST_SANITIZER) << ")\n"
              << "hardware threads: " << std::thread::hardware_concurrency()
              << " (this process may use " << platform::usable_cpus() << ")\n"
              << "task slot: " << out["task_slot_bytes"] << " bytes; registered tasks: " << registry.size()
              << " (hash " << hash << ")\n\nhierarchy of one process with " << workers << " workers (" << sites.source
              << (sites.detail.empty() ? "" : ": " + sites.detail) << "):\n"
              << hierarchy << "between processes: nodes are " << nodes << "; inter-node delay "
              << options.inter_node_delay_us << " us\n\nruntime options (flag / environment variable = value):\n";
    for (const OptionSpec& spec : option_table())
      std::cout << "  " << std::left << std::setw(20) << spec.flag << std::setw(24) << spec.env << "= "
                << std::setw(10) << spec.get(options) << spec.help << "\n";
    return 0;
  };
}

}  // namespace heist::cli
