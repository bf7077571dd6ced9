#include "sched/process_balancer.hpp"

#include <cstdlib>

namespace heist::sched {

namespace {
constinit ProcessBalancerFactory g_factory = nullptr;  // see process_balancer.hpp: written before main
}  // namespace

void register_process_balancer(ProcessBalancerFactory factory) noexcept { g_factory = factory; }

ProcessBalancerFactory process_balancer_factory() noexcept { return g_factory; }

int launcher_job_size() noexcept {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr) return std::atoi(value);
  }
  return 0;
}

}  // namespace heist::sched
