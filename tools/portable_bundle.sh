#!/usr/bin/env bash
# Packs what the benchmarks need on a borrowed x86-64 Linux machine that has
# no compiler, no Open MPI and no package registry (glibc 2.36 or newer):
# the heist command and the peers of BUILD, the shared libraries they load
# (glibc's own left out), and Open MPI's runtime (orterun, its components,
# help files and configuration). Usage:
#   tools/portable_bundle.sh [BUILD (build)] [OUT_DIR (bundle)]
# On the borrowed machine, as root, from the folder holding OUT_DIR:
#   tar -C / --skip-old-files -xzf OUT_DIR/runtime.tgz && ldconfig
#   OUT_DIR/build/cli/heist info
#   OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
#     /usr/bin/orterun --oversubscribe -n 16 OUT_DIR/build/cli/heist bench uts --tree T3L --workers 1
#   tools/sim_validate.py --build OUT_DIR/build --mpirun "/usr/bin/orterun --allow-run-as-root \
#     --oversubscribe --bind-to none" ... --measure-only --save DIR
# --skip-old-files keeps every file the machine already has, and the archive
# holds files and links only (no directory entries), so extracting it cannot
# replace a directory or a symbolic link of the machine's own (/lib -> usr/lib).
# It reads the library list from this machine's dpkg (Debian 12).
set -euo pipefail
build=${1:-build}
out=${2:-bundle}
heist="$build/cli/heist"
[ -x "$heist" ] || { echo "portable_bundle: no $heist (build it first)" >&2; exit 2; }
command -v dpkg >/dev/null || { echo "portable_bundle: needs dpkg (Debian)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/build/cli" "$out/build/bench/peers"
cp "$heist" "$out/build/cli/"
for peer in "$build"/bench/peers/heist-peer-*; do
  [ -x "$peer" ] && [ -f "$peer" ] && cp "$peer" "$out/build/bench/peers/"
done
strip "$out"/build/cli/heist "$out"/build/bench/peers/* 2>/dev/null || true

# Open MPI's runtime: every file of its Debian packages.
mpi_files=$(for p in openmpi-bin openmpi-common libopenmpi3 libpmix2; do dpkg -L "$p"; done |
            sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
# The libraries all of it loads, glibc's own excepted (the machine has a newer one).
elves=$( (echo "$mpi_files"; ls "$out"/build/cli/heist "$out"/build/bench/peers/* 2>/dev/null) |
        while read -r f; do [ "$(head -c 4 "$f" | tail -c 3)" = ELF ] && echo "$f"; done)
libs=$(for f in $elves; do ldd "$f" 2>/dev/null; done | awk '/=>/ && $3 ~ /^\// {print $3}' | sort -u |
       grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64)\.so')
# Paths under /usr (Debian's /lib is a link to usr/lib), the links and their targets.
{ echo "$mpi_files"; for l in $libs; do echo "$l"; readlink -f "$l"; done; } |
  sed -E 's#^/lib/#/usr/lib/#; s#^/bin/#/usr/bin/#; s#^/##' | sort -u > "$out/runtime.files"
tar -C / --no-recursion -czf "$out/runtime.tgz" -T "$out/runtime.files"
echo "portable_bundle: $out ($(du -sh "$out" | cut -f1)): $(wc -l < "$out/runtime.files") runtime files"
