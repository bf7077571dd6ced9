# Installs a heist build tree into a temporary prefix, then configures, builds
# and runs tests/install/consumer against it, as a user would. Removes
# everything it created, whether it passes or fails.
#
#   cmake -DHEIST_BUILD_DIR=... -DWORK_DIR=... -DCONSUMER_SOURCE_DIR=...
#         -DGENERATOR=... [-DMAKE_PROGRAM=...] [-DCXX_COMPILER=...] [-DBUILD_TYPE=...]
#         [-DSANITIZER_FLAGS=...] -P run_install_test.cmake
foreach(var HEIST_BUILD_DIR WORK_DIR CONSUMER_SOURCE_DIR GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_install_test.cmake: ${var} is not set")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer-build")
set(failure "")

function(step name)
  if(failure)
    return()
  endif()
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    set(failure "${name} failed (${rc}):\n${out}\n${err}" PARENT_SCOPE)
  else()
    message(STATUS "${name}: ok")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(install_args "${CMAKE_COMMAND}" --install "${HEIST_BUILD_DIR}" --prefix "${prefix}")
if(BUILD_TYPE)
  list(APPEND install_args --config "${BUILD_TYPE}")
endif()
step("install" ${install_args})

if(NOT failure AND NOT EXISTS "${prefix}/include/heist/heist.hpp")
  set(failure "install did not put include/heist/heist.hpp under ${prefix}")
endif()

set(configure_args "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${consumer_build}" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(MAKE_PROGRAM)
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(BUILD_TYPE)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()
if(SANITIZER_FLAGS)
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${SANITIZER_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZER_FLAGS}")
endif()
step("configure consumer" ${configure_args})

# The consumer must have found the installed package, not a build tree.
if(NOT failure)
  file(STRINGS "${consumer_build}/CMakeCache.txt" heist_dir_line REGEX "^heist_DIR:")
  string(FIND "${heist_dir_line}" "${prefix}/" at)
  if(NOT at GREATER -1)
    set(failure "the consumer found heist outside the install prefix: ${heist_dir_line}")
  endif()
endif()

step("build consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")
step("run consumer" "${consumer_build}/consumer")

file(REMOVE_RECURSE "${WORK_DIR}")
if(failure)
  message(FATAL_ERROR "${failure}")
endif()
message(STATUS "installed heist works from ${prefix}")
