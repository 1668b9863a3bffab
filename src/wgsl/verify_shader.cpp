// SPDX-License-Identifier: MIT
// The round trip's compute shader, generated (verify_shader.hpp): one type walk for the reads and
// the writes, the leaf statements apart.
#include "wgsl/verify_shader.hpp"

#include <fmt/format.h>

namespace bindery::wgsl::verify {
namespace {

std::string to_u32(ScalarKind s, const std::string& e) {
  switch (s) {
    case ScalarKind::F32:
    case ScalarKind::I32:
      return "bitcast<u32>(" + e + ")";
    case ScalarKind::F16:
      return "pack2x16float(vec2<f32>(f32(" + e + "), 0.0))";
    default:
      return e;
  }
}

std::string from_index(ScalarKind s, const std::string& idx) {
  switch (s) {
    case ScalarKind::F32:
      return "bitcast<f32>(0x41000000u + (" + idx + " & 0x7FFFFFu))";
    case ScalarKind::F16:
      return "f16(unpack2x16float(0x4000u + (" + idx + " % 8192u)).x)";
    case ScalarKind::I32:
      return "bitcast<i32>(0x20000000u + (" + idx + " & 0x0FFFFFFFu))";
    default:
      return "(0x20000000u + (" + idx + " & 0x0FFFFFFFu))";
  }
}

/// Arrays with at most this many leaves are written out element by element; larger ones loop.
constexpr uint64_t kUnrollLeaves = 256;

}  // namespace

std::string Index::str() const {
  return dyn.empty() ? fmt::format("{}u", k) : fmt::format("({} + {}u)", dyn, k);
}

void ShaderWriter::copy(Copy dir, const WgslType& t, const std::string& expr, const Index& at,
                        int depth, const std::string& ind) {
  switch (t.kind) {
    case TypeKind::Scalar:
    case TypeKind::Atomic:
    case TypeKind::Vector:
    case TypeKind::Matrix:
      if (dir == Copy::Read)
        read_leaf(t, expr, at, ind);
      else
        write_leaf(t, expr, at, ind);
      return;
    case TypeKind::Array: {
      const uint32_t n = t.count ? t.count : rt.rt;
      const uint64_t per = leaf_count(*t.element, rt, &sl);
      if (n * per <= kUnrollLeaves) {
        // Straight-line code: lavapipe compiles loops far more slowly than a few statements.
        for (uint32_t i = 0; i < n; ++i)
          copy(dir, *t.element, fmt::format("{}[{}]", expr, i), at.plus(i * per), depth, ind);
        return;
      }
      const std::string v = loop_var(depth);
      out +=
          fmt::format("{}for (var {}: u32 = 0u; {} < {}u; {} = {} + 1u) {{\n", ind, v, v, n, v, v);
      Index inner{fmt::format("{} + {} * {}u", at.str(), v, per), 0};
      copy(dir, *t.element, fmt::format("{}[{}]", expr, v), inner, depth + 1, ind + "  ");
      out += ind + "}\n";
      return;
    }
    case TypeKind::Struct: {
      if (rt.is_shallow(t)) {
        const auto [leaf, type] = shallow_leaf(t, expr);
        copy(dir, *type, leaf, at, depth, ind);
        return;
      }
      uint64_t k = 0;
      for (const auto& m : t.struct_layout->members) {
        copy(dir, *m.type, expr + "." + m.name, at.plus(k), depth, ind);
        k += leaf_count(*m.type, rt, &sl);
      }
      return;
    }
  }
}

void ShaderWriter::copy_struct(Copy dir, const StructLayout& s, const std::string& var,
                               uint64_t at) {
  uint64_t k = 0;
  for (const auto& m : s.members) {
    copy(dir, *m.type, var + "." + m.name, Index{"", at + k}, 0, "  ");
    k += leaf_count(*m.type, rt, &sl);
  }
}

void ShaderWriter::read_leaf(const WgslType& t, const std::string& expr, const Index& at,
                             const std::string& ind) {
  switch (t.kind) {
    case TypeKind::Scalar:
      out += fmt::format("{}{}[{}] = {};\n", ind, words, at.str(), to_u32(t.scalar, expr));
      return;
    case TypeKind::Atomic:
      out += fmt::format("{}{}[{}] = {};\n", ind, words, at.str(),
                         to_u32(t.scalar, "atomicLoad(&" + expr + ")"));
      return;
    case TypeKind::Vector:
      for (uint32_t r = 0; r < t.rows; ++r)
        out += fmt::format("{}{}[{}] = {};\n", ind, words, at.plus(r).str(),
                           to_u32(t.scalar, fmt::format("{}[{}]", expr, r)));
      return;
    case TypeKind::Matrix:
      // One column at a time through a let: naga 29's SPIR-V back end loses the device on
      // u.s.m[c][r] (matCx2 in a struct nested in a uniform struct) and aborts on a whole-matrix
      // load of it; a column load works (docs/LAYOUT.md, known implementation bugs).
      for (uint32_t c = 0; c < t.columns; ++c) {
        out += fmt::format("{}{{\n{}  let {}col = {}[{}];\n", ind, ind, prefix, expr, c);
        for (uint32_t r = 0; r < t.rows; ++r)
          out += fmt::format("{}  {}[{}] = {};\n", ind, words, at.plus(c * t.rows + r).str(),
                             to_u32(t.scalar, fmt::format("{}col[{}]", prefix, r)));
        out += ind + "}\n";
      }
      return;
    default:
      return;
  }
}

void ShaderWriter::write_leaf(const WgslType& t, const std::string& expr, const Index& at,
                              const std::string& ind) {
  switch (t.kind) {
    case TypeKind::Scalar:
      out += fmt::format("{}{} = {};\n", ind, expr, from_index(t.scalar, at.str()));
      return;
    case TypeKind::Atomic:
      out += fmt::format("{}atomicStore(&{}, {});\n", ind, expr, from_index(t.scalar, at.str()));
      return;
    case TypeKind::Vector:
      for (uint32_t r = 0; r < t.rows; ++r)
        out +=
            fmt::format("{}{}[{}] = {};\n", ind, expr, r, from_index(t.scalar, at.plus(r).str()));
      return;
    case TypeKind::Matrix:
      for (uint32_t c = 0; c < t.columns; ++c)
        for (uint32_t r = 0; r < t.rows; ++r)
          out += fmt::format("{}{}[{}][{}] = {};\n", ind, expr, c, r,
                             from_index(t.scalar, at.plus(c * t.rows + r).str()));
      return;
    default:
      return;
  }
}

// The expression and type of the shallowest leaf of `expr`, a value of shallow struct type t.
std::pair<std::string, const WgslType*> ShaderWriter::shallow_leaf(const WgslType& t,
                                                                   std::string expr) {
  const WgslType* type = &t;
  for (const Step& step : sl.of(*t.struct_layout)) {
    expr += step.member ? "." + *step.member : std::string("[0]");
    type = step.type;
  }
  return {expr, type};
}

std::string ShaderWriter::loop_var(int depth) const {
  return fmt::format("{}i{}", prefix, depth);
}

std::string fresh_prefix(std::string_view source) {
  std::string p = "bindery_rt_";
  for (int i = 2; source.find(p) != std::string_view::npos; ++i)
    p = fmt::format("bindery_rt{}_", i);
  return p;
}

}  // namespace bindery::wgsl::verify
