# SPDX-License-Identifier: MIT
# The Dawn build (-DBINDERY_WEBGPU=dawn): Debian forky's libwebgpu-dawn0 + libwebgpu-dawn-dev,
# unpacked by scripts/setup_dawn.sh into the private sysroot third_party/dawn-sysroot/ (or
# BINDERY_DAWN_SYSROOT), with the glibc 2.43 / libstdc++ 16 runtime Dawn was built against.
#
# bookworm's cmake 3.25 cannot read Dawn's own CMake config (C++-module file sets), so the
# imported target bindery::webgpu is written here by hand:
#   - include: the sysroot's usr/include, which holds only Dawn's headers (webgpu/, dawn/): no
#     forky libc or libstdc++ -dev package is unpacked there to shadow the system's headers;
#   - link: libwebgpu_dawn.so with --allow-shlib-undefined (bookworm's libc/libstdc++ lack the
#     GLIBC_2.38+/GLIBCXX_3.4.32+ versions Dawn's library refers to) and -rpath-link to the
#     sysroot for its own dependencies (abseil);
#   - run: every executable that links bindery gets the sysroot's ld.so as its interpreter
#     (PT_INTERP) and a DT_RPATH (not RUNPATH, which would not reach Dawn's own dependencies) to
#     the sysroot's library folder, so `bindery` and the tests run directly. The system's own
#     libraries (fmt, spng, tbb, ...) still come from the system's folders.
set(BINDERY_DAWN_SYSROOT "${PROJECT_SOURCE_DIR}/third_party/dawn-sysroot" CACHE PATH
    "Folder scripts/setup_dawn.sh unpacked Dawn into (holds root/usr/...)")
set(_dawn_root ${BINDERY_DAWN_SYSROOT}/root)
set(_dawn_lib ${_dawn_root}/usr/lib/x86_64-linux-gnu)
set(_dawn_ldso ${_dawn_lib}/ld-linux-x86-64.so.2)
foreach(f ${_dawn_root}/usr/include/webgpu/webgpu.h ${_dawn_lib}/libwebgpu_dawn.so ${_dawn_ldso})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "bindery: Dawn not found: missing ${f}; run scripts/setup_dawn.sh or set "
                        "BINDERY_DAWN_SYSROOT")
  endif()
endforeach()

# The pinned Debian package version, from scripts/setup_dawn.sh (one place), checked against what
# the sysroot's stamp says was unpacked.
file(STRINGS ${PROJECT_SOURCE_DIR}/scripts/setup_dawn.sh _dawn_line REGEX "^DAWN_VERSION=")
string(REGEX REPLACE "^DAWN_VERSION=\"?([^\"]*)\"?$" "\\1" BINDERY_DAWN_VERSION "${_dawn_line}")
file(READ ${BINDERY_DAWN_SYSROOT}/.pins _dawn_pins)
if(NOT _dawn_pins MATCHES "libwebgpu-dawn0=${BINDERY_DAWN_VERSION} ")
  message(FATAL_ERROR "bindery: ${BINDERY_DAWN_SYSROOT} does not hold libwebgpu-dawn0 "
                      "${BINDERY_DAWN_VERSION}; run scripts/setup_dawn.sh again")
endif()
# Debian's upstream version 0.0~gitYYYYMMDD.<commit>-N names Dawn's commit.
string(REGEX REPLACE "^.*\\.([0-9a-f]+)-[0-9]+$" "\\1" BINDERY_DAWN_COMMIT "${BINDERY_DAWN_VERSION}")
set(BINDERY_WEBGPU_REVISION "${BINDERY_DAWN_VERSION} (Debian libwebgpu-dawn0, Dawn commit ${BINDERY_DAWN_COMMIT})")

add_library(bindery::webgpu SHARED IMPORTED GLOBAL)
set_target_properties(bindery::webgpu PROPERTIES
  IMPORTED_LOCATION ${_dawn_lib}/libwebgpu_dawn.so
  IMPORTED_SONAME libwebgpu_dawn.so.0
  INTERFACE_INCLUDE_DIRECTORIES ${_dawn_root}/usr/include)
target_link_options(bindery::webgpu INTERFACE
  -Wl,--allow-shlib-undefined -Wl,-rpath-link=${_dawn_lib}
  $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-Wl,--dynamic-linker=${_dawn_ldso}>
  -Wl,--disable-new-dtags -Wl,-rpath=${_dawn_lib})
message(STATUS "bindery: WebGPU from Dawn ${BINDERY_DAWN_VERSION} in ${BINDERY_DAWN_SYSROOT}")
