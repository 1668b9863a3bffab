# SPDX-License-Identifier: MIT
# Every dependency comes from Debian (installed by scripts/setup.sh) except the WebGPU
# implementation, which cmake/BinderyWebGPU.cmake finds (BINDERY_WEBGPU_TARGET, BINDERY_WEBGPU_DIR,
# default: the wgpu-native that scripts/setup.sh unpacks from the pinned PyPI wheel `wgpu` into
# third_party/wgpu-native/).
#
# Public dependencies (in bindery's headers): glm, fmt, WebGPU. Private ones (sources only):
# libspng and meshoptimizer for bindery::bindery; tinygltf, stb, oneTBB for bindery::render; nlohmann_json
# (header-only, build only) for both. binderyConfig.cmake finds the same targets again
# for consumers of an installed static library (find_dependency), so the names used here are the
# ones the exported bindery::bindery target refers to.
find_package(PkgConfig REQUIRED)
find_package(glm REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
if(BINDERY_BUILD_RENDERER)  # the renderer's own (bindery::render); the parts need neither
  find_package(TBB REQUIRED)  # oneTBB (libtbb-dev): per-object matrices on every core
  find_package(TinyGLTF REQUIRED)  # Debian's libtinygltf-dev: TinyGLTF::TinyGLTF
endif()
# libmeshoptimizer-dev: meshlets and simplification for the cluster hierarchy (bindery::bindery)
find_package(meshoptimizer REQUIRED)
pkg_check_modules(bindery_spng REQUIRED IMPORTED_TARGET spng)  # PkgConfig::bindery_spng
if(BINDERY_BUILD_CLI)
  find_package(CLI11 REQUIRED)
endif()

# The WebGPU implementation, chosen at configure time (one build folder per implementation):
# wgpu-native (default) or dawn (cmake/BinderyDawn.cmake). Only src/core/implementation/<name>.cpp
# differs between the two builds; it sets BINDERY_WEBGPU_REVISION for `bindery info` and reports.
set(BINDERY_WEBGPU "wgpu-native" CACHE STRING "WebGPU implementation: wgpu-native or dawn")
set_property(CACHE BINDERY_WEBGPU PROPERTY STRINGS wgpu-native dawn)
if(BINDERY_WEBGPU STREQUAL "dawn")
  include(${CMAKE_CURRENT_LIST_DIR}/BinderyDawn.cmake)
elseif(BINDERY_WEBGPU STREQUAL "wgpu-native")
  include(${CMAKE_CURRENT_LIST_DIR}/BinderyWebGPU.cmake)
  bindery_find_webgpu(webgpu_error DEFAULT_DIR ${PROJECT_SOURCE_DIR}/third_party/wgpu-native
                      NEED_WGPU_H)
  if(webgpu_error)
    message(FATAL_ERROR "bindery: ${webgpu_error}")
  endif()
  # The PyPI wheel version scripts/setup.sh pins (the library's own version is read at run time).
  file(STRINGS ${PROJECT_SOURCE_DIR}/scripts/setup.sh _wgpu_line REGEX "^WGPU_PY_VERSION=")
  string(REGEX REPLACE "^WGPU_PY_VERSION=" "" _wgpu_py "${_wgpu_line}")
  set(BINDERY_WEBGPU_REVISION "PyPI wheel wgpu==${_wgpu_py}")
else()
  message(FATAL_ERROR "bindery: BINDERY_WEBGPU is '${BINDERY_WEBGPU}'; use wgpu-native or dawn")
endif()

# stb_image (libstb-dev), which tinygltf decodes images with: bindery reads image headers with it
# (stbi_info_from_memory) to refuse oversized images before they are decoded.
# An imported target (not the library's path) so that the exported bindery::render names no path
# of the build machine; the installed binderyConfig.cmake defines it the same way.
if(BINDERY_BUILD_RENDERER AND NOT TARGET bindery::stb)
  find_path(STB_INCLUDE_DIR stb/stb_image.h REQUIRED)
  find_library(STB_LIBRARY stb REQUIRED)
  add_library(bindery::stb UNKNOWN IMPORTED GLOBAL)
  set_target_properties(bindery::stb PROPERTIES IMPORTED_LOCATION ${STB_LIBRARY}
                                                INTERFACE_INCLUDE_DIRECTORIES ${STB_INCLUDE_DIR})
endif()
