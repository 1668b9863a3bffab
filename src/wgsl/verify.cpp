// SPDX-License-Identifier: MIT
// The layout verifier (layout_verify.hpp): compile verdicts through error scopes and GPU round
// trips of every scalar leaf of reflected structs, many structs per generated compute module.
#include "internal/implementation.hpp"
#include "wgsl/parser.hpp"

#include <bindery/wgsl/layout_verify.hpp>
#include <bindery/wgsl/struct_view.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <optional>
#include <utility>

namespace bindery {
namespace {

uint64_t round_up(uint64_t align, uint64_t n) {
  return (n + align - 1) / align * align;
}

/// The implementation's multi-line message reduced to its error lines, on one line.
std::string one_line(std::string_view message) {
  std::string kept, all;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    std::string_view line =
        message.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? message.size() + 1 : end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    all += (all.empty() ? "" : " ") + std::string(line);
    bool keep = line.starts_with("= ") || line.starts_with("Shader") ||
                line.find("error") != std::string_view::npos;
    if (line.starts_with("= ")) line.remove_prefix(2);
    if (keep && line != "Validation Error") kept += (kept.empty() ? "" : "; ") + std::string(line);
  }
  std::string out = kept.empty() ? all : kept;
  if (out.size() > 600) out = out.substr(0, 600) + "...";
  return out;
}

// ---- leaves -----------------------------------------------------------------------------------

uint32_t components(const FieldRef& f) {
  return f.kind == TypeKind::Matrix   ? uint32_t(f.columns) * f.rows
         : f.kind == TypeKind::Vector ? f.rows
                                      : 1u;
}

/// Names of the structs that have a round trip of their own in this run: where one of them is
/// nested in another struct, the other's round trip checks it by one leaf only (see Leaves).
using Shallow = std::set<std::string, std::less<>>;

/// How leaves are counted and visited: runtime-sized arrays with `rt` elements; a nested struct
/// named in `shallow` by its shallowest leaf alone (WGSL §14.4: a struct type's layout is the
/// same wherever it is used, so its own round trip checks its inside and one leaf checks where
/// it sits). That keeps the work linear in the source's members: without it a chain of N structs
/// each nesting the previous one has N²/2 leaves (issue 25, H4-02).
struct Leaves {
  uint32_t rt = 3;
  const Shallow* shallow = nullptr;
  Leaves(uint32_t runtime_elements, const Shallow* s = nullptr)
      : rt(runtime_elements), shallow(s) {}
  bool is_shallow(const WgslType& t) const {
    return shallow && t.kind == TypeKind::Struct && shallow->count(t.struct_layout->name) > 0;
  }
};

/// One step from a value to a part of it: a member (by name) or element 0 of an array.
struct Step {
  const std::string* member = nullptr;  ///< nullptr: element 0
  const WgslType* type = nullptr;       ///< the part's type
};

/// The path to the shallowest scalar, vector, matrix or atomic inside struct `s` (fewest steps;
/// the first such in member order), memoised per struct so that shared nested structs are
/// walked once.
class ShallowestLeaf {
 public:
  const std::vector<Step>& of(const StructLayout& s) {
    if (auto it = memo_.find(&s); it != memo_.end()) return it->second;
    std::vector<Step> best;
    bool found = false;
    for (const auto& m : s.members) {
      std::vector<Step> path{{&m.name, m.type.get()}};
      extend(*m.type, path);
      if (!found || path.size() < best.size()) best = std::move(path), found = true;
      if (best.size() == 1) break;
    }
    return memo_[&s] = std::move(best);
  }

