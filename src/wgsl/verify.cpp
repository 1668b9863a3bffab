// SPDX-License-Identifier: MIT
// The layout verifier (layout_verify.hpp): the verdicts and the run of verify_structs() and
// verify_module(). Its parts, each in a file of its own in src/wgsl/: the leaves of a struct
// (verify_leaves), the generated round trip shader (verify_shader), the round trips in batches
// (verify_round_trip), the implementation's layout where it deviates (verify_deviation), and the
// device work (verify_gpu).
//
// verify_structs(), in order: describe_struct (bindery's size, leaves and verdicts; the
// implementation's deviation), the verdicts confirmed in one module per address space where
// bindery predicts them valid (check_verdicts for the others), plan_round_trip per struct, the
// shallow structs chosen, the statement bound checked, run_round_trips.
#include "internal/implementation.hpp"
#include "wgsl/parser.hpp"
#include "wgsl/verify_deviation.hpp"
#include "wgsl/verify_gpu.hpp"
#include "wgsl/verify_leaves.hpp"
#include "wgsl/verify_round_trip.hpp"

#include <bindery/wgsl/layout_verify.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <utility>

namespace bindery {

using namespace wgsl::verify;

CompileVerdict compile_verdict(const Device& device, std::string_view wgsl) {
  Scope scope(device);
  gpu::ShaderModule module = create_module(device, wgsl);
  std::string raw = scope.pop_raw();
  std::string e = raw.empty() ? std::string() : one_line(raw);
  return CompileVerdict{e.empty(), e, std::move(raw)};
}

bool implementation_has_uniform_buffer_standard_layout(const Device& device) {
  return compile_verdict(device, "requires uniform_buffer_standard_layout;\n").valid;
}

namespace {

// The options bindery's verdicts use for this implementation: where it applies the language
// extensions it supports without a `requires` directive (Dawn: WGSL §4.1.3), a supported
// uniform_buffer_standard_layout is in force for every module.
VerifyOptions effective_options(const Device& device, const VerifyOptions& options) {
  VerifyOptions o = options;
  if (!o.reflect.uniform_buffer_standard_layout &&
      implementation::applies_language_extensions_without_requires() &&
      implementation_has_uniform_buffer_standard_layout(device))
    o.reflect.uniform_buffer_standard_layout = true;
  return o;
}

}  // namespace

std::string layout_declarations(std::string_view source) {
  std::vector<ReflectionError> errors;
  wgsl::ModuleAst m = wgsl::parse_module(source, errors);
  if (!errors.empty()) return {};
  std::string out;
  for (const wgsl::DeclSpan& d : m.decls) {
    if (d.kind == wgsl::DeclKind::Other || d.end <= d.first) continue;
    const wgsl::Token& a = m.tokens[d.first];
    const wgsl::Token& b = m.tokens[d.end - 1];
    out += source.substr(a.pos, b.pos + b.text.size() - a.pos);
    out += "\n";
  }
  return out;
}

namespace {

// Why no struct of the module can be checked on this implementation (the source does not parse,
// or its declarations alone do not compile), or empty.
std::string skip_all_reason(const Device& device, const Verifier& v,
                            const Reflection& reflection) {
  if (v.declarations().empty()) return "the source does not parse";
  if (CompileVerdict c = compile_verdict(device, v.declarations()); !c.valid)
    return reflection.f16_enabled && !device.has_shader_f16()
               ? "the source enables f16 and this device has no \"shader-f16\""
               : "its declarations do not compile on this implementation: " + c.message;
  return {};
}

// Whether a bool anywhere makes the struct not host-shareable.
bool host_shareable(const StructLayout& s) {
  bool hs = true;
  auto visit = [&](const auto& self, const WgslType& t) -> void {
    if (!t.host_shareable) hs = false;
    if (t.kind == TypeKind::Array) self(self, *t.element);
    if (t.kind == TypeKind::Struct)
      for (const auto& m : t.struct_layout->members) self(self, *m.type);
  };
  for (const auto& m : s.members) visit(visit, *m.type);
  return hs;
}

// The models of the implementation's layouts (kept alive, and their struct types, for the
// batches).
struct DeviationModels {
  NagaModel naga, spec_rules{false};
  std::vector<std::shared_ptr<const StructLayout>> models;
};

// Fills what bindery says of `s` (size, leaves, validity per address space, a known deviation
// of the implementation) into `r`; returns the layout the implementation is expected to use
// (`s`, or bindery's model of the deviation, kept in `dm`).
const StructLayout& describe_struct(const StructLayout& s, const VerifyOptions& options,
                                    StructVerification& r, DeviationModels& dm) {
  r.name = s.name;
  r.size = s.size;
  r.leaves = static_cast<uint32_t>(leaf_count(s, options.runtime_array_elements));
  r.bindery_uniform_valid =
      address_space_errors(s, BindingSpace::Uniform, options.reflect).empty();
  r.bindery_storage_valid =
      address_space_errors(s, BindingSpace::Storage, options.reflect).empty();
  // Where a known implementation deviation changes the layout, the round trip and the verdicts
  // are checked against the implementation's layout as bindery predicts it (NagaModel).
  std::shared_ptr<const StructLayout> model;
  const std::string diff = naga_deviation(s, dm.spec_rules, dm.naga, model);
  const StructLayout& used = diff.empty() ? s : *model;
  if (!diff.empty()) {
    r.deviation =
        "gfx-rs/wgpu#4377, naga leaves @align out of AlignOf(struct) (WGSL §14.4.1): " + diff;
    dm.models.push_back(model);
  }
  r.expected_uniform_valid =
      diff.empty() ? r.bindery_uniform_valid
                   : address_space_errors(used, BindingSpace::Uniform, options.reflect).empty();
  r.expected_storage_valid =
      diff.empty() ? r.bindery_storage_valid
                   : address_space_errors(used, BindingSpace::Storage, options.reflect).empty();
  r.host_shareable = host_shareable(s);
  return used;
}

// The implementation's verdicts on `s` in uniform and storage (or bindery's expectation when
// options.check_verdicts is off); a space already confirmed valid is not compiled again.
void check_verdicts(Verifier& v, const StructLayout& s, const VerifyOptions& options,
                    StructVerification& r, bool uniform_confirmed, bool storage_confirmed) {
  if (options.check_verdicts) {
    // Confirmed valid by the module that bound every struct predicted valid (verify_structs).
    CompileVerdict u =
        uniform_confirmed ? CompileVerdict{true, {}, {}} : v.verdict_in(s, "uniform");
    CompileVerdict st =
        storage_confirmed ? CompileVerdict{true, {}, {}} : v.verdict_in(s, "storage, read_write");
    r.verdicts_checked = true;
    r.gpu_uniform_valid = u.valid;
    r.gpu_uniform_message = u.message;
    r.gpu_storage_valid = st.valid;
    r.gpu_storage_message = st.message;
  } else {
    r.gpu_uniform_valid = r.expected_uniform_valid;
    r.gpu_storage_valid = r.expected_storage_valid;
  }
}

}  // namespace

std::vector<StructVerification> verify_structs(const Device& device, std::string_view source,
                                               const Reflection& reflection,
                                               std::span<const StructLayout* const> structs,
                                               const VerifyOptions& requested, VerifyWork* work) {
  if (structs.size() > kMaxVerifyStructs)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("layout verification: the module has {} structs, more than the {} "
                            "--verify checks in one run (each struct's verdicts compile all the "
                            "declarations)",
                            structs.size(), kMaxVerifyStructs));
  const VerifyOptions options = effective_options(device, requested);
  std::vector<StructVerification> results(structs.size());
  Verifier v(device, source, options);
  // The declarations alone must compile, or nothing can be checked on this implementation.
  const std::string skip_all = skip_all_reason(device, v, reflection);
  std::vector<Item> todo;
  DeviationModels dm;  // kept alive for the batches
  std::vector<const StructLayout*> used_layouts(structs.size());
  for (size_t i = 0; i < structs.size(); ++i)
    used_layouts[i] = &describe_struct(*structs[i], options, results[i], dm);
  // The structs bindery predicts valid in a space are confirmed by one module binding them all
  // (a module is valid when each of its variables is); only the others, and all of them when that
  // module fails, get a module each.
  std::vector<bool> uniform_ok(structs.size(), false), storage_ok(structs.size(), false);
  if (skip_all.empty() && options.check_verdicts) {
    auto confirm = [&](const char* space, bool StructVerification::*expected,
                       std::vector<bool>& ok) {
      std::vector<const StructLayout*> predicted;
      for (size_t i = 0; i < structs.size(); ++i)
        if (results[i].*expected) predicted.push_back(structs[i]);
      if (!predicted.empty() && v.all_valid_in(predicted, space))
        for (size_t i = 0; i < structs.size(); ++i) ok[i] = results[i].*expected;
    };
    confirm("uniform", &StructVerification::expected_uniform_valid, uniform_ok);
    confirm("storage, read_write", &StructVerification::expected_storage_valid, storage_ok);
  }
  for (size_t i = 0; i < structs.size(); ++i) {
    const StructLayout& s = *structs[i];
    StructVerification& r = results[i];
    if (!skip_all.empty()) {
      r.skipped = skip_all;
      continue;
    }
    check_verdicts(v, s, options, r, uniform_ok[i], storage_ok[i]);
    if (std::optional<Item> it = plan_round_trip(*used_layouts[i], options, device.limits(), r))
      todo.push_back(*it);
  }
  // Every struct with a round trip of its own is checked inside the others by one leaf.
  Shallow shallow;
  for (const Item& it : todo) shallow.insert(it.s->name);
  v.set_shallow(std::move(shallow));
  for (size_t i = 0; i < structs.size(); ++i)
    results[i].leaves = static_cast<uint32_t>(leaf_count(*used_layouts[i], v.leaves()));
  for (Item& it : todo) {
    it.leaves = leaf_count(*it.s, v.leaves());
    const uint64_t n = v.statements(it);
    if (n > kMaxVerifyStatements)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("layout verification: struct '{}' needs {} straight-line shader "
                              "statements for its round trip, more than the {} --verify generates "
                              "for one struct (split it, or group members into nested structs or "
                              "arrays)",
                              escape_for_message(it.s->name), n, kMaxVerifyStatements));
    v.work().statements += n;
  }
  run_round_trips(v, todo, options, device.limits());
  if (work) {
    work->compiles += v.work().compiles;
    work->statements += v.work().statements;
    work->wgsl_bytes += v.work().wgsl_bytes;
  }
  return results;
}

