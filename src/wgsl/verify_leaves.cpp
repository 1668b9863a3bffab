// SPDX-License-Identifier: MIT
// The leaves of the layout verifier (verify_leaves.hpp): counts, bit patterns, and StructView
// access to one field's components by their bit patterns.
#include "wgsl/verify_leaves.hpp"

#include <fmt/format.h>

#include <bit>
#include <type_traits>
#include <utility>

namespace bindery::wgsl::verify {
namespace {

/// The leaf count of the shallowest leaf of a struct type.
uint64_t shallow_leaf_count(const WgslType& t, ShallowestLeaf& sl) {
  const WgslType& leaf = *sl.of(*t.struct_layout).back().type;
  return leaf_count(leaf, Leaves(0));
}

}  // namespace

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

uint64_t leaf_count(const StructLayout& s, const Leaves& rules, ShallowestLeaf* sl) {
  uint64_t n = 0;
  for (const auto& m : s.members) n += leaf_count(*m.type, rules, sl);
  return n;
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

namespace {

/// The C++ type StructView reads and writes for scalar kind `s` (f16 as its 16 bits), passed to
/// `fn` as std::type_identity<T>.
template <class Fn>
void with_scalar_type(ScalarKind s, Fn&& fn) {
  switch (s) {
    case ScalarKind::F32:
      fn(std::type_identity<float>{});
      return;
    case ScalarKind::F16:
      fn(std::type_identity<uint16_t>{});
      return;
    case ScalarKind::I32:
      fn(std::type_identity<int32_t>{});
      return;
    default:
      fn(std::type_identity<uint32_t>{});
      return;
  }
}

/// The value of type T whose bits (f32) or value (the integer kinds, f16's bits) is `bits`.
template <class T>
T from_bits(uint32_t bits) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(bits);
  else
    return static_cast<T>(bits);
}

/// The inverse of from_bits().
template <class T>
uint32_t to_bits(T value) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<uint32_t>(value);
  else
    return static_cast<uint32_t>(value);
}

// StructView writes and reads of one field with per-component bit patterns.
template <int N, class T>
void set_vec(StructView& v, const FieldRef& f, const uint32_t* bits) {
  glm::vec<N, T> x;
  for (int i = 0; i < N; ++i) x[i] = from_bits<T>(bits[i]);
  v.set(f, x);
}
template <int N, class T>
void get_vec(const StructView& v, const FieldRef& f, uint32_t* bits) {
  auto x = v.get<glm::vec<N, T>>(f);
  for (int i = 0; i < N; ++i) bits[i] = to_bits(x[i]);
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
    // matCxR for C, R in 2..4: mat(C, R) for the one whose shape f has.
    const bool known = [&]<int... CR>(std::integer_sequence<int, CR...>) {
      return ((f.columns * 10 + f.rows == CR
                   ? (mat(std::integral_constant<int, CR / 10>{},
                          std::integral_constant<int, CR % 10>{}),
                      true)
                   : false) ||
              ...);
    }(std::integer_sequence<int, 22, 23, 24, 32, 33, 34, 42, 43, 44>{});
    if (known) return;
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("'{}': no matrix shape {}x{}", f.path, f.columns, f.rows));
  }
  // A scalar is one component, a vecN N.
  const int n = f.kind == TypeKind::Vector ? int(f.rows) : 1;
  [&]<int... N>(std::integer_sequence<int, N...>) {
    ((n == N ? vec(std::integral_constant<int, N>{}) : void()), ...);
  }(std::integer_sequence<int, 1, 2, 3, 4>{});
}

/// Writes `bits` into field `f` of `v` (Write) or reads the field into `bits` (!Write), component
/// by component in the C++ type of its scalar kind.
template <bool Write, class View, class Bits>
void access_field(View& v, const FieldRef& f, Bits* bits) {
  dispatch_shape(
      f,
      [&](auto n) {
        with_scalar_type(f.scalar, [&](auto type) {
          using T = typename decltype(type)::type;
          constexpr int N = decltype(n)::value;
          if constexpr (Write && N == 1)
            v.set(f, from_bits<T>(bits[0]));
          else if constexpr (Write)
            set_vec<N, T>(v, f, bits);
          else if constexpr (N == 1)
            bits[0] = to_bits(v.template get<T>(f));
          else
            get_vec<N, T>(v, f, bits);
        });
      },
      [&](auto c, auto r) {
        constexpr int C = decltype(c)::value, R = decltype(r)::value;
        if constexpr (Write)
          set_mat<C, R>(v, f, bits);
        else
          get_mat<C, R>(v, f, bits);
      });
}

}  // namespace

void write_field(StructView& v, const FieldRef& f, const uint32_t* bits) {
  access_field<true>(v, f, bits);
}

void read_field(const StructView& v, const FieldRef& f, uint32_t* bits) {
  access_field<false>(v, f, bits);
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

}  // namespace bindery::wgsl::verify