 private:
  void extend(const WgslType& t, std::vector<Step>& path) {
    const WgslType* cur = &t;
    while (cur->kind == TypeKind::Array || cur->kind == TypeKind::Struct) {
      if (cur->kind == TypeKind::Array) {
        path.push_back({nullptr, cur->element.get()});
        cur = cur->element.get();
        continue;
      }
      const std::vector<Step>& inner = of(*cur->struct_layout);
      path.insert(path.end(), inner.begin(), inner.end());
      return;
    }
  }
  std::map<const StructLayout*, std::vector<Step>> memo_;
};

/// Scalar leaves of one value of `t` under `rules`.
uint64_t leaf_count(const WgslType& t, const Leaves& rules, ShallowestLeaf* sl = nullptr);

/// The leaf count of the shallowest leaf of a struct type.
uint64_t shallow_leaf_count(const WgslType& t, ShallowestLeaf& sl) {
  const WgslType& leaf = *sl.of(*t.struct_layout).back().type;
  return leaf_count(leaf, Leaves(0));
}

uint64_t leaf_count(const WgslType& t, const Leaves& rules, ShallowestLeaf* sl) {
  switch (t.kind) {
    case TypeKind::Scalar:
    case TypeKind::Atomic:
      return 1;
    case TypeKind::Vector:
      return t.rows;
    case TypeKind::Matrix:
      return uint64_t(t.columns) * t.rows;
    case TypeKind::Array:
      return uint64_t(t.count ? t.count : rules.rt) * leaf_count(*t.element, rules, sl);
    case TypeKind::Struct: {
      if (rules.is_shallow(t)) {
        ShallowestLeaf local;
        return shallow_leaf_count(t, sl ? *sl : local);
      }
      uint64_t n = 0;
      for (const auto& m : t.struct_layout->members) n += leaf_count(*m.type, rules, sl);
      return n;
    }
  }
  return 0;
}

uint64_t leaf_count(const StructLayout& s, const Leaves& rules, ShallowestLeaf* sl = nullptr) {
  uint64_t n = 0;
  for (const auto& m : s.members) n += leaf_count(*m.type, rules, sl);
  return n;
}

/// Calls fn(FieldRef) for every scalar, vector, matrix and atomic field in leaf order (a shallow
/// nested struct: its shallowest leaf only).
template <class Fn>
void for_each_field(const WgslType& t, const FieldRef& f, const Leaves& rules, ShallowestLeaf& sl,
                    Fn& fn) {
  switch (t.kind) {
    case TypeKind::Scalar:
    case TypeKind::Atomic:
    case TypeKind::Vector:
    case TypeKind::Matrix:
      fn(f);
      return;
    case TypeKind::Array: {
      const uint32_t n = t.count ? t.count : rules.rt;
      for (uint32_t i = 0; i < n; ++i) for_each_field(*t.element, f.element(i), rules, sl, fn);
      return;
    }
    case TypeKind::Struct:
      if (rules.is_shallow(t)) {
        FieldRef leaf = f;
        for (const Step& step : sl.of(*t.struct_layout))
          leaf = step.member ? leaf.member(*step.member) : leaf.element(0);
        fn(leaf);
        return;
      }
      for (const auto& m : t.struct_layout->members)
        for_each_field(*m.type, f.member(m.name), rules, sl, fn);
      return;
  }
}

template <class Fn>
void for_each_field(const StructLayout& s, const Leaves& rules, Fn&& fn) {
  ShallowestLeaf sl;
  for (const auto& m : s.members) for_each_field(*m.type, s.field(m.name), rules, sl, fn);
}

bool has_matcx2(const WgslType& t) {
  if (t.kind == TypeKind::Matrix) return t.rows == 2;
  if (t.kind == TypeKind::Array) return has_matcx2(*t.element);
  if (t.kind == TypeKind::Struct)
    for (const auto& m : t.struct_layout->members)
      if (has_matcx2(*m.type)) return true;
  return false;
}

/// True when a matCx2 sits in a struct that is a plain (not array element) member somewhere in
/// `s`: naga 29's SPIR-V back end reads such columns wrongly from a uniform buffer, or loses the
/// device (docs/LAYOUT.md, known implementation bugs).
bool uniform_matcx2_hazard(const StructLayout& s) {
  for (const auto& m : s.members) {
    const WgslType* t = m.type.get();
    while (t->kind == TypeKind::Array) t = t->element.get();
    if (t->kind != TypeKind::Struct) continue;
    if (m.type->kind == TypeKind::Struct && has_matcx2(*t)) return true;
    if (uniform_matcx2_hazard(*t->struct_layout)) return true;
  }
  return false;
}

const StructMember* runtime_array_member(const StructLayout& s) {
  if (!s.members.empty() && s.members.back().type->is_runtime_array()) return &s.members.back();
  return nullptr;
}

/// The bit pattern of leaf `k`: written by the host (gpu = false) or by the shader (gpu = true).
uint32_t pattern(ScalarKind s, bool gpu, uint64_t k) {
  switch (s) {
    case ScalarKind::F32:
      return (gpu ? 0x41000000u : 0x40000000u) + uint32_t(k & 0x7FFFFFu);
    case ScalarKind::F16:
      return (gpu ? 0x4000u : 0x2000u) + uint32_t(k % 8192u);
    default:
      return (gpu ? 0x20000000u : 0x10000000u) + uint32_t(k & 0x0FFFFFFFu);
  }
}

/// Leaf index whose pattern `bits` is, if it is one of scalar `s`'s patterns (modulo the range).
std::optional<std::pair<uint64_t, bool>> decode(ScalarKind s, uint32_t bits) {
  for (bool gpu : {false, true}) {
    uint32_t base = pattern(s, gpu, 0);
    uint32_t span = s == ScalarKind::F32 ? 0x800000u : s == ScalarKind::F16 ? 8192u : 0x10000000u;
    if (bits >= base && bits - base < span) return std::pair<uint64_t, bool>{bits - base, gpu};
  }
  return std::nullopt;
}

// StructView writes and reads of one field with per-component bit patterns.
template <int N, class T>
void set_vec(StructView& v, const FieldRef& f, const uint32_t* bits) {
  glm::vec<N, T> x;
  for (int i = 0; i < N; ++i) {
    if constexpr (std::is_same_v<T, float>)
      x[i] = std::bit_cast<float>(bits[i]);
    else
      x[i] = static_cast<T>(bits[i]);
  }
  v.set(f, x);
}
template <int N, class T>
void get_vec(const StructView& v, const FieldRef& f, uint32_t* bits) {
  auto x = v.get<glm::vec<N, T>>(f);
  for (int i = 0; i < N; ++i) {
    if constexpr (std::is_same_v<T, float>)
      bits[i] = std::bit_cast<uint32_t>(x[i]);
    else if constexpr (std::is_same_v<T, uint16_t>)
      bits[i] = x[i];
    else
      bits[i] = static_cast<uint32_t>(x[i]);
  }
}
template <int C, int R>
void set_mat(StructView& v, const FieldRef& f, const uint32_t* bits) {
  glm::mat<C, R, float> m;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) {
      uint32_t b = bits[c * R + r];
      m[c][r] = f.scalar == ScalarKind::F16 ? f16_to_float(static_cast<uint16_t>(b))
                                            : std::bit_cast<float>(b);
    }
  v.set(f, m);
}
template <int C, int R>
void get_mat(const StructView& v, const FieldRef& f, uint32_t* bits) {
  auto m = v.get<glm::mat<C, R, float>>(f);
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r)
      bits[c * R + r] =
          f.scalar == ScalarKind::F16 ? float_to_f16(m[c][r]) : std::bit_cast<uint32_t>(m[c][r]);
}

template <class Vec, class Mat>
void dispatch_shape(const FieldRef& f, Vec&& vec, Mat&& mat) {
  if (f.kind == TypeKind::Matrix) {
    switch (f.columns * 10 + f.rows) {
      case 22:
        mat(std::integral_constant<int, 2>{}, std::integral_constant<int, 2>{});
        return;
      case 23:
        mat(std::integral_constant<int, 2>{}, std::integral_constant<int, 3>{});
        return;
      case 24:
        mat(std::integral_constant<int, 2>{}, std::integral_constant<int, 4>{});
        return;
      case 32:
        mat(std::integral_constant<int, 3>{}, std::integral_constant<int, 2>{});
        return;
      case 33:
        mat(std::integral_constant<int, 3>{}, std::integral_constant<int, 3>{});
        return;
      case 34:
        mat(std::integral_constant<int, 3>{}, std::integral_constant<int, 4>{});
        return;
      case 42:
        mat(std::integral_constant<int, 4>{}, std::integral_constant<int, 2>{});
        return;
      case 43:
        mat(std::integral_constant<int, 4>{}, std::integral_constant<int, 3>{});
        return;
      case 44:
        mat(std::integral_constant<int, 4>{}, std::integral_constant<int, 4>{});
        return;
    }
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("'{}': no matrix shape {}x{}", f.path, f.columns, f.rows));
  }
  switch (f.kind == TypeKind::Vector ? f.rows : 1) {
    case 1:
      vec(std::integral_constant<int, 1>{});
      return;
    case 2:
      vec(std::integral_constant<int, 2>{});
      return;
    case 3:
      vec(std::integral_constant<int, 3>{});
      return;
    case 4:
      vec(std::integral_constant<int, 4>{});
      return;
  }
}

