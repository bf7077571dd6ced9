# The install test (ctest -L install): installs a heist build tree into a
# temporary prefix, then uses it as a user would, from the README's examples
# (tools/readme_examples.py extracts every `<!-- example: NAME -->` block):
#
#  1. the exported CMake files and the .pc files name no absolute path and no
#     empty $<LINK_ONLY:>; heist::heist's link interface is Threads only;
#  2. find_package(heist): tests/install/consumer/main.cpp and every README
#     example NAME.cpp whose name does not start with mpi_ build and run; none
#     needs libmpi (ldd) nor names MPI, Boost or hwloc among its own libraries
#     (readelf NEEDED); asking for MPI without heist::mpi (HEIST_MPI=on, or a
#     start by mpirun with 2 processes) fails with an error naming heist::mpi;
#  3. find_package(heist COMPONENTS mpi): every mpi_*.cpp example builds,
#     needs libheist_mpi, loads the MPI library heist was built with (LIBMPI,
#     a regex: libmpi\.so for OpenMPI, libmpich\.so for MPICH), and runs
#     under that MPI's launcher (MPIEXEC) with 2 ranks;
#  4. every NAME.c example builds with `pkg-config --cflags --libs heist` and
#     runs, and builds with heist-mpi too (then needing libheist_mpi).
# The README must hold at least one example of each kind (threads .cpp,
# mpi_*.cpp, .c), so the test cannot pass on an empty README. Removes
# everything it created, whether it passes or fails.
#
#   cmake -DHEIST_BUILD_DIR=... -DWORK_DIR=... -DCONSUMER_SOURCE_DIR=... -DGENERATOR=...
#         -DREADME=... -DPYTHON=... -DEXTRACT=tools/readme_examples.py -DLIBDIR=lib
#         [-DMAKE_PROGRAM=...] [-DCXX_COMPILER=...] [-DC_COMPILER=...] [-DBUILD_TYPE=...]
#         [-DSANITIZER_FLAGS=...] [-DMPIEXEC=... -DLIBMPI=...] -P run_install_test.cmake
foreach(var HEIST_BUILD_DIR WORK_DIR CONSUMER_SOURCE_DIR GENERATOR README PYTHON EXTRACT LIBDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_install_test.cmake: ${var} is not set")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(examples_dir "${WORK_DIR}/examples")
set(failure "")

# step(<name> <command...>): runs the command unless an earlier step failed.
function(step name)
  if(failure)
    return()
  endif()
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 0)
    set(failure "${name} failed (${rc}):\n${out}\n${err}" PARENT_SCOPE)
  else()
    message(STATUS "${name}: ok")
  endif()
endfunction()

# step_fails(<name> <regex> <command...>): the command must fail, saying <regex>.
function(step_fails name regex)
  if(failure)
    return()
  endif()
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "${regex}")
    set(failure "${name}: expected a failure matching '${regex}', got exit ${rc}:\n${out}\n${err}" PARENT_SCOPE)
  else()
    message(STATUS "${name}: fails as it should")
  endif()
endfunction()

# check_libraries(<program> <forbidden NEEDED regex> <required NEEDED regex or "">):
# its own NEEDED entries (readelf -d) and, for libmpi, everything it loads (ldd).
function(check_libraries program forbidden required)
  if(failure)
    return()
  endif()
  execute_process(COMMAND ${READELF} -d ${program} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
  if(NOT rc EQUAL 0 OR NOT needed)
    set(failure "readelf -d ${program} failed or lists no NEEDED library" PARENT_SCOPE)
    return()
  endif()
  if("${needed}" MATCHES "${forbidden}")
    set(failure "${program} links what it must not (${forbidden}):\n${needed}" PARENT_SCOPE)
    return()
  endif()
  if(required AND NOT "${needed}" MATCHES "${required}")
    set(failure "${program} does not link ${required}:\n${needed}" PARENT_SCOPE)
    return()
  endif()
  if(NOT required)
    execute_process(COMMAND ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${prefix}/${LIBDIR}" ${LDD} ${program}
                    OUTPUT_VARIABLE loaded RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR "${loaded}" MATCHES "libmpi")
      set(failure "${program} loads libmpi, or ldd failed (${rc}):\n${loaded}" PARENT_SCOPE)
      return()
    endif()
  endif()
  message(STATUS "libraries of ${program}: ok")
endfunction()

# check_loads_mpi(<program>): ldd shows the MPI library heist was built with (LIBMPI).
function(check_loads_mpi program)
  if(failure OR NOT LIBMPI)
    return()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${prefix}/${LIBDIR}" ${LDD} ${program}
                  OUTPUT_VARIABLE loaded RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT "${loaded}" MATCHES "${LIBMPI}")
    set(failure "${program} does not load the MPI heist was built with (${LIBMPI}), or ldd failed (${rc}):\n${loaded}"
        PARENT_SCOPE)
    return()
  endif()
  message(STATUS "${program} loads ${CMAKE_MATCH_0}: ok")
