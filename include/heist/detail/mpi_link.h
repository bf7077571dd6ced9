/* heist — part of heist.h and heist.hpp, not for direct use.
 *
 * A program built with heist::mpi (CMake) or `pkg-config heist-mpi` is
 * compiled with HEIST_MPI_PLUGIN. Then every translation unit that includes
 * heist.h or heist.hpp keeps a reference to heist_mpi_linked, defined in the
 * file of libheist_mpi that registers the between-process layer with the
 * runtime (src/rma/mpi_plugin.cpp). The reference makes the linker keep that
 * file (static archive) or the library (shared, even with --as-needed), so
 * the registration always runs. Without HEIST_MPI_PLUGIN the program is one
 * process of threads and asking for MPI is an error naming heist::mpi. */
#ifndef HEIST_DETAIL_MPI_LINK_H
#define HEIST_DETAIL_MPI_LINK_H

#ifdef HEIST_MPI_PLUGIN
#ifdef __cplusplus
extern "C" {
#endif
extern const int heist_mpi_linked;
#ifdef __cplusplus
}
#endif
#if defined(__GNUC__) || defined(__clang__)
__attribute__((used)) static const int* const heist_mpi_link_anchor = &heist_mpi_linked;
#else
#error "heist::mpi: HEIST_MPI_PLUGIN needs GCC or Clang (__attribute__((used)))"
#endif
#endif

#endif