void write_field(StructView& v, const FieldRef& f, const uint32_t* bits) {
  dispatch_shape(
      f,
      [&](auto n) {
        constexpr int N = decltype(n)::value;
        if constexpr (N == 1) {
          switch (f.scalar) {
            case ScalarKind::F32:
              v.set(f, std::bit_cast<float>(bits[0]));
              return;
            case ScalarKind::F16:
              v.set(f, static_cast<uint16_t>(bits[0]));
              return;
            case ScalarKind::I32:
              v.set(f, static_cast<int32_t>(bits[0]));
              return;
            default:
              v.set(f, bits[0]);
              return;
          }
        } else {
          switch (f.scalar) {
            case ScalarKind::F32:
              set_vec<N, float>(v, f, bits);
              return;
            case ScalarKind::F16:
              set_vec<N, uint16_t>(v, f, bits);
              return;
            case ScalarKind::I32:
              set_vec<N, int32_t>(v, f, bits);
              return;
            default:
              set_vec<N, uint32_t>(v, f, bits);
              return;
          }
        }
      },
      [&](auto c, auto r) { set_mat<decltype(c)::value, decltype(r)::value>(v, f, bits); });
}

void read_field(const StructView& v, const FieldRef& f, uint32_t* bits) {
  dispatch_shape(
      f,
      [&](auto n) {
        constexpr int N = decltype(n)::value;
        if constexpr (N == 1) {
          switch (f.scalar) {
            case ScalarKind::F32:
              bits[0] = std::bit_cast<uint32_t>(v.get<float>(f));
              return;
            case ScalarKind::F16:
              bits[0] = v.get<uint16_t>(f);
              return;
            case ScalarKind::I32:
              bits[0] = static_cast<uint32_t>(v.get<int32_t>(f));
              return;
            default:
              bits[0] = v.get<uint32_t>(f);
              return;
          }
        } else {
          switch (f.scalar) {
            case ScalarKind::F32:
              get_vec<N, float>(v, f, bits);
              return;
            case ScalarKind::F16:
              get_vec<N, uint16_t>(v, f, bits);
              return;
            case ScalarKind::I32:
              get_vec<N, int32_t>(v, f, bits);
              return;
            default:
              get_vec<N, uint32_t>(v, f, bits);
              return;
          }
        }
      },
      [&](auto c, auto r) { get_mat<decltype(c)::value, decltype(r)::value>(v, f, bits); });
}

/// Path and bindery offset of component `i` of field `f` (column-major for matrices).
std::pair<std::string, uint32_t> component(const FieldRef& f, uint32_t i) {
  const uint32_t size = f.scalar == ScalarKind::F16 ? 2 : 4;
  if (f.kind == TypeKind::Matrix) {
    uint32_t c = i / f.rows, r = i % f.rows;
    return {fmt::format("{}[{}][{}]", f.path, c, r), f.offset + c * f.column_stride + r * size};
  }
  if (f.kind == TypeKind::Vector) return {fmt::format("{}[{}]", f.path, i), f.offset + i * size};
  return {f.path, f.offset};
}

// ---- shader generation ------------------------------------------------------------------------

/// A word index in the shader: a run-time part (loop variables) plus a constant.
struct Index {
  std::string dyn;
  uint64_t k = 0;
  std::string str() const {
    return dyn.empty() ? fmt::format("{}u", k) : fmt::format("({} + {}u)", dyn, k);
  }
  Index plus(uint64_t n) const { return {dyn, k + n}; }
};

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

struct ShaderWriter {
  std::string words;  ///< name of the array<u32> output
  std::string prefix;
  Leaves rt{3};
  std::string out;
  ShallowestLeaf sl{};

  /// The expression and type of the shallowest leaf of `expr`, a value of shallow struct type t.
  std::pair<std::string, const WgslType*> shallow_leaf(const WgslType& t, std::string expr) {
    const WgslType* type = &t;
    for (const Step& step : sl.of(*t.struct_layout)) {
      expr += step.member ? "." + *step.member : std::string("[0]");
      type = step.type;
    }
    return {expr, type};
  }

  std::string loop_var(int depth) const { return fmt::format("{}i{}", prefix, depth); }

