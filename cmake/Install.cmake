# SPDX-License-Identifier: MIT
# `cmake --install BUILD --prefix PREFIX` puts:
#   PREFIX/include/bindery/*.hpp                     the public headers
#   PREFIX/lib/libbindery.a (or .so with -DBUILD_SHARED_LIBS=ON)
#   PREFIX/lib/cmake/bindery/                        binderyConfig.cmake, its version file, the
#                                                    exported bindery::bindery target and
#                                                    BinderyWebGPU.cmake
#   PREFIX/lib/pkgconfig/bindery.pc
# Then: find_package(bindery 0.2 CONFIG REQUIRED) + target_link_libraries(app bindery::bindery).
include(CMakePackageConfigHelpers)

set(BINDERY_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/bindery)

install(TARGETS bindery EXPORT binderyTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/bindery DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(EXPORT binderyTargets NAMESPACE bindery:: DESTINATION ${BINDERY_CMAKE_DIR})

if(BUILD_SHARED_LIBS)
  set(BINDERY_PACKAGE_STATIC OFF)
else()
  set(BINDERY_PACKAGE_STATIC ON)
endif()
configure_package_config_file(cmake/binderyConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/binderyConfig.cmake INSTALL_DESTINATION ${BINDERY_CMAKE_DIR})
# 0.x: a new minor version may break the API, so 0.2 accepts 0.2.* only.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/binderyConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/binderyConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/binderyConfigVersion.cmake
              cmake/BinderyWebGPU.cmake
        DESTINATION ${BINDERY_CMAKE_DIR})

# pkg-config: a static library needs its private libraries on the consumer's link line, so they
# are public requirements then (nlohmann_json is header-only and never needed by consumers).
# A shared libbindery.so in a prefix outside the loader's search path is found through an RPATH,
# as libwgpu_native.so is.
if(BUILD_SHARED_LIBS)
  set(BINDERY_PC_REQUIRES "glm fmt")
  set(BINDERY_PC_REQUIRES_PRIVATE "spng tinygltf tbb")
  set(BINDERY_PC_RPATH " -Wl,-rpath,\${libdir}")
else()
  set(BINDERY_PC_REQUIRES "glm fmt spng tinygltf tbb")
  set(BINDERY_PC_REQUIRES_PRIVATE "")
  set(BINDERY_PC_RPATH "")
endif()
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE ${CMAKE_INSTALL_${kind}})
    set(BINDERY_PC_${kind} ${CMAKE_INSTALL_${kind}})
  else()
    set(BINDERY_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
# The prefix is written at install time (cmake --install --prefix may differ from the configured
# CMAKE_INSTALL_PREFIX): everything else is filled in now, the prefix by an install(CODE) step.
set(BINDERY_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
configure_file(cmake/bindery.pc.in ${CMAKE_CURRENT_BINARY_DIR}/bindery.pc.stage @ONLY)
install(CODE "
  configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/bindery.pc.stage\"
                 \"${CMAKE_CURRENT_BINARY_DIR}/bindery.pc\" @ONLY)
  file(INSTALL \"${CMAKE_CURRENT_BINARY_DIR}/bindery.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")
")
