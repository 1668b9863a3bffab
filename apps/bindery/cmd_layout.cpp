// `bindery layout FILE.wgsl [--json]`: the WGSL memory layout of a shader — per struct its size
// and alignment, per member offset, size, alignment, stride and padding; per binding the
// minBindingSize (spec) and the portable one (roundUp(16, size) for uniform, as Dawn requires);
// uniform-rule violations as errors with line:column (issue 3).
// Exit codes: 0 no errors, 1 layout/type errors, 2 the file cannot be read or parsed.
#include "command.hpp"

#include <bindery/io.hpp>

#include <bindery/wgsl_layout.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace bindery::cli {
namespace {

struct LayoutOptions {
  std::string file;
  bool json = false;
  bool standard_layout = false;
};

int run_layout(const LayoutOptions& o) {
  std::string text;
  try {
    text = read_wgsl_file(o.file, "layout: shader");
  } catch (const Error& e) {
    std::fprintf(stderr, "bindery: error [%s]: %s\n", std::string(to_string(e.kind())).c_str(),
                 e.what());
    return 2;  // unreadable: exit 2 (issue 3)
  }
  Reflection r =
      reflect_wgsl(text, ReflectOptions{.uniform_buffer_standard_layout = o.standard_layout});
  if (o.json) {
    fmt::print("{}\n", layout_json(r));
  } else {
    fmt::print("{}", layout_table(r));
    if (!r.ok())
      std::fprintf(stderr, "bindery: %s: %zu error(s)\n", o.file.c_str(), r.errors.size());
  }
  if (r.has_syntax_error()) return 2;
  return r.ok() ? 0 : 1;
}

Registration reg{
    "layout",
    "print the WGSL memory layout (structs, offsets, strides, minBindingSize) of a shader",
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<LayoutOptions>();
      sub.add_option("file", o->file, "WGSL shader source")->required();
      sub.add_flag("--json", o->json, "print JSON: {structs, bindings, errors}");
      sub.add_flag("--standard-layout", o->standard_layout,
                   "apply the uniform_buffer_standard_layout language extension (uniform uses the "
                   "storage layout checks)");
      return [o] { return run_layout(*o); };
    }};

}  // namespace
}  // namespace bindery::cli