  /// Copies every leaf of `expr` (type t) into words[at + leaf].
  void read(const WgslType& t, const std::string& expr, const Index& at, int depth,
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
      case TypeKind::Array: {
        const uint32_t n = t.count ? t.count : rt.rt;
        const uint64_t per = leaf_count(*t.element, rt, &sl);
        if (n * per <= kUnrollLeaves) {
          // Straight-line code: lavapipe compiles loops far more slowly than a few statements.
          for (uint32_t i = 0; i < n; ++i)
            read(*t.element, fmt::format("{}[{}]", expr, i), at.plus(i * per), depth, ind);
          return;
        }
        const std::string v = loop_var(depth);
        out += fmt::format("{}for (var {}: u32 = 0u; {} < {}u; {} = {} + 1u) {{\n", ind, v, v, n, v,
                           v);
        Index inner{fmt::format("{} + {} * {}u", at.str(), v, per), 0};
        read(*t.element, fmt::format("{}[{}]", expr, v), inner, depth + 1, ind + "  ");
        out += ind + "}\n";
        return;
      }
      case TypeKind::Struct: {
        if (rt.is_shallow(t)) {
          const auto [leaf, type] = shallow_leaf(t, expr);
          read(*type, leaf, at, depth, ind);
          return;
        }
        uint64_t k = 0;
        for (const auto& m : t.struct_layout->members) {
          read(*m.type, expr + "." + m.name, at.plus(k), depth, ind);
          k += leaf_count(*m.type, rt, &sl);
        }
        return;
      }
    }
  }

  /// Writes the shader's pattern of leaf `at` into every leaf of `expr`.
  void write(const WgslType& t, const std::string& expr, const Index& at, int depth,
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
      case TypeKind::Array: {
        const uint32_t n = t.count ? t.count : rt.rt;
        const uint64_t per = leaf_count(*t.element, rt, &sl);
        if (n * per <= kUnrollLeaves) {
          for (uint32_t i = 0; i < n; ++i)
            write(*t.element, fmt::format("{}[{}]", expr, i), at.plus(i * per), depth, ind);
          return;
        }
        const std::string v = loop_var(depth);
        out += fmt::format("{}for (var {}: u32 = 0u; {} < {}u; {} = {} + 1u) {{\n", ind, v, v, n, v,
                           v);
        Index inner{fmt::format("{} + {} * {}u", at.str(), v, per), 0};
        write(*t.element, fmt::format("{}[{}]", expr, v), inner, depth + 1, ind + "  ");
        out += ind + "}\n";
        return;
      }
      case TypeKind::Struct: {
        if (rt.is_shallow(t)) {
          const auto [leaf, type] = shallow_leaf(t, expr);
          write(*type, leaf, at, depth, ind);
          return;
        }
        uint64_t k = 0;
        for (const auto& m : t.struct_layout->members) {
          write(*m.type, expr + "." + m.name, at.plus(k), depth, ind);
          k += leaf_count(*m.type, rt, &sl);
        }
        return;
      }
    }
  }

  void read_struct(const StructLayout& s, const std::string& var, uint64_t at) {
    uint64_t k = 0;
    for (const auto& m : s.members) {
      read(*m.type, var + "." + m.name, Index{"", at + k}, 0, "  ");
      k += leaf_count(*m.type, rt, &sl);
    }
  }
  void write_struct(const StructLayout& s, const std::string& var) {
    uint64_t k = 0;
    for (const auto& m : s.members) {
      write(*m.type, var + "." + m.name, Index{"", k}, 0, "  ");
      k += leaf_count(*m.type, rt, &sl);
    }
  }
};

/// A prefix for generated names that `source` does not contain.
std::string fresh_prefix(std::string_view source) {
  std::string p = "bindery_rt_";
  for (int i = 2; source.find(p) != std::string_view::npos; ++i)
    p = fmt::format("bindery_rt{}_", i);
  return p;
}

// ---- the implementation's layout where it deviates ----------------------------------------------

/// The layout wgpu-native's WGSL front end (naga 29) gives: WGSL §14.4.1 except that AlignOf of a
/// struct is the largest AlignOf of its member TYPES, @align ignored (gfx-rs/wgpu#4377). Member
/// offsets honour @align, and a struct's size rounds up to its largest AlignOfMember with @align.
class NagaModel {
 public:
  /// naga = false recomputes the spec's layout with the same code, to tell bindery's own layout
  /// apart from the deviation.
  explicit NagaModel(bool naga = true) : naga_(naga) {}

  std::shared_ptr<const StructLayout> layout(const StructLayout& s) { return model(s).first; }

 private:
  using Pair = std::pair<std::shared_ptr<StructLayout>, std::shared_ptr<WgslType>>;

  std::shared_ptr<const WgslType> type(const std::shared_ptr<const WgslType>& t) {
    if (t->kind == TypeKind::Struct) return model(*t->struct_layout).second;
    if (t->kind != TypeKind::Array) return t;
    auto e = type(t->element);
    auto a = std::make_shared<WgslType>(*t);
    a->element = e;
    a->align = e->align;
    a->stride = static_cast<uint32_t>(round_up(e->align, e->size));
    a->size = t->count ? t->count * a->stride : a->stride;
    return a;
  }

  Pair model(const StructLayout& s) {
    if (auto it = done_.find(&s); it != done_.end()) return it->second;
    auto l = std::make_shared<StructLayout>(s);
    uint64_t offset = 0, spec_align = 1, naga_align = 1;
    for (StructMember& m : l->members) {
      m.type = type(m.type);
      m.align = m.align_attribute ? m.align_attribute : m.type->align;
      m.size = m.size_attribute ? m.size_attribute : m.type->size;
      offset = round_up(m.align, offset);
      m.offset = static_cast<uint32_t>(offset);
      offset += m.size;
      spec_align = std::max<uint64_t>(spec_align, m.align);
      naga_align = std::max<uint64_t>(naga_align, naga_ ? m.type->align : m.align);
    }
    l->align = static_cast<uint32_t>(naga_align);
    l->size = static_cast<uint32_t>(round_up(spec_align, offset));
    auto t = std::make_shared<WgslType>();
    t->kind = TypeKind::Struct;
    t->struct_layout = l;
    t->align = l->align;
    t->size = l->size;
    t->name = l->name;
    t->host_shareable = true;
    return done_[&s] = Pair{l, t};
  }

  bool naga_;
  std::map<const StructLayout*, Pair> done_;
};

/// The first place where `a` (bindery, the spec) and `b` (the model) differ, as "path: spec X,
/// implementation Y"; empty when they agree on every offset, size, stride and nested alignment.
std::string first_difference(const StructLayout& a, const StructLayout& b,
                             const std::string& path) {
  for (size_t i = 0; i < a.members.size(); ++i) {
    const StructMember& x = a.members[i];
    const StructMember& y = b.members[i];
    const std::string p = path.empty() ? x.name : path + "." + x.name;
    if (x.offset != y.offset)
      return fmt::format("'{}' at offset {} (WGSL) / {} (implementation)", p, x.offset, y.offset);
    const WgslType* tx = x.type.get();
    const WgslType* ty = y.type.get();
    std::string q = p;
    while (tx->kind == TypeKind::Array) {
      if (tx->stride != ty->stride)
        return fmt::format("'{}' stride {} (WGSL) / {} (implementation)", q, tx->stride,
                           ty->stride);
      tx = tx->element.get();
      ty = ty->element.get();
      q += "[]";
    }
    if (tx->kind == TypeKind::Struct) {
      if (tx->align != ty->align)
        return fmt::format("AlignOf({}) {} (WGSL) / {} (implementation)", tx->name, tx->align,
                           ty->align);
      if (tx->size != ty->size)
        return fmt::format("SizeOf({}) {} (WGSL) / {} (implementation)", tx->name, tx->size,
                           ty->size);
      std::string d = first_difference(*tx->struct_layout, *ty->struct_layout, q);
      if (!d.empty()) return d;
    }
  }
  return {};
}

