# Writes OUT: one `inline constexpr std::string_view <name> = R"wgsl(...)wgsl";` per input file,
# named after the file (cubes_naive.wgsl -> cubes_naive).
set(content "// Generated from shaders/*.wgsl by cmake/EmbedShaders.cmake. Do not edit.\n#pragma once\n#include <string_view>\nnamespace bindery::shaders {\n")
string(REPLACE "|" ";" INPUTS "${INPUTS}")
foreach(f ${INPUTS})
  get_filename_component(name ${f} NAME_WE)
  file(READ ${f} text)
  string(APPEND content "inline constexpr std::string_view ${name} = R\"wgsl(${text})wgsl\";\n")
endforeach()
string(APPEND content "}  // namespace bindery::shaders\n")
file(WRITE ${OUT} "${content}")