endfunction()

find_program(READELF NAMES readelf REQUIRED)
find_program(LDD NAMES ldd REQUIRED)
find_program(PKG_CONFIG NAMES pkg-config pkgconf REQUIRED)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# ---- the README's examples
execute_process(COMMAND ${PYTHON} ${EXTRACT} ${README} --out ${examples_dir}
                RESULT_VARIABLE rc OUTPUT_VARIABLE names ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  set(failure "extracting the examples of ${README} failed: ${err}")
else()
  file(GLOB cpp_examples RELATIVE ${examples_dir} ${examples_dir}/*.cpp)
  file(GLOB c_examples RELATIVE ${examples_dir} ${examples_dir}/*.c)
  set(threads_examples ${cpp_examples})
  list(FILTER threads_examples EXCLUDE REGEX "^mpi_")
  set(mpi_examples ${cpp_examples})
  list(FILTER mpi_examples INCLUDE REGEX "^mpi_")
  if(NOT threads_examples OR NOT c_examples OR (MPIEXEC AND NOT mpi_examples))
    set(failure "${README} must hold a threads example (NAME.cpp), an MPI one (mpi_NAME.cpp) and a C one "
                "(NAME.c), each marked <!-- example: NAME -->; it has: ${names}")
  else()
    message(STATUS "README examples: threads ${threads_examples}; mpi ${mpi_examples}; C ${c_examples}")
  endif()
endif()

# ---- install and the exported files
set(install_args "${CMAKE_COMMAND}" --install "${HEIST_BUILD_DIR}" --prefix "${prefix}")
if(BUILD_TYPE)
  list(APPEND install_args --config "${BUILD_TYPE}")
endif()
step("install" ${install_args})
if(NOT failure AND NOT EXISTS "${prefix}/include/heist/heist.hpp")
  set(failure "install did not put include/heist/heist.hpp under ${prefix}")
endif()
if(NOT failure)
  file(GLOB exported "${prefix}/${LIBDIR}/cmake/heist/*.cmake" "${prefix}/${LIBDIR}/pkgconfig/heist*.pc")
  foreach(file IN LISTS exported)
    file(READ "${file}" text)
    if(text MATCHES "\\$<LINK_ONLY:>")
      set(failure "${file} has an empty $<LINK_ONLY:> entry")
    elseif(text MATCHES "[\" ;=:](/usr/|/opt/|/home/|/work/|/tmp/|/root/)")
      set(failure "${file} names an absolute path (${CMAKE_MATCH_0}...):\n${text}")
    endif()
    if(file MATCHES "heistTargets\\.cmake$")
      string(REGEX MATCH "INTERFACE_LINK_LIBRARIES \"([^\"]*)\"" _ "${text}")
      if(NOT CMAKE_MATCH_1 STREQUAL "Threads::Threads")
        set(failure "heist::heist's link interface is '${CMAKE_MATCH_1}', not Threads::Threads only")
      endif()
    endif()
  endforeach()
  if(NOT failure AND NOT EXISTS "${prefix}/${LIBDIR}/pkgconfig/heist.pc")
    set(failure "install did not put ${LIBDIR}/pkgconfig/heist.pc under ${prefix}")
  endif()
  if(NOT failure)
    message(STATUS "exported CMake and pkg-config files: ok")
  endif()
endif()

# ---- CMake consumers: find_package(heist), then find_package(heist COMPONENTS mpi)
set(configure_common "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF "-DEXAMPLES_DIR=${examples_dir}" -G "${GENERATOR}")
if(MAKE_PROGRAM)
  list(APPEND configure_common "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(CXX_COMPILER)
  list(APPEND configure_common "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(BUILD_TYPE)
  list(APPEND configure_common "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()
if(SANITIZER_FLAGS)
  list(APPEND configure_common "-DCMAKE_CXX_FLAGS=${SANITIZER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZER_FLAGS}")
endif()
set(run_env ASAN_OPTIONS=detect_leaks=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    HEIST_WORKERS=2)
set(mpiexec_flags "")
if(MPIEXEC)
  execute_process(COMMAND ${MPIEXEC} --version OUTPUT_VARIABLE mpiexec_version ERROR_QUIET)
  if(mpiexec_version MATCHES "Open MPI|OpenRTE")
    set(mpiexec_flags --allow-run-as-root --oversubscribe)
  endif()
endif()

set(modes threads)
if(MPIEXEC)
  list(APPEND modes mpi)
endif()
foreach(mode IN LISTS modes)
  set(build "${WORK_DIR}/consumer-${mode}")
  step("configure consumer (${mode})" "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${build}"
       -DMODE=${mode} ${configure_common})
  # The consumer must have found the installed package, not a build tree.
  if(NOT failure)
    file(STRINGS "${build}/CMakeCache.txt" heist_dir_line REGEX "^heist_DIR:")
    string(FIND "${heist_dir_line}" "${prefix}/" at)
    if(NOT at GREATER -1)
      set(failure "the consumer found heist outside the install prefix: ${heist_dir_line}")
    endif()
  endif()
  step("build consumer (${mode})" "${CMAKE_COMMAND}" --build "${build}")
  set(programs "")
  if(NOT failure)
    file(READ "${build}/programs.txt" programs)
  endif()
  foreach(program IN LISTS programs)
    if(mode STREQUAL "threads")
      check_libraries("${build}/${program}" "libmpi|boost|hwloc" "")
      step("run ${program}" ${CMAKE_COMMAND} -E env ${run_env} "${build}/${program}")
    else()
      check_libraries("${build}/${program}" "boost|hwloc" "libheist_mpi")
      check_loads_mpi("${build}/${program}")
      step("run ${program} under ${MPIEXEC} -n 2" ${CMAKE_COMMAND} -E env ${run_env}
           ${MPIEXEC} ${mpiexec_flags} -n 2 "${build}/${program}")
    endif()
  endforeach()
  if(mode STREQUAL "threads" AND threads_examples)
    # MPI asked for without heist::mpi: a clear error naming heist::mpi.
    list(GET threads_examples 0 first)
    string(REGEX REPLACE "\\.cpp$" "" first "${first}")
    step_fails("${first} with HEIST_MPI=on" "heist::mpi" ${CMAKE_COMMAND} -E env ${run_env} HEIST_MPI=on
               "${build}/${first}")
    if(MPIEXEC)
      step_fails("${first} under ${MPIEXEC} -n 2" "heist::mpi" ${CMAKE_COMMAND} -E env ${run_env}
                 ${MPIEXEC} ${mpiexec_flags} -n 2 "${build}/${first}")
    endif()
  endif()
endforeach()

# ---- C programs through pkg-config
if(NOT C_COMPILER)
  set(C_COMPILER cc)
endif()
set(pc_env "PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig")
set(packages heist)
if(MPIEXEC)
  list(APPEND packages heist-mpi)
endif()
foreach(package IN LISTS packages)
  if(failure)
    break()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${pc_env} ${PKG_CONFIG} --cflags --libs ${package}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    set(failure "pkg-config --cflags --libs ${package} failed: ${err}")
    break()
  endif()
  message(STATUS "pkg-config --cflags --libs ${package}: ${flags}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  separate_arguments(sanitizer_list UNIX_COMMAND "${SANITIZER_FLAGS}")
  foreach(example IN LISTS c_examples)
    string(REGEX REPLACE "\\.c$" "" name "${example}")
    set(program "${WORK_DIR}/c-${package}/${name}")
    file(MAKE_DIRECTORY "${WORK_DIR}/c-${package}")
    step("cc ${example} (pkg-config ${package})" ${C_COMPILER} -std=c11 -Wall -Wextra -Werror ${sanitizer_list}
         "${examples_dir}/${example}" -o "${program}" ${flags})
    if(package STREQUAL "heist")
      check_libraries("${program}" "libmpi|boost|hwloc" "")
    else()
      check_libraries("${program}" "boost|hwloc" "libheist_mpi")
    endif()
    step("run ${name} (${package})" ${CMAKE_COMMAND} -E env ${run_env} "LD_LIBRARY_PATH=${prefix}/${LIBDIR}"
         "${program}")
  endforeach()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
if(failure)
  message(FATAL_ERROR "${failure}")
endif()
message(STATUS "installed heist works from ${prefix}")
