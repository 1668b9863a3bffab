// SPDX-License-Identifier: MIT
// `bindery layout FILE.wgsl [--json]`: the WGSL memory layout of a shader — per struct its size
// and alignment, per member offset, size, alignment, stride and padding; per binding the
// minBindingSize (spec) and the portable one (roundUp(16, size) for uniform, as Dawn requires);
// uniform-rule violations as errors with line:column (issue 3).
// Exit codes: 0 no errors, 1 layout/type errors, 2 the file cannot be read or parsed.
//
// `--verify` (issue 11) checks the reflection against the WebGPU implementation on the current
// adapter: the module's compile verdict, then per struct its uniform / storage verdicts and a GPU
// round trip of every scalar leaf (layout_verify.hpp). One line per struct. Exit codes: 0 when
// every verdict agrees and no leaf differs (also for a module both reject), 1 on a mismatch or a
// disagreement, 2 when the file cannot be read or no device can be created.
#include "command.hpp"

#include <bindery/core/io.hpp>

#include <bindery/core/device.hpp>
#include <bindery/wgsl/layout_verify.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

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
  bool verify = false;
};

int run_verify(const LayoutOptions& o, const std::string& text) {
  VerifyOptions vo;
  vo.reflect.uniform_buffer_standard_layout = o.standard_layout;
  DeviceOptions dopt;
  dopt.want_timestamp_query = false;
  dopt.want_shader_f16 = true;
  Device device = Device::create(dopt);
  ModuleVerification v = verify_module(device, text, vo);
  fmt::print("verify {} on {} ({}){}\n", o.file, device.adapter().name, device.adapter().backend,
             device.has_shader_f16() ? ", shader-f16" : ", no shader-f16");
  fmt::print("module: bindery {}, implementation {}: {}\n", v.bindery_valid ? "valid" : "invalid",
             v.gpu_valid ? "valid" : "invalid", v.verdict_agrees() ? "agree" : "DISAGREE");
  if (!v.bindery_valid) fmt::print("  bindery: {}\n", v.bindery_message);
  if (!v.gpu_valid) fmt::print("  implementation: {}\n", v.gpu_message);
  uint64_t checks = 0, mismatches = 0;
  size_t failed = 0;
  for (const auto& s : v.structs) {
    fmt::print("{}\n", describe(s));
    checks += s.checks;
    mismatches += s.mismatch_count;
    failed += s.ok() ? 0 : 1;
  }
  fmt::print("{} structs, {} leaf checks, {} mismatches, {} structs failing: {}\n",
             v.structs.size(), checks, mismatches, failed, v.ok() ? "verified" : "FAILED");
  return v.ok() ? 0 : 1;
}

int run_layout(const LayoutOptions& o) {
  std::string text;
  try {
    text = read_wgsl_file(o.file, "layout: shader");
  } catch (const Error& e) {
    std::fprintf(stderr, "bindery: error [%s]: %s\n", std::string(to_string(e.kind())).c_str(),
                 e.what());
    return 2;  // unreadable: exit 2 (issue 3)
  }
  if (o.verify) {
    try {
      return run_verify(o, text);
    } catch (const Error& e) {
      std::fprintf(stderr, "bindery: error [%s]: %s\n", std::string(to_string(e.kind())).c_str(),
                   e.what());
      return 2;
    }
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
      sub.add_flag("--verify", o->verify,
                   "check the layout against the WebGPU implementation on this adapter: compile "
                   "verdicts and a GPU round trip of every struct member (exit 1 on any "
                   "difference)");
      return [o] { return run_layout(*o); };
    }};

}  // namespace
}  // namespace bindery::cli