/// The deviation of `s` (see first_difference) when bindery's layout is what the spec's rules give
/// and naga's differs; empty otherwise (a bindery error is then left for the round trip to show).
std::string naga_deviation(const StructLayout& s, NagaModel& spec, NagaModel& naga,
                           std::shared_ptr<const StructLayout>& model) {
  model = naga.layout(s);
  // Only naga (wgpu-native) has it; Dawn's Tint follows the spec (implementation.hpp).
  if (!implementation::struct_align_ignores_member_align()) return {};
  if (!first_difference(s, *spec.layout(s), "").empty()) return {};
  return first_difference(s, *model, "");
}

// ---- GPU helpers ------------------------------------------------------------------------------

struct Scope {
  const Device& d;
  explicit Scope(const Device& device) : d(device) {
    wgpuDevicePushErrorScope(d.get(), WGPUErrorFilter_Validation);
  }
  /// Pops the scope: the error message as the implementation wrote it, or empty.
  std::string pop_raw() {
    struct R {
      bool done = false;
      WGPUPopErrorScopeStatus status = WGPUPopErrorScopeStatus_Error;
      WGPUErrorType type = WGPUErrorType_NoError;
      std::string message;
    } r;
    WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = [](WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message,
                     void* u, void*) {
      auto* res = static_cast<R*>(u);
      res->done = true;
      res->status = status;
      res->type = type;
      res->message = std::string(gpu::sv(message));
    };
    cb.userdata1 = &r;
    wgpuDevicePopErrorScope(d.get(), cb);
    implementation::wait_until(d.instance(), r.done);
    if (!r.done || r.status != WGPUPopErrorScopeStatus_Success)
      throw Error(ErrorKind::DeviceLost,
                  "popErrorScope: the implementation never reported the scope's result");
    if (r.type == WGPUErrorType_NoError) return std::string();
    return r.message.empty() ? std::string("(the implementation gave no message)") : r.message;
  }
  /// Pops the scope: the error message on one line, or empty.
  std::string pop() { return one_line(pop_raw()); }
};

gpu::ShaderModule create_module(const Device& d, std::string_view wgsl) {
  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = gpu::sv(wgsl);
  WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  desc.label = gpu::sv("bindery layout verification");
  desc.nextInChain = &source.chain;
  return gpu::ShaderModule::acquire(wgpuDeviceCreateShaderModule(d.get(), &desc));
}

std::vector<std::byte> read_back(const Device& d, WGPUBuffer src, uint64_t size) {
  gpu::Buffer rb = d.create_buffer("layout verification readback", size,
                                   WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  gpu::CommandEncoder enc =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  wgpuCommandEncoderCopyBufferToBuffer(enc.get(), src, 0, rb.get(), 0, size);
  WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc.get(), nullptr);
  wgpuQueueSubmit(d.queue(), 1, &cb);
  wgpuCommandBufferRelease(cb);
  struct Done {
    bool done = false;
    WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
  } done;
  WGPUBufferMapCallbackInfo info = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  info.mode = WGPUCallbackMode_AllowProcessEvents;
  info.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* u, void*) {
    auto* dn = static_cast<Done*>(u);
    dn->done = true;
    dn->status = status;
  };
  info.userdata1 = &done;
  wgpuBufferMapAsync(rb.get(), WGPUMapMode_Read, 0, size_t(size), info);
  for (int i = 0; i < 100000 && !done.done; ++i) {
    d.poll(true);
    wgpuInstanceProcessEvents(d.instance());
  }
  if (!done.done || done.status != WGPUMapAsyncStatus_Success)
    throw Error(ErrorKind::WebGPUValidation, "mapAsync of the layout verification readback failed");
  std::vector<std::byte> out(size);
  std::memcpy(out.data(), wgpuBufferGetConstMappedRange(rb.get(), 0, size_t(size)), size_t(size));
  wgpuBufferUnmap(rb.get());
  return out;
}

// ---- one batch --------------------------------------------------------------------------------

struct Item {
  const StructLayout* s = nullptr;
  StructVerification* result = nullptr;
  bool uniform = false;
  uint64_t leaves = 0;
  uint64_t storage_size = 0;  ///< binding size in the storage copy
  uint64_t uniform_size = 0;
};

class Verifier {
 public:
  Verifier(const Device& d, std::string_view source, const VerifyOptions& o)
      : d_(d), o_(o), prefix_(fresh_prefix(source)), decls_(layout_declarations(source)) {}

  const std::string& declarations() const { return decls_; }

  /// The structs with a round trip of their own in this run (see Leaves).
  void set_shallow(Shallow names) { shallow_ = std::move(names); }
  /// How this run counts and visits leaves.
  Leaves leaves() const { return Leaves(o_.runtime_array_elements, &shallow_); }

  CompileVerdict verdict_in(const StructLayout& s, std::string_view space) {
    const std::string wgsl =
        fmt::format("{}\n@group(0) @binding(0) var<{}> {}v: {};\n", decls_, space, prefix_, s.name);
    ++work_.compiles;
    work_.wgsl_bytes += wgsl.size();
    return compile_verdict(d_, wgsl);
  }

  /// Whether the implementation accepts one module declaring a variable in `space` of every
  /// struct in `list` (one binding each).
  bool all_valid_in(const std::vector<const StructLayout*>& list, std::string_view space) {
    std::string wgsl = decls_ + "\n";
    for (size_t i = 0; i < list.size(); ++i)
      wgsl += fmt::format("@group(0) @binding({}) var<{}> {}v{}: {};\n", i, space, prefix_, i,
                          list[i]->name);
    ++work_.compiles;
    work_.wgsl_bytes += wgsl.size();
    return compile_verdict(d_, wgsl).valid;
  }

  /// Straight-line statements the round trip of `it` generates (see kMaxVerifyStatements).
  uint64_t statements(const Item& it) const {
    ShaderWriter w{prefix_ + "words", prefix_, leaves(), {}};
    if (it.uniform) w.read_struct(*it.s, "u", 0);
    w.read_struct(*it.s, "s", 0);
    w.write_struct(*it.s, "s");
    return uint64_t(std::count(w.out.begin(), w.out.end(), ';'));
  }

  /// What this verifier has done so far.
  VerifyWork& work() { return work_; }

