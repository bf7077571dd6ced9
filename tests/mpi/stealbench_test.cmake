# `heist bench stealbench` under mpirun, 2 ranks, each protocol: the run
# exits 0 only when verify() accepts the communication counts of the timed
# steals (SWS 3 with 2 blocking, SDC 6 with 5 blocking) and every stolen
# slot was the task offered. Included at the end of the top-level directory
# (apps/stealbench/CMakeLists.txt), where testing is enabled.
if(NOT TARGET heist-cli OR NOT MPIEXEC_EXECUTABLE)
  return()
endif()
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE heist_stealbench_mpiexec_version ERROR_QUIET)
set(heist_stealbench_flags ${MPIEXEC_PREFLAGS})
if(heist_stealbench_mpiexec_version MATCHES "Open MPI|OpenRTE")
  list(APPEND heist_stealbench_flags --oversubscribe)  # MPICH's Hydra oversubscribes by default
endif()
foreach(protocol sws sdc)
  add_test(NAME mpi.stealbench.${protocol}
           COMMAND ${MPIEXEC_EXECUTABLE} ${heist_stealbench_flags} ${MPIEXEC_NUMPROC_FLAG} 2
                   $<TARGET_FILE:heist-cli> bench stealbench --payload 8 --steals 200 --protocol ${protocol} --json)
  set_tests_properties(mpi.stealbench.${protocol} PROPERTIES
                       LABELS mpi TIMEOUT 120
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;ASAN_OPTIONS=detect_leaks=0")
endforeach()
