# SPDX-License-Identifier: MIT
# Writes OUT: one `inline constexpr std::string_view <name> = R"wgsl(...)wgsl";` per input file,
# named after the file (cubes_naive.wgsl -> cubes_naive). A line `// @include NAME.wgsl` is
# replaced by that file of the same folder (WGSL has no includes; bindery::read_wgsl_file does the
# same for `bindery layout`), at most 8 levels deep.
string(REPLACE "|" ";" INPUTS "${INPUTS}")
set(content "// Generated from shaders/*.wgsl by cmake/EmbedShaders.cmake. Do not edit.\n#pragma once\n#include <string_view>\nnamespace bindery::shaders {\n")
foreach(f ${INPUTS})
  get_filename_component(name ${f} NAME_WE)
  get_filename_component(dir ${f} DIRECTORY)
  file(READ ${f} text)
  foreach(level RANGE 8)
    string(REGEX MATCH "\n// @include ([A-Za-z0-9_.-]+)" directive "${text}")
    if(NOT directive)
      break()
    endif()
    set(included_name ${CMAKE_MATCH_1})
    if(NOT EXISTS ${dir}/${included_name})
      message(FATAL_ERROR "${f}: // @include ${included_name}: no such file in ${dir}")
    endif()
    file(READ ${dir}/${included_name} included)
    string(REPLACE "${directive}" "\n${included}" text "${text}")
  endforeach()
  string(APPEND content "inline constexpr std::string_view ${name} = R\"wgsl(${text})wgsl\";\n")
endforeach()
string(APPEND content "}  // namespace bindery::shaders\n")
file(WRITE ${OUT} "${content}")