  void run_batch(std::vector<Item>& batch) {
    std::string error;
    try {
      error = try_batch(batch);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::DeviceLost) throw;
      error = e.what();
    }
    if (error.empty()) return;
    if (batch.size() == 1) {
      batch[0].result->error = error;
      return;
    }
    // Find which struct the implementation refused: one module each.
    for (Item& it : batch) {
      std::vector<Item> one{it};
      run_batch(one);
    }
  }

 private:
  // Where one struct of a batch lives: its bindings, its byte offsets in the storage and uniform
  // buffers, and the output words its leaves (and arrayLength) are written to.
  struct Placement {
    uint32_t storage_binding, uniform_binding;
    uint64_t storage_offset, uniform_offset;
    uint64_t storage_words, uniform_words, length_word;
  };

  // The verification module of a batch and where each struct sits in its buffers.
  struct BatchModule {
    std::string wgsl;
    std::vector<Placement> place;
    uint64_t storage_bytes = 0, uniform_bytes = 0, word_count = 0;
  };

  // What the GPU returned for a batch: the output words and the storage buffer's bytes.
  struct BatchReadback {
    std::vector<std::byte> words, storage;
  };

  /// Runs one module for `batch`; returns the implementation's error, or empty.
  std::string try_batch(std::vector<Item>& batch) {
    const BatchModule m = build_module(batch);
    // Host data through StructView at bindery's offsets; padding bytes 0xA5.
    std::vector<std::byte> storage(round_up(4, std::max<uint64_t>(m.storage_bytes, 4)),
                                   std::byte{0xA5});
    std::vector<std::byte> uniform(round_up(16, std::max<uint64_t>(m.uniform_bytes, 16)),
                                   std::byte{0xA5});
    for (size_t j = 0; j < batch.size(); ++j) {
      const Item& it = batch[j];
      fill(*it.s, std::span(storage).subspan(m.place[j].storage_offset, it.storage_size));
      if (it.uniform)
        fill(*it.s, std::span(uniform).subspan(m.place[j].uniform_offset, it.uniform_size));
    }
    last_module_ = m.wgsl;
    ++work_.compiles;
    work_.wgsl_bytes += m.wgsl.size();
    dump_module(m.wgsl, batch[0].s->name);
    BatchReadback back;
    if (std::string e = run_module(batch, m, storage, uniform, back); !e.empty()) return e;
    check_batch(batch, m, back);
    return {};
  }

  // Places every struct of `batch` (storage, and uniform where it may be one) and writes the
  // compute shader that copies each leaf into the output words and each struct back through
  // storage.
  BatchModule build_module(std::vector<Item>& batch) {
    const Limits& lim = d_.limits();
    const std::string words = prefix_ + "words";
    ShaderWriter w{words, prefix_, leaves(), {}};
    std::string decl = decls_ + "\n";
    BatchModule m;
    m.place.resize(batch.size());
    uint32_t binding = 1;
    for (size_t j = 0; j < batch.size(); ++j) {
      Item& it = batch[j];
      Placement& p = m.place[j];
      const std::string sv = fmt::format("{}s{}", prefix_, j),
                        uv = fmt::format("{}u{}", prefix_, j);
      p.storage_binding = binding++;
      p.storage_offset = round_up(lim.minStorageBufferOffsetAlignment, m.storage_bytes);
      m.storage_bytes = p.storage_offset + it.storage_size;
      decl += fmt::format("@group(0) @binding({}) var<storage, read_write> {}: {};\n",
                          p.storage_binding, sv, it.s->name);
      if (it.uniform) {
        p.uniform_binding = binding++;
        p.uniform_offset = round_up(lim.minUniformBufferOffsetAlignment, m.uniform_bytes);
        m.uniform_bytes = p.uniform_offset + it.uniform_size;
        decl += fmt::format("@group(0) @binding({}) var<uniform> {}: {};\n", p.uniform_binding, uv,
                            it.s->name);
        p.uniform_words = m.word_count;
        m.word_count += it.leaves;
        w.out += fmt::format("  // {} from uniform\n", it.s->name);
        w.read_struct(*it.s, uv, p.uniform_words);
      }
      p.storage_words = m.word_count;
      m.word_count += it.leaves;
      w.out += fmt::format("  // {} from storage\n", it.s->name);
      w.read_struct(*it.s, sv, p.storage_words);
      if (const StructMember* rt = runtime_array_member(*it.s)) {
        p.length_word = m.word_count++;
        w.out +=
            fmt::format("  {}[{}u] = arrayLength(&{}.{});\n", words, p.length_word, sv, rt->name);
      }
    }
    // A fixed-size output array: constant indices need no run-time bounds checks, which would cost
    // lavapipe a branch per leaf.
    decl += fmt::format("@group(0) @binding(0) var<storage, read_write> {}: array<u32, {}>;\n",
                        words, std::max<uint64_t>(m.word_count, 1));
    for (size_t j = 0; j < batch.size(); ++j) {
      w.out += fmt::format("  // {} written by the GPU\n", batch[j].s->name);
      w.write_struct(*batch[j].s, fmt::format("{}s{}", prefix_, j));
    }
    m.wgsl =
        decl + fmt::format("\n@compute @workgroup_size(1)\nfn {}main() {{\n{}}}\n", prefix_, w.out);
    return m;
  }

  // BINDERY_VERIFY_DUMP=DIR keeps each module as DIR/NAME.wgsl, written before compiling, so a
  // module that crashes the driver is kept too.
  static void dump_module(const std::string& wgsl, const std::string& name) {
    if (const char* dir = std::getenv("BINDERY_VERIFY_DUMP")) {
      if (FILE* f = std::fopen(fmt::format("{}/{}.wgsl", dir, name).c_str(), "wb")) {
        std::fwrite(wgsl.data(), 1, wgsl.size(), f);
        std::fclose(f);
      }
    }
  }

  // The bind group of a batch: the output words at binding 0, then each struct's storage (and
  // uniform) window.
  static std::vector<WGPUBindGroupEntry> build_entries(const std::vector<Item>& batch,
                                                       const BatchModule& m, WGPUBuffer words,
                                                       uint64_t words_bytes, WGPUBuffer storage,
                                                       WGPUBuffer uniform) {
    std::vector<WGPUBindGroupEntry> entries;
    WGPUBindGroupEntry e0 = WGPU_BIND_GROUP_ENTRY_INIT;
    e0.binding = 0;
    e0.buffer = words;
    e0.size = words_bytes;
    entries.push_back(e0);
    for (size_t j = 0; j < batch.size(); ++j) {
      WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
      e.binding = m.place[j].storage_binding;
      e.buffer = storage;
      e.offset = m.place[j].storage_offset;
      e.size = batch[j].storage_size;
      entries.push_back(e);
      if (batch[j].uniform) {
        e.binding = m.place[j].uniform_binding;
        e.buffer = uniform;
        e.offset = m.place[j].uniform_offset;
        e.size = batch[j].uniform_size;
        entries.push_back(e);
      }
    }
    return entries;
  }

  // Compiles the module, uploads the host data, dispatches once and reads the words and the
  // storage buffer back into `back`; returns the implementation's error, or empty.
  std::string run_module(const std::vector<Item>& batch, const BatchModule& m,
                         const std::vector<std::byte>& storage,
                         const std::vector<std::byte>& uniform, BatchReadback& back) {
    Scope scope(d_);
    gpu::ShaderModule module = create_module(d_, m.wgsl);
    WGPUComputePipelineDescriptor pd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    pd.compute.module = module.get();
    const std::string entry = prefix_ + "main";
    pd.compute.entryPoint = gpu::sv(entry);
    gpu::ComputePipeline pipeline =
        gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(d_.get(), &pd));
    if (std::string e = scope.pop(); !e.empty()) return e;

    Scope run(d_);
    const std::vector<uint32_t> sentinel(m.word_count, 0xFFFFFFFFu);
    const uint64_t words_bytes = std::max<uint64_t>(m.word_count, 1) * 4;
    gpu::Buffer words_buf = d_.create_buffer(
        "layout verification words", words_bytes,
        WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
    gpu::Buffer storage_buf = d_.create_buffer(
        "layout verification storage", storage.size(),
        WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
    gpu::Buffer uniform_buf = d_.create_buffer("layout verification uniform", uniform.size(),
                                               WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
    if (m.word_count) d_.write_buffer(words_buf.get(), 0, sentinel.data(), m.word_count * 4);
    d_.write_buffer(storage_buf.get(), 0, storage.data(), storage.size());
    d_.write_buffer(uniform_buf.get(), 0, uniform.data(), uniform.size());

    const std::vector<WGPUBindGroupEntry> entries = build_entries(
        batch, m, words_buf.get(), words_bytes, storage_buf.get(), uniform_buf.get());
    gpu::BindGroupLayout bgl =
        gpu::BindGroupLayout::acquire(wgpuComputePipelineGetBindGroupLayout(pipeline.get(), 0));
    WGPUBindGroupDescriptor bgd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    bgd.layout = bgl.get();
    bgd.entryCount = entries.size();
    bgd.entries = entries.data();
    gpu::BindGroup group = d_.create_bind_group(bgd);
    gpu::CommandEncoder enc =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d_.get(), nullptr));
    WGPUComputePassDescriptor cpd = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
    gpu::ComputePassEncoder pass =
        gpu::ComputePassEncoder::acquire(wgpuCommandEncoderBeginComputePass(enc.get(), &cpd));
    wgpuComputePassEncoderSetPipeline(pass.get(), pipeline.get());
    wgpuComputePassEncoderSetBindGroup(pass.get(), 0, group.get(), 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass.get(), 1, 1, 1);
    wgpuComputePassEncoderEnd(pass.get());
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc.get(), nullptr);
    wgpuQueueSubmit(d_.queue(), 1, &cb);
    wgpuCommandBufferRelease(cb);
    if (std::string e = run.pop(); !e.empty()) return e;

    back.words = read_back(d_, words_buf.get(), words_bytes);
    back.storage = read_back(d_, storage_buf.get(), storage.size());
    return {};
  }

  // Compares what the GPU read (the words) and wrote (the storage bytes) with bindery's layout,
  // struct by struct, into each item's result.
  void check_batch(std::vector<Item>& batch, const BatchModule& m, BatchReadback& back) {
    auto word = [&](uint64_t i) {
      uint32_t v;
      std::memcpy(&v, back.words.data() + i * 4, 4);
      return v;
    };
    for (size_t j = 0; j < batch.size(); ++j) {
      Item& it = batch[j];
      StructVerification& r = *it.result;
      if (it.uniform) {
        compare_words(*it.s, r, "uniform->gpu",
                      [&](uint64_t k) { return word(m.place[j].uniform_words + k); });
        r.uniform_round_trip = true;
      }
      compare_words(*it.s, r, "storage->gpu",
                    [&](uint64_t k) { return word(m.place[j].storage_words + k); });
      if (const StructMember* rt = runtime_array_member(*it.s)) {
        // arrayLength = floor((binding size - offset of the array) / stride) (WGSL §17.6.1).
        const uint32_t expected =
            static_cast<uint32_t>((it.storage_size - rt->offset) / rt->type->stride);
        const uint32_t seen = word(m.place[j].length_word);
        ++r.checks;
        if (seen != expected)
          add(r, LeafMismatch{
                     "arrayLength", rt->name, rt->offset, expected, seen,
                     fmt::format("binding size {}, stride {}", it.storage_size, rt->type->stride)});
      }
      StructView view(*it.s, std::span(back.storage)
                                 .subspan(m.place[j].storage_offset, it.storage_size));
      compare_view(*it.s, r, view);
      r.storage_round_trip = true;
    }
  }

  void fill(const StructLayout& s, std::span<std::byte> bytes) {
    StructView v(s, bytes);
    uint64_t k = 0;
    uint32_t bits[16];
    for_each_field(s, leaves(), [&](const FieldRef& f) {
      const uint32_t n = components(f);
      for (uint32_t i = 0; i < n; ++i) bits[i] = pattern(f.scalar, false, k + i);
      write_field(v, f, bits);
      k += n;
    });
  }

  void add(StructVerification& r, LeafMismatch m) {
    ++r.mismatch_count;
    if (r.mismatches.size() < o_.max_listed_mismatches) r.mismatches.push_back(std::move(m));
  }

  /// Names the leaf whose pattern `seen` is, if any.
  std::string whose(const StructLayout& s, ScalarKind scalar, uint32_t seen) {
    if (seen == 0xFFFFFFFFu) return "the shader wrote nothing there";
    if (seen == 0xA5A5A5A5u || (scalar == ScalarKind::F16 && (seen & 0xFFFF) == 0xA5A5u))
      return "padding (bindery wrote nothing there)";
    auto d = decode(scalar, seen);
    if (!d) return {};
    std::string found;
    uint64_t k = 0;
    for_each_field(s, leaves(), [&](const FieldRef& f) {
      const uint32_t n = components(f);
      if (found.empty() && d->first >= k && d->first < k + n) {
        auto [path, off] = component(f, static_cast<uint32_t>(d->first - k));
        found = fmt::format("the {} value of '{}' (bindery offset {})",
                            d->second ? "GPU's" : "host's", path, off);
      }
      k += n;
    });
    return found;
  }

  template <class Word>
  void compare_words(const StructLayout& s, StructVerification& r, const char* direction,
                     Word&& word) {
    uint64_t k = 0;
    for_each_field(s, leaves(), [&](const FieldRef& f) {
      const uint32_t n = components(f);
      for (uint32_t i = 0; i < n; ++i, ++k) {
        ++r.checks;
        const uint32_t expected = pattern(f.scalar, false, k), seen = word(k);
        if (seen != expected) {
          auto [path, off] = component(f, i);
          add(r, LeafMismatch{direction, path, off, expected, seen, whose(s, f.scalar, seen)});
        }
      }
    });
  }

  void compare_view(const StructLayout& s, StructVerification& r, const StructView& v) {
    uint64_t k = 0;
    uint32_t bits[16];
    for_each_field(s, leaves(), [&](const FieldRef& f) {
      const uint32_t n = components(f);
      read_field(v, f, bits);
      for (uint32_t i = 0; i < n; ++i, ++k) {
        ++r.checks;
        const uint32_t expected = pattern(f.scalar, true, k);
        if (bits[i] != expected) {
          auto [path, off] = component(f, i);
          add(r, LeafMismatch{"gpu->storage", path, off, expected, bits[i],
                              whose(s, f.scalar, bits[i])});
        }
      }
    });
  }

  const Device& d_;
  const VerifyOptions& o_;
  std::string prefix_;
  std::string decls_;
  std::string last_module_;
  Shallow shallow_;
  VerifyWork work_;
};

}  // namespace

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

