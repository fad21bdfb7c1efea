# Installation (cmake --install BUILD [--prefix P]):
#   bin/moreau                                   the command-line tool
#   lib/libmoreau.a, lib/libmoreau.so*           the static and the shared library
#   include/moreau/*.h                           the public headers
#   share/moreau/models/                         the bundled models (humanoid.xml, ...)
#   lib/cmake/moreau/                            the CMake package: find_package(moreau) -> moreau::moreau
#   lib/pkgconfig/moreau.pc                      pkg-config (the shared library; --static for a static link)
# moreau::moreau is the shared library, or the static one where MOREAU_USE_STATIC_LIBS is ON when
# find_package(moreau) runs; moreau::moreau_shared and moreau::moreau_static name each directly.
include(CMakePackageConfigHelpers)
set(MOREAU_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/moreau)

install(TARGETS moreau_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS moreau_shared EXPORT moreau-shared-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS moreau EXPORT moreau-static-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/moreau DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/moreau/models)

install(EXPORT moreau-shared-targets NAMESPACE moreau:: DESTINATION ${MOREAU_CMAKE_DIR})
install(EXPORT moreau-static-targets NAMESPACE moreau:: DESTINATION ${MOREAU_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/moreauConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/moreauConfig.cmake
                              INSTALL_DESTINATION ${MOREAU_CMAKE_DIR})
# 0.x: minor versions may break the API, so a request for 0.1 accepts 0.1.z only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/moreauConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/moreauConfig.cmake ${PROJECT_BINARY_DIR}/moreauConfigVersion.cmake
        DESTINATION ${MOREAU_CMAKE_DIR})

# moreau.pc finds its prefix from its own location (${pcfiledir}), so an install under any --prefix works.
file(RELATIVE_PATH MOREAU_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" MOREAU_PC_TO_PREFIX "${MOREAU_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/moreau.pc.in ${PROJECT_BINARY_DIR}/moreau.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/moreau.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
