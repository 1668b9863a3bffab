// SPDX-License-Identifier: MIT
// `bindery layout FILE.wgsl [--json]`: the WGSL memory layout of a shader — per struct its size
// and alignment, per member offset, size, alignment, stride and padding; per binding the
// minBindingSize (spec) and the portable one (roundUp(16, size) for uniform, as Dawn requires);
// uniform-rule violations as errors with line:column (issue 3).
// Exit codes: 0 no errors, 1 layout/type errors, 2 the file cannot be read or parsed.
//
// `--verify` (issue 11) checks the reflection against the WebGPU implementation on the current
// adapter: the module's compile verdict, then per struct its uniform / storage verdicts and a GPU
// round trip of every scalar leaf (a nested struct with its own round trip by one leaf;
// layout_verify.hpp). One line per struct. Exit codes, the same
// contract as without --verify: 0 only when the module has no error and every verdict agrees and
// no leaf differs; 1 on a layout/type error, a mismatch or a disagreement; 2 when the file cannot
// be read or parsed or no device can be created. The last line says which. A module nested
// deeper than kMaxWgslNestingDepth is refused (exit 2) before anything reaches the implementation.
#include "command.hpp"

#include <bindery/core/io.hpp>

#include <bindery/core/device.hpp>
#include <bindery/wgsl/layout_verify.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
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
  bool verify = false;
};

/// The reflection's errors as compiler diagnostics, `FILE:LINE:COLUMN: error [Kind]: message`.
std::string diagnostics(const std::string& file, const Reflection& r) {
  std::string out;
  for (const ReflectionError& e : r.errors)
    out += fmt::format("{}:{}:{}: error [{}]: {}\n", escape_for_message(file), e.line, e.column,
                       to_string(e.kind), escape_for_message(e.message));
  return out;
}

/// `text` with every line escaped as errors are (escape_controls: control bytes, malformed
/// UTF-8, bidirectional and other invisible format characters), its line breaks kept.
std::string escape_lines(std::string_view text) {
  std::string result;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    result += escape_controls(text.substr(start, end - start));
    if (end < text.size()) result += '\n';
    start = end + 1;
  }
  return result;
}

/// The implementation's diagnostic: its first line after `label`, the rest indented below.
void print_diagnostic(std::string_view label, const std::string& text) {
  size_t start = 0;
  bool first = true;
  std::vector<std::string_view> seen;  // the implementation's error chain repeats its causes
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line = std::string_view(text).substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    std::string_view bare = line;
    while (!bare.empty() && (bare.front() == ' ' || bare.front() == '=')) bare.remove_prefix(1);
    if (bare.size() > 8 && std::find(seen.begin(), seen.end(), bare) != seen.end()) continue;
    seen.push_back(bare);
    if (first)
      out("  {}: {}\n", label, escape_controls(line));
    else
      out("      {}\n", escape_controls(line));
    first = false;
  }
}

int run_verify(const LayoutOptions& o, const std::string& text, const Reflection& r) {
  VerifyOptions vo;
  vo.reflect.uniform_buffer_standard_layout = o.standard_layout;
  DeviceOptions dopt;
  dopt.want_timestamp_query = false;
  dopt.want_shader_f16 = true;
  Device device = Device::create(dopt);
  ModuleVerification v = verify_module(device, text, vo);
  out("verify {} on {} ({}){}\n", escape_for_message(o.file), device.adapter().name,
      device.adapter().backend, device.has_shader_f16() ? ", shader-f16" : ", no shader-f16");
  out("module: bindery {}, implementation {}: {}\n", v.bindery_valid ? "valid" : "invalid",
      v.gpu_valid ? "valid" : "invalid", v.verdict_agrees() ? "agree" : "DISAGREE");
  if (!v.bindery_valid) out("  bindery: {}\n", escape_for_message(v.bindery_message));
  if (!v.gpu_valid)
    print_diagnostic("implementation",
                     v.gpu_diagnostic.empty() ? v.gpu_message : v.gpu_diagnostic);
  uint64_t checks = 0, mismatches = 0;
  size_t failed = 0;
  for (const auto& s : v.structs) {
    out("{}\n", describe(s));
    checks += s.checks;
    mismatches += s.mismatch_count;
    failed += s.ok() ? 0 : 1;
  }
  out("{}", diagnostics(o.file, r));
  // The same contract as without --verify (issue 18): 0 only when the module has no error and
  // bindery and the implementation agree on everything; 2 when it cannot be parsed.
  std::vector<std::string> why;
  if (!r.ok()) why.push_back(fmt::format("the module has {} error(s)", r.errors.size()));
  if (!v.ok()) why.push_back("bindery and the implementation disagree");
  out("{} structs, {} leaf checks, {} mismatches, {} structs failing: {}\n", v.structs.size(),
      checks, mismatches, failed,
      why.empty() ? std::string("verified") : fmt::format("FAILED ({})", fmt::join(why, "; ")));
  if (r.has_syntax_error()) return 2;
  return why.empty() ? 0 : 1;
}

int run_layout(const LayoutOptions& o) {
  std::string text;
  try {
    text = read_wgsl_file(o.file, "layout: shader");
  } catch (const Error& e) {
    print_error(to_string(e.kind()), e.what());
    return 2;  // unreadable: exit 2 (issue 3)
  }
  Reflection r =
      reflect_wgsl(text, ReflectOptions{.uniform_buffer_standard_layout = o.standard_layout});
  if (o.verify && wgsl_nesting_error(text)) {
    // Deeper than bindery reads: handed to no shader compiler (kMaxWgslNestingDepth).
    out("{}", diagnostics(o.file, r));
    print_error("WgslSyntax", fmt::format("{}: not verified: the module nests deeper than {} "
                                          "levels and is not handed to the implementation",
                                          escape_for_message(o.file), kMaxWgslNestingDepth));
    return 2;
  }
  if (o.verify) {
    try {
      return run_verify(o, text, r);
    } catch (const Error& e) {
      print_error(to_string(e.kind()), e.what());
      return 2;
    }
  }
  if (o.json) {
    out("{}\n", layout_json(r));
  } else {
    Reflection tables = r;
    tables.errors.clear();
    out("{}{}", escape_lines(layout_table(tables)), diagnostics(o.file, r));
    if (!r.ok())
      std::fprintf(stderr, "bindery: %s: %zu error(s)\n", escape_for_message(o.file).c_str(),
                   r.errors.size());
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
      sub.add_flag("--verify", o->verify,
                   "check the layout against the WebGPU implementation on this adapter: compile "
                   "verdicts and a GPU round trip of every struct member (exit 1 on any "
                   "difference)");
      return [o] { return run_layout(*o); };
    }};

}  // namespace
}  // namespace bindery::cli
