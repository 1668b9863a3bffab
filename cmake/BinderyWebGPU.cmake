# SPDX-License-Identifier: MIT
# The WebGPU implementation bindery is built and used with, as the imported target
# bindery::webgpu (webgpu.h on the include path as <webgpu/webgpu.h>, the library to link).
# Used by bindery's own build and by the installed binderyConfig.cmake, so a consumer chooses
# the implementation the same way in both cases, first match wins:
#
#   BINDERY_WEBGPU_TARGET  the name of a target the consumer already has (imported or not) that
#                          provides <webgpu/webgpu.h> and the library, e.g. their own wgpu-native
#                          import. bindery::webgpu forwards to it.
#   BINDERY_WEBGPU_DIR     (CMake variable or environment variable) a folder in the layout of a
#                          wgpu-native release: include/webgpu/webgpu.h and
#                          lib/libwgpu_native.so (scripts/setup.sh unpacks the PyPI wheel so).
#   default_dir            what the caller passes: bindery's own build passes its source tree's
#                          third_party/wgpu-native (the wheel setup of scripts/setup.sh); the
#                          installed config passes its own prefix, where the wgpu-native bindery
#                          was built against is installed (cmake/Install.cmake).
#   a search               find_path(webgpu/webgpu.h) + find_library(wgpu_native) over
#                          CMAKE_PREFIX_PATH and the system folders.
#
# bindery's sources also include <webgpu/wgpu.h> (wgpu-native's extensions: wgpuDevicePoll);
# bindery_find_webgpu(... NEED_WGPU_H) checks for it. Consumers need webgpu.h only.