bool ModuleVerification::ok() const noexcept {
  if (!gpu_checked || !verdict_agrees()) return false;
  for (const auto& s : structs)
    if (!s.ok()) return false;
  return true;
}

ModuleVerification verify_module(const Device& device, std::string_view source,
                                 const VerifyOptions& requested) {
  ModuleVerification out;
  if (std::optional<ReflectionError> deep = wgsl_nesting_error(source)) {
    // Deeper than bindery reads: handed to no shader compiler, whose recursion it could exhaust.
    out.gpu_checked = false;
    out.bindery_message = fmt::format("{}:{}: [{}] {}", deep->line, deep->column,
                                      to_string(deep->kind), deep->message);
    out.gpu_message = "not compiled: the module nests deeper than bindery's limit";
    return out;
  }
  const VerifyOptions options = effective_options(device, requested);
  Reflection r = reflect_wgsl(source, options.reflect);
  out.bindery_valid = r.ok();
  if (!r.ok()) {
    const ReflectionError& e = r.errors.front();
    out.bindery_message =
        fmt::format("{}:{}: [{}] {}", e.line, e.column, to_string(e.kind), e.message);
  } else if (r.f16_enabled && !device.has_shader_f16()) {
    // `enable f16;` needs the device feature "shader-f16" (WGSL §4.1.2 enable extensions).
    out.bindery_valid = false;
    out.bindery_message = "the module enables f16 and this device has no \"shader-f16\"";
  }
  if (out.bindery_valid) {
    // Buffers whose struct layout the implementation changes (NagaModel) may fail its uniform
    // checks where the spec's layout passes: bindery predicts that verdict.
    NagaModel naga, spec_rules(false);
    for (const BindingInfo& b : r.bindings) {
      if (!b.store_type || b.store_type->kind != TypeKind::Struct) continue;
      const StructLayout& s = *b.store_type->struct_layout;
      std::shared_ptr<const StructLayout> model;
      const std::string diff = naga_deviation(s, spec_rules, naga, model);
      if (diff.empty()) continue;
      out.deviation = fmt::format("gfx-rs/wgpu#4377 in binding '{}': {}", b.name, diff);
      auto errors = address_space_errors(*model, b.space, options.reflect);
      if (!errors.empty()) {
        out.bindery_valid = false;
        out.bindery_message = fmt::format("{} (under the known deviation {}: {})", b.name,
                                          out.deviation, errors.front().message);
      }
    }
  }
  CompileVerdict c = compile_verdict(device, source);
  out.gpu_valid = c.valid;
  out.gpu_message = c.message;
  out.gpu_diagnostic = c.diagnostic;
  std::vector<const StructLayout*> structs;
  for (const auto& s : r.structs) structs.push_back(s.get());
  out.structs = verify_structs(device, source, r, structs, options, &out.work);
  out.work.compiles += 1;  // the whole module, above
  out.work.wgsl_bytes += source.size();
  return out;
}

