# SPDX-License-Identifier: MIT
# `cmake --install BUILD --prefix PREFIX` puts:
#   PREFIX/include/bindery/<layer>/*.hpp             the public headers (and the 0.2 forwarding
#                                                    headers in include/bindery/)
#   PREFIX/lib/libbindery.a, libbindery_render.a     (or .so with -DBUILD_SHARED_LIBS=ON; no
#                                                    renderer with -DBINDERY_BUILD_RENDERER=OFF)
#   PREFIX/lib/libwgpu_native.so, PREFIX/include/webgpu/{webgpu,wgpu}.h
#                                                    the wgpu-native bindery was built against
#                                                    (wgpu-native builds that found it in a folder)
#   PREFIX/lib/cmake/bindery/                        binderyConfig.cmake, its version file, the
#                                                    exported bindery::bindery and bindery::render
#                                                    targets and BinderyWebGPU.cmake
#   PREFIX/lib/pkgconfig/bindery.pc, bindery-render.pc
# Then: find_package(bindery 0.2 CONFIG REQUIRED) + target_link_libraries(app bindery::bindery)
# (the parts) or bindery::render (the renderer), with no other variable. Nothing installed names a
# path of the build machine: the prefix can move.
include(CMakePackageConfigHelpers)

set(BINDERY_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/bindery)

# With -DBINDERY_BUILD_RENDERER=OFF the parts alone: libbindery, its headers (not
# include/bindery/render/ nor the renderer's forwarding headers), bindery.pc and a package whose
# config asks for none of the renderer's dependencies.
install(TARGETS ${BINDERY_LIBRARIES} EXPORT binderyTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(_bindery_header_excludes "")
if(NOT BINDERY_BUILD_RENDERER)
  set(_bindery_header_excludes PATTERN "render" EXCLUDE)
  foreach(forward bench render renderer scene soak)
    list(APPEND _bindery_header_excludes PATTERN "${forward}.hpp" EXCLUDE)
  endforeach()
endif()
install(DIRECTORY include/bindery DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" ${_bindery_header_excludes})
install(EXPORT binderyTargets NAMESPACE bindery:: DESTINATION ${BINDERY_CMAKE_DIR})

if(BUILD_SHARED_LIBS)
  set(BINDERY_PACKAGE_STATIC OFF)
else()
  set(BINDERY_PACKAGE_STATIC ON)
endif()

# The WebGPU implementation: a wgpu-native found in a folder (the default third_party/, or
# BINDERY_WEBGPU_DIR) is installed into the prefix, so the package stands on its own and an
# application's runpath points into the prefix, not into the clone. The SHA-256 of its webgpu.h
# is recorded: a consumer pointing at another webgpu.h is refused at configure time.
get_target_property(_webgpu_type bindery::webgpu TYPE)
get_target_property(_webgpu_includes bindery::webgpu INTERFACE_INCLUDE_DIRECTORIES)
set(BINDERY_PACKAGE_WEBGPU_INSTALLED OFF)
set(BINDERY_PACKAGE_WEBGPU_SHA256 "")
set(BINDERY_PC_WEBGPU_LIB "wgpu_native")
set(BINDERY_PC_WEBGPU_INCLUDEDIR "\${includedir}")
set(BINDERY_PC_WEBGPU_LIBDIR "\${libdir}")
if(_webgpu_includes AND EXISTS ${_webgpu_includes}/webgpu/webgpu.h)
  file(SHA256 ${_webgpu_includes}/webgpu/webgpu.h BINDERY_PACKAGE_WEBGPU_SHA256)
endif()
if(BINDERY_WEBGPU STREQUAL "wgpu-native" AND _webgpu_type STREQUAL "SHARED_LIBRARY")
  get_target_property(_webgpu_library bindery::webgpu IMPORTED_LOCATION)
  install(FILES ${_webgpu_library} DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${_webgpu_includes}/webgpu/webgpu.h ${_webgpu_includes}/webgpu/wgpu.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/webgpu)
  set(BINDERY_PACKAGE_WEBGPU_INSTALLED ON)
elseif(_webgpu_type STREQUAL "SHARED_LIBRARY")
  # Dawn: recorded, not copied (its library needs the private sysroot it was unpacked into).
  get_target_property(_webgpu_library bindery::webgpu IMPORTED_LOCATION)
  get_filename_component(BINDERY_PC_WEBGPU_LIBDIR ${_webgpu_library} DIRECTORY)
  get_filename_component(BINDERY_PC_WEBGPU_LIB ${_webgpu_library} NAME_WE)
  string(REGEX REPLACE "^lib" "" BINDERY_PC_WEBGPU_LIB ${BINDERY_PC_WEBGPU_LIB})
  set(BINDERY_PC_WEBGPU_INCLUDEDIR ${_webgpu_includes})
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
# are public requirements then. A shared library in a prefix outside the loader's search path is
# found through an RPATH to ${libdir}, as the installed libwgpu_native.so is.
if(BUILD_SHARED_LIBS)
  set(BINDERY_PC_REQUIRES "glm fmt")
  set(BINDERY_PC_REQUIRES_PRIVATE "spng")
  set(BINDERY_PC_LIBS "")
  set(BINDERY_PC_LIBS_PRIVATE "-lmeshoptimizer")
  set(BINDERY_RENDER_PC_REQUIRES "bindery")
  set(BINDERY_RENDER_PC_REQUIRES_PRIVATE "tinygltf tbb stb")
else()
  set(BINDERY_PC_REQUIRES "glm fmt spng")
  set(BINDERY_PC_REQUIRES_PRIVATE "")
  set(BINDERY_PC_LIBS " -lmeshoptimizer")  # Debian's meshoptimizer has no pkg-config module
  set(BINDERY_PC_LIBS_PRIVATE "")
  set(BINDERY_RENDER_PC_REQUIRES "bindery tinygltf tbb stb")
  set(BINDERY_RENDER_PC_REQUIRES_PRIVATE "")
endif()
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE ${CMAKE_INSTALL_${kind}})
    set(BINDERY_PC_${kind} ${CMAKE_INSTALL_${kind}})
  else()
    set(BINDERY_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
# The prefix is written at install time (cmake --install --prefix may differ from the configured
# CMAKE_INSTALL_PREFIX): everything else is filled in now, the prefix by an install(CODE) step
# that writes the .pc file straight into the prefix (nothing is written into the build folder at
# install time but CMake's own install_manifest.txt, which lists the installed files).
set(BINDERY_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
set(_bindery_pcs bindery)
if(BINDERY_BUILD_RENDERER)
  list(APPEND _bindery_pcs bindery-render)
endif()
foreach(pc ${_bindery_pcs})
  configure_file(cmake/${pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc.stage @ONLY)
  install(CODE "
    set(_bindery_pc \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/${pc}.pc\")
    message(STATUS \"Installing: \${_bindery_pc}\")
    configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc.stage\" \"\${_bindery_pc}\" @ONLY)
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_bindery_pc}\")
  ")
endforeach()