# bindery_find_webgpu(<result_var> DEFAULT_DIR <dir> [LIBDIR <rel>] [EXPECT_SHA256 <hash>]
#                     [NEED_WGPU_H])
# Defines bindery::webgpu (once; later calls find it defined) and sets <result_var> to an empty
# string on success, else to a one-line message saying what is missing and how to point at it.
# LIBDIR: the library's folder under DEFAULT_DIR (default lib; a BINDERY_WEBGPU_DIR has lib/).
# EXPECT_SHA256: the SHA-256 of the webgpu.h bindery was built against (the installed config
# passes it): a webgpu.h with other contents is another version of the API, refused here rather
# than failing at link or run time.
function(bindery_find_webgpu result_var)
  cmake_parse_arguments(arg "NEED_WGPU_H" "DEFAULT_DIR;LIBDIR;EXPECT_SHA256" "" ${ARGN})

  set(${result_var} "" PARENT_SCOPE)
  if(TARGET bindery::webgpu)
    return()
  endif()
  string(CONCAT hint "set BINDERY_WEBGPU_DIR to a folder holding include/webgpu/webgpu.h and "
         "lib/libwgpu_native.so, or BINDERY_WEBGPU_TARGET to a target of yours providing them")

  if(BINDERY_WEBGPU_TARGET)
    if(NOT TARGET ${BINDERY_WEBGPU_TARGET})
      string(CONCAT msg "BINDERY_WEBGPU_TARGET '${BINDERY_WEBGPU_TARGET}' is not a target "
             "(define it before adding bindery or calling find_package(bindery))")
      set(${result_var} "${msg}" PARENT_SCOPE)
      return()
    endif()
    if(arg_EXPECT_SHA256)
      get_target_property(dirs ${BINDERY_WEBGPU_TARGET} INTERFACE_INCLUDE_DIRECTORIES)
      foreach(d ${dirs})
        if(NOT d MATCHES "\\$<" AND EXISTS ${d}/webgpu/webgpu.h)
          _bindery_check_webgpu_h(${d} ${arg_EXPECT_SHA256} msg)
          if(msg)
            set(${result_var} "${msg}" PARENT_SCOPE)
            return()
          endif()
        endif()
      endforeach()
    endif()
    add_library(bindery::webgpu INTERFACE IMPORTED GLOBAL)
    set_property(TARGET bindery::webgpu PROPERTY INTERFACE_LINK_LIBRARIES ${BINDERY_WEBGPU_TARGET})
    message(STATUS "bindery: WebGPU from target ${BINDERY_WEBGPU_TARGET}")
    return()
  endif()

  set(dir "")
  set(libdir lib)
  if(BINDERY_WEBGPU_DIR)
    set(dir ${BINDERY_WEBGPU_DIR})
    set(from "BINDERY_WEBGPU_DIR")
  elseif(DEFINED ENV{BINDERY_WEBGPU_DIR})
    set(dir $ENV{BINDERY_WEBGPU_DIR})
    set(from "environment variable BINDERY_WEBGPU_DIR")
  elseif(arg_DEFAULT_DIR)
    set(dir ${arg_DEFAULT_DIR})
    set(from "the default (run scripts/setup.sh to fill it)")
    if(arg_LIBDIR)
      set(libdir ${arg_LIBDIR})
    endif()
  endif()

  if(dir)
    set(include_dir ${dir}/include)
    set(library ${dir}/${libdir}/libwgpu_native.so)
    set(missing "")
    foreach(f ${include_dir}/webgpu/webgpu.h ${library})
      if(NOT EXISTS ${f})
        list(APPEND missing ${f})
      endif()
    endforeach()
    if(arg_NEED_WGPU_H AND NOT EXISTS ${include_dir}/webgpu/wgpu.h)
      list(APPEND missing ${include_dir}/webgpu/wgpu.h)
    endif()
    if(missing)
      list(JOIN missing ", " missing)
      set(${result_var} "WebGPU not found in '${dir}' (${from}): missing ${missing}; ${hint}"
          PARENT_SCOPE)
      return()
    endif()
  else()
    find_path(BINDERY_WEBGPU_INCLUDE_DIR webgpu/webgpu.h DOC "folder holding webgpu/webgpu.h")
    find_library(BINDERY_WEBGPU_LIBRARY wgpu_native DOC "the wgpu-native shared library")
    if(NOT BINDERY_WEBGPU_INCLUDE_DIR OR NOT BINDERY_WEBGPU_LIBRARY)
      string(CONCAT msg "WebGPU (webgpu/webgpu.h and libwgpu_native) not found on the search "
             "path; ${hint}")
      set(${result_var} "${msg}" PARENT_SCOPE)
      return()
    endif()
    set(include_dir ${BINDERY_WEBGPU_INCLUDE_DIR})
    set(library ${BINDERY_WEBGPU_LIBRARY})
    if(arg_NEED_WGPU_H AND NOT EXISTS ${include_dir}/webgpu/wgpu.h)
      set(${result_var} "${include_dir}/webgpu/wgpu.h not found next to webgpu.h; ${hint}"
          PARENT_SCOPE)
      return()
    endif()
  endif()

  if(arg_EXPECT_SHA256)
    _bindery_check_webgpu_h(${include_dir} ${arg_EXPECT_SHA256} msg)
    if(msg)
      set(${result_var} "${msg}" PARENT_SCOPE)
      return()
    endif()
  endif()
  add_library(bindery::webgpu SHARED IMPORTED GLOBAL)
  # The wheel's libwgpu_native.so has no SONAME: link it by name, found at run time through the
  # RPATH CMake adds for the library's folder.
  set_target_properties(bindery::webgpu PROPERTIES
    IMPORTED_LOCATION ${library}
    IMPORTED_NO_SONAME ON
    INTERFACE_INCLUDE_DIRECTORIES ${include_dir})
  message(STATUS "bindery: WebGPU from ${library}")
endfunction()

# Sets <msg_var> to a message when <include_dir>/webgpu/webgpu.h is not the header whose SHA-256
# is <expected>, else to an empty string.
function(_bindery_check_webgpu_h include_dir expected msg_var)
  file(SHA256 ${include_dir}/webgpu/webgpu.h actual)
  if(actual STREQUAL expected)
    set(${msg_var} "" PARENT_SCOPE)
  else()
    string(CONCAT msg "${include_dir}/webgpu/webgpu.h is another version of webgpu.h than the one "
           "bindery was built against (SHA-256 ${actual}, expected ${expected}); use the "
           "implementation installed with bindery (leave BINDERY_WEBGPU_DIR and "
           "BINDERY_WEBGPU_TARGET unset) or build bindery against this one")
    set(${msg_var} "${msg}" PARENT_SCOPE)
  endif()
endfunction()
