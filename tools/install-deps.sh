#!/usr/bin/env bash
# Installs the Debian 12 packages heist builds and tests with. Idempotent.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache git python3 pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libssl-dev libhwloc-dev
  libtbb-dev clang libclang-rt-14-dev
  libboost-context-dev python3-matplotlib
  libopenmpi-dev openmpi-bin
  libmpich-dev mpich
  slurmctld slurmd slurm-client munge
  spin
  iproute2 iputils-ping
  python3-pandas python3-tqdm python3-matplotlib
)
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo

# MPICH is installed beside OpenMPI (HEIST_MPI_FLAVOUR=mpich builds with
# mpicxx.mpich); the plain names (mpicc, mpicxx, mpirun, mpiexec: Debian's
# alternatives `mpi` and `mpirun`) stay OpenMPI's, which the default build,
# the tests and the docs use. Set back only where they point elsewhere.
openmpi_stays_default() {
  local name target
  for name in mpi:/usr/bin/mpicc.openmpi mpirun:/usr/bin/mpirun.openmpi; do
    target=${name#*:}
    name=${name%%:*}
    [ -x "$target" ] || continue
    if [ "$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p')" != "$target" ]; then
      $sudo update-alternatives --quiet --set "$name" "$target"
    fi
  done
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # Packages of daemons (munge, slurmctld, slurmd) may start them where the
  # system allows; tools/cluster/heist-slurm starts its own, on its own
  # ports, with its own key: a system Slurm does not disturb it.
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
openmpi_stays_default
