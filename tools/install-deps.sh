#!/usr/bin/env bash
# Installs the Debian 12 packages heist builds and tests with. Idempotent.
set -euo pipefail
packages=(
  build-essential cmake ninja-build git python3 pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libssl-dev libhwloc-dev
  libtbb-dev clang libclang-rt-14-dev
  libboost-context-dev python3-matplotlib
  libopenmpi-dev openmpi-bin
  spin
  iproute2 iputils-ping
  python3-pandas python3-tqdm python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
