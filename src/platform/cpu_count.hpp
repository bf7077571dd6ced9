// How many CPUs this process may run on: the default number of workers.
// sched_getaffinity sees the cpuset a batch system or `mpirun --bind-to`
// gives the process (hardware_concurrency() counts every CPU of the machine,
// so under Slurm each rank would start a worker per machine core).
#pragma once

namespace heist::platform {

// CPUs in this process's affinity mask; the machine's count where the mask
// cannot be read; at least 1.
int usable_cpus() noexcept;

}  // namespace heist::platform
