# Every dependency comes from Debian (installed by scripts/setup.sh) except wgpu-native, which
# scripts/setup.sh unpacks from the pinned PyPI wheel `wgpu` into third_party/wgpu-native/.
find_package(PkgConfig REQUIRED)
find_package(glm REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
pkg_check_modules(SPNG REQUIRED IMPORTED_TARGET spng)

set(BINDERY_WGPU_DIR ${CMAKE_CURRENT_SOURCE_DIR}/third_party/wgpu-native)
if(NOT EXISTS ${BINDERY_WGPU_DIR}/lib/libwgpu_native.so OR
   NOT EXISTS ${BINDERY_WGPU_DIR}/include/webgpu/webgpu.h)
  message(FATAL_ERROR "wgpu-native not found in ${BINDERY_WGPU_DIR}: run scripts/setup.sh first")
endif()
add_library(bindery::wgpu SHARED IMPORTED GLOBAL)
set_target_properties(bindery::wgpu PROPERTIES
  IMPORTED_LOCATION ${BINDERY_WGPU_DIR}/lib/libwgpu_native.so
  IMPORTED_NO_SONAME ON
  INTERFACE_INCLUDE_DIRECTORIES ${BINDERY_WGPU_DIR}/include)

# tinygltf from Debian (libtinygltf-dev): header plus a shared library with the implementation.
find_path(TINYGLTF_INCLUDE_DIR tiny_gltf.h REQUIRED)
find_library(TINYGLTF_LIBRARY tinygltf REQUIRED)
add_library(tinygltf_lib INTERFACE)
target_include_directories(tinygltf_lib INTERFACE ${TINYGLTF_INCLUDE_DIR})
target_link_libraries(tinygltf_lib INTERFACE ${TINYGLTF_LIBRARY})

# stb_image (libstb-dev), which tinygltf decodes images with: bindery reads image headers with it
# (stbi_info_from_memory) to refuse oversized images before they are decoded.
find_path(STB_INCLUDE_DIR stb/stb_image.h REQUIRED)
find_library(STB_LIBRARY stb REQUIRED)
target_include_directories(tinygltf_lib INTERFACE ${STB_INCLUDE_DIR})
target_link_libraries(tinygltf_lib INTERFACE ${STB_LIBRARY})
