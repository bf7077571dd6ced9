# Install rules and the exported CMake package:
#
#   find_package(heist)                   heist::heist  libheist.so: threads,
#                                         one process; link interface Threads
#   find_package(heist COMPONENTS mpi)    + heist::mpi  libheist_mpi.so: the
#                                         between-process layer (src/rma)
#
# Boost.Context, hwloc and MPI are private dependencies of the shared
# libraries (their DT_NEEDED), never in a consumer's link line. pkg-config:
# heist.pc and heist-mpi.pc. tests/install checks all of it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS heist_shared EXPORT heistTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/heist DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT heistTargets NAMESPACE heist:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heist)
if(TARGET heist_mpi)
  install(TARGETS heist_mpi EXPORT heistMpiTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT heistMpiTargets NAMESPACE heist:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heist)
endif()

configure_package_config_file(cmake/heistConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/heistConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heist)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/heistConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/heistConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/heistConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heist)

# pkg-config: paths relative to ${pcfiledir}, so the installed tree can move.
file(RELATIVE_PATH heist_pc_to_prefix "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" heist_pc_to_prefix "${heist_pc_to_prefix}")
set(heist_pc_cflags "")
if(HEIST_CHECK_CONTEXT)
  set(heist_pc_cflags " -DHEIST_CHECK_CONTEXT=1")  # as heist::heist carries it
endif()
configure_file(cmake/heist.pc.in ${CMAKE_CURRENT_BINARY_DIR}/heist.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/heist.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(TARGET heist_mpi)
  configure_file(cmake/heist-mpi.pc.in ${CMAKE_CURRENT_BINARY_DIR}/heist-mpi.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/heist-mpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

if(TARGET heist-cli)
  install(TARGETS heist-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# Everything `cmake --install` copies, as one target (tools/demo.sh builds
# it): a tree built only in part (e.g. the CLI alone) installs once this is
# built, without building the whole project.
add_custom_target(installable)
foreach(installed heist_shared heist_mpi heist-cli)
  if(TARGET ${installed})
    add_dependencies(installable ${installed})
  endif()
endforeach()
