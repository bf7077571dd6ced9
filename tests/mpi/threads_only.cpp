// A program linked with the single-process library alone (libheist.so, CMake
// heist::heist of an installed heist, without heist::mpi) is one process of
// threads. Started by mpirun with several processes, each of its Runtimes
// refuses to start (heist::OptionError naming heist::mpi and HEIST_MPI=off),
// rather than running the whole program once per process unawares; with
// HEIST_MPI=off each process runs alone.
#include <cstdio>

#include <heist/heist.hpp>

int main() try {
  heist::Runtime rt;
  int ran = 0;
  heist::finish([&] { heist::async([&] { ran = 1; }); });
  std::printf("ran alone: rank %d of %d, %d task\n", rt.rank(), rt.ranks(), ran);
  return ran == 1 ? 0 : 1;
} catch (const heist::OptionError& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
