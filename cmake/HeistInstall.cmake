# Install rules and the exported CMake package: find_package(heist) then
# target_link_libraries(app heist::heist).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS heist EXPORT heistTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/heist DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT heistTargets NAMESPACE heist:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heist)

configure_package_config_file(cmake/heistConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/heistConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heist)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/heistConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/heistConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/heistConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heist)
if(TARGET heist-cli)
  install(TARGETS heist-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