// The round trip of `used` (storage, and uniform where it may and can run), or nullopt with
// r.skipped saying why none runs. r.skipped also names a uniform round trip left out.
std::optional<Item> plan_round_trip(const StructLayout& used, const VerifyOptions& options,
                                    const Limits& lim, StructVerification& r) {
  std::vector<std::string> why;
  auto skip_reason = [&] { return fmt::format("{}", fmt::join(why, "; ")); };
  if (!r.host_shareable) why.push_back("not host-shareable (bool)");
  if (!(r.expected_storage_valid && r.gpu_storage_valid)) {
    if (r.host_shareable) why.push_back("not valid in storage");
    r.skipped = skip_reason();
    return std::nullopt;
  }
  Item it;
  it.s = &used;
  it.result = &r;
  it.leaves = leaf_count(used, options.runtime_array_elements);
  const StructMember* rt = runtime_array_member(used);
  const uint64_t rt_end =
      rt ? rt->offset + uint64_t(options.runtime_array_elements) * rt->type->stride : 0;
  it.storage_size = round_up(4, std::max<uint64_t>(used.size, rt_end));
  it.uniform_size = round_up(16, used.size);
  if (it.storage_size > lim.maxStorageBufferBindingSize) {
    why.push_back(fmt::format("{} bytes exceed maxStorageBufferBindingSize ({})", it.storage_size,
                              lim.maxStorageBufferBindingSize));
    r.skipped = skip_reason();
    return std::nullopt;
  }
  it.uniform = r.expected_uniform_valid && r.gpu_uniform_valid && options.uniform_round_trip;
  if (!options.uniform_round_trip) {
    why.push_back("uniform round trip not run: switched off");
  } else if (it.uniform && uniform_matcx2_hazard(used)) {
    it.uniform = false;
    why.push_back(
        "uniform round trip not run: a matCx2 in a nested struct, which naga 29 reads wrongly "
        "from "
        "uniform buffers (docs/LAYOUT.md)");
  } else if (!it.uniform) {
    why.push_back("uniform round trip not run: not valid in uniform");
  } else if (it.uniform_size > lim.maxUniformBufferBindingSize) {
    it.uniform = false;
    why.push_back(fmt::format(
        "uniform round trip not run: {} bytes exceed maxUniformBufferBindingSize ({})",
        it.uniform_size, lim.maxUniformBufferBindingSize));
  }
  r.skipped = skip_reason();
  return it;
}