std::string describe(const StructVerification& s) {
  auto verdict = [](bool v) { return v ? "valid" : "invalid"; };
  std::string line = fmt::format("struct {} (size {}, {} leaves):", s.name, s.size, s.leaves);
  if (s.verdicts_checked)
    line += fmt::format(" uniform {}/{}, storage {}/{} (bindery/implementation){};",
                        verdict(s.expected_uniform_valid), verdict(s.gpu_uniform_valid),
                        verdict(s.expected_storage_valid), verdict(s.gpu_storage_valid),
                        s.verdicts_agree() ? " agree" : " DISAGREE");
  else
    line += " verdicts not checked;";
  std::vector<std::string> ran;
  if (s.uniform_round_trip) ran.push_back("uniform->gpu");
  if (s.storage_round_trip) {
    ran.push_back("storage->gpu");
    ran.push_back("gpu->storage");
  }
  line += fmt::format(" round trip {}: {} checks, {} mismatches",
                      ran.empty() ? "none" : fmt::format("{}", fmt::join(ran, ", ")), s.checks,
                      s.mismatch_count);
  if (!s.error.empty()) line += "; implementation error: " + s.error;
  if (!s.deviation.empty())
    line += fmt::format(
        "; known implementation deviation, checked against the implementation's layout: {} (by the "
        "WGSL spec: uniform {}, storage {})",
        s.deviation, verdict(s.bindery_uniform_valid), verdict(s.bindery_storage_valid));
  if (!s.skipped.empty()) line += " (" + s.skipped + ")";
  for (const auto& m : s.mismatches)
    line += fmt::format(
        "\n  mismatch {} '{}' at bindery offset {}: expected 0x{:08X}, the GPU {} 0x{:08X}{}",
        m.direction, m.path, m.offset, m.expected, m.direction == "gpu->storage" ? "wrote" : "saw",
        m.seen, m.seen_is.empty() ? "" : " (" + m.seen_is + ")");
  if (s.verdicts_checked && !s.verdicts_agree()) {
    if (s.expected_uniform_valid != s.gpu_uniform_valid)
      line += "\n  uniform verdict differs; implementation: " +
              (s.gpu_uniform_message.empty() ? "accepted" : s.gpu_uniform_message);
    if (s.expected_storage_valid != s.gpu_storage_valid)
      line += "\n  storage verdict differs; implementation: " +
              (s.gpu_storage_message.empty() ? "accepted" : s.gpu_storage_message);
  }
  return line;
}

}  // namespace bindery
