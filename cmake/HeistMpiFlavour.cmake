# HEIST_MPI_FLAVOUR picks one of several MPIs installed side by side (as
# Debian installs OpenMPI and MPICH: mpicxx.openmpi, mpicxx.mpich, and
# update-alternatives choosing which one plain `mpicxx`/`mpiexec` is):
#   ''        whatever find_package(MPI) finds first: the system's default MPI;
#   openmpi   mpicxx.openmpi and mpiexec.openmpi;
#   mpich     mpicxx.mpich and mpiexec.mpich (MPICH's Hydra).
# The wrappers tell FindMPI the include directories and libraries; the
# launcher becomes MPIEXEC_EXECUTABLE, which every multi-rank test runs
# under. A cache variable set on the command line (MPI_CXX_COMPILER,
# MPIEXEC_EXECUTABLE) wins over the flavour's.
set(HEIST_MPI_FLAVOUR "" CACHE STRING "Which installed MPI to build with: '' (the default one), 'openmpi' or 'mpich'")
set_property(CACHE HEIST_MPI_FLAVOUR PROPERTY STRINGS "" openmpi mpich)
if(NOT HEIST_MPI_FLAVOUR STREQUAL "")
  if(NOT HEIST_MPI_FLAVOUR MATCHES "^(openmpi|mpich)$")
    message(FATAL_ERROR "HEIST_MPI_FLAVOUR must be '', 'openmpi' or 'mpich', not '${HEIST_MPI_FLAVOUR}'")
  endif()
  set(heist_flavour_hint "")
  if(HEIST_MPI_FLAVOUR STREQUAL "mpich")
    set(heist_flavour_hint " (Debian: apt-get install mpich libmpich-dev)")
  else()
    set(heist_flavour_hint " (Debian: apt-get install openmpi-bin libopenmpi-dev)")
  endif()
  find_program(MPI_C_COMPILER NAMES mpicc.${HEIST_MPI_FLAVOUR} DOC "MPI C compiler wrapper")
  find_program(MPI_CXX_COMPILER NAMES mpicxx.${HEIST_MPI_FLAVOUR} mpic++.${HEIST_MPI_FLAVOUR}
               DOC "MPI C++ compiler wrapper")
  find_program(MPIEXEC_EXECUTABLE NAMES mpiexec.${HEIST_MPI_FLAVOUR} mpirun.${HEIST_MPI_FLAVOUR}
               DOC "The launcher of the multi-rank tests")
  foreach(heist_flavour_var MPI_C_COMPILER MPI_CXX_COMPILER MPIEXEC_EXECUTABLE)
    if(NOT ${heist_flavour_var})
      message(FATAL_ERROR "HEIST_MPI_FLAVOUR=${HEIST_MPI_FLAVOUR}: no ${heist_flavour_var} found"
                          "${heist_flavour_hint}")
    endif()
  endforeach()
  find_package(MPI COMPONENTS CXX REQUIRED)
endif()