// Runs the round trips in batches within the per-stage limits (one storage binding is the words
// array) and options.max_structs_per_module.
void run_round_trips(Verifier& v, const std::vector<Item>& todo, const VerifyOptions& options,
                     const Limits& lim) {
  const uint32_t max_storage =
      lim.maxStorageBuffersPerShaderStage > 1 ? lim.maxStorageBuffersPerShaderStage - 1 : 1;
  const uint32_t max_uniform = std::max<uint32_t>(lim.maxUniformBuffersPerShaderStage, 1);
  const uint64_t max_words = std::min<uint64_t>(lim.maxStorageBufferBindingSize / 4, 1u << 22);
  std::vector<Item> batch;
  uint32_t n_storage = 0, n_uniform = 0;
  uint64_t n_words = 0;
  auto flush = [&] {
    if (!batch.empty()) v.run_batch(batch);
    batch.clear();
    n_storage = n_uniform = 0;
    n_words = 0;
  };
  for (const Item& it : todo) {
    const uint64_t words = it.leaves * (it.uniform ? 2 : 1) + 1;
    if (!batch.empty() &&
        (n_storage + 1 > max_storage || n_uniform + (it.uniform ? 1 : 0) > max_uniform ||
         n_words + words > max_words ||
         (options.max_structs_per_module && batch.size() >= options.max_structs_per_module)))
      flush();
    batch.push_back(it);
    n_storage += 1;
    n_uniform += it.uniform ? 1 : 0;
    n_words += words;
  }
  flush();
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
