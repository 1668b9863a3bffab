// SPDX-License-Identifier: MIT
/// @file
/// bindery/wgsl/struct_view.hpp — a typed writer over the bytes of one reflected WGSL struct.
///
/// StructView puts host values where the shader reads them: offsets, array element strides and
/// matrix column strides come from the reflected StructLayout (wgsl_layout.hpp), never from
/// hand-counted constants. mat3x3<f32> columns land 16 bytes apart (the 4 padding bytes of each
/// column are left untouched), f16 fields take float (converted, round to nearest even) or raw
/// uint16_t bits, atomic<u32|i32> fields take uint32_t / int32_t.
///
/// Hot path (the renderer writes ~10k objects per frame): resolve each field once,
/// @code
///   const FieldRef world = layout.field("world");  // or layout.resolve("lights[3].color")
/// @endcode
/// then per object
/// @code
///   StructView(layout, slot_bytes).set(world, glm::mat4{...});
/// @endcode
/// which is a type-tag compare, a bounds check and a memcpy. The string overloads
/// (view.set("world", m)) parse the path on every call: fine for setup, not for per-object loops.
///
/// Accepted host types: float, int32_t, uint32_t, uint16_t (raw f16), glm::vec2/3/4, ivec*, uvec*,
/// u16vec* (raw f16), glm::mat2..mat4 and every glm::matCxR (float). A value whose WGSL type
/// differs throws StructViewType naming the path, the field's WGSL type and the value's type;
/// a bad path throws StructViewPath. Reads no device limits.
#pragma once

#include <bindery/core/error.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <glm/glm.hpp>
#include <glm/gtc/type_precision.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace bindery {

/// IEEE 754 binary32 → binary16 bits, round to nearest even; overflow gives ±infinity, NaN stays
/// NaN (WGSL f16).
uint16_t float_to_f16(float value) noexcept;
/// IEEE 754 binary16 bits → binary32 (exact).
float f16_to_float(uint16_t bits) noexcept;

namespace detail {

/// What a host value looks like in WGSL terms: its component scalar and shape.
struct HostShape {
  TypeKind kind;       ///< Scalar, Vector or Matrix
  ScalarKind scalar;   ///< F16 means raw binary16 bits (uint16_t)
  uint8_t columns;
  uint8_t rows;
};

template <class T>
struct ScalarOf;
template <>
struct ScalarOf<float> {
  static constexpr ScalarKind value = ScalarKind::F32;
};
template <>
struct ScalarOf<int32_t> {
  static constexpr ScalarKind value = ScalarKind::I32;
};
template <>
struct ScalarOf<uint32_t> {
  static constexpr ScalarKind value = ScalarKind::U32;
};
template <>
struct ScalarOf<uint16_t> {
  static constexpr ScalarKind value = ScalarKind::F16;
};

/// HostTraits<T>: shape of T and a pointer to its first component. Only the types listed in the
/// header comment have traits; anything else fails to compile.
template <class T>
struct HostTraits {
  using Component = T;
  static constexpr HostShape shape{TypeKind::Scalar, ScalarOf<T>::value, 1, 1};
  static const T* data(const T& v) noexcept { return &v; }
  static T* data(T& v) noexcept { return &v; }
};
template <glm::length_t L, class T, glm::qualifier Q>
struct HostTraits<glm::vec<L, T, Q>> {
  using Component = T;
  static constexpr HostShape shape{TypeKind::Vector, ScalarOf<T>::value, 1, static_cast<uint8_t>(L)};
  static const T* data(const glm::vec<L, T, Q>& v) noexcept { return &v[0]; }
  static T* data(glm::vec<L, T, Q>& v) noexcept { return &v[0]; }
};
template <glm::length_t C, glm::length_t R, glm::qualifier Q>
struct HostTraits<glm::mat<C, R, float, Q>> {
  using Component = float;
  static constexpr HostShape shape{TypeKind::Matrix, ScalarKind::F32, static_cast<uint8_t>(C), static_cast<uint8_t>(R)};
};

/// True when a host value of `shape` may be written to (or read from) field `f`.
constexpr bool accepts(const FieldRef& f, HostShape h) noexcept {
  bool kind_ok = f.kind == h.kind || (f.kind == TypeKind::Atomic && h.kind == TypeKind::Scalar);
  bool scalar_ok = f.scalar == h.scalar || (f.scalar == ScalarKind::F16 && h.scalar == ScalarKind::F32 && f.kind != TypeKind::Atomic);
  return kind_ok && scalar_ok && f.columns == h.columns && f.rows == h.rows;
}

[[noreturn]] void throw_type_mismatch(const FieldRef& f, HostShape h);
[[noreturn]] void throw_out_of_bounds(const FieldRef& f, std::size_t span_bytes);
[[noreturn]] void throw_unresolved(const FieldRef& f);

/// Bytes a read or write of `f` touches from f.offset: the field's size, or what the component
/// count, column stride and component size reach if a hand-made FieldRef claims less.
inline std::size_t field_extent(const FieldRef& f) {
  const std::size_t component = f.scalar == ScalarKind::F16 ? 2 : 4;
  const std::size_t reach = f.kind == TypeKind::Matrix
                                ? std::size_t(f.columns ? f.columns - 1 : 0) * f.column_stride +
                                      std::size_t(f.rows) * component
                                : std::size_t(f.rows ? f.rows : 1) * component;
  return std::max<std::size_t>(f.size, reach);
}

/// Throws StructViewPath for a FieldRef that was never resolved against a layout, and
/// StructViewPath (out of bounds) when the field does not fit in `span_bytes`.
inline void check_field(const FieldRef& f, std::size_t span_bytes) {
  if (f.type == nullptr) throw_unresolved(f);
  if (static_cast<std::size_t>(f.offset) + field_extent(f) > span_bytes)
    throw_out_of_bounds(f, span_bytes);
}
void write_f16(std::byte* dst, const FieldRef& f, const float* src) noexcept;
void read_f16(const std::byte* src, const FieldRef& f, float* dst) noexcept;

}  // namespace detail

/// A typed writer (and reader) over the bytes of one struct instance laid out as `layout`.
/// Does not own the bytes or the layout; both must outlive the view.
class StructView {
 public:
  /// Throws InvalidArgument when `bytes` is smaller than layout.size (a trailing runtime-sized
  /// array counts as one element; more elements may follow in `bytes`).
  StructView(const StructLayout& layout, std::span<std::byte> bytes);

  /// The layout fields are resolved against (borrowed).
  const StructLayout& layout() const noexcept { return *layout_; }
  /// The bytes written and read (borrowed): at least layout().size.
  std::span<std::byte> bytes() const noexcept { return bytes_; }

  /// Writes `value` at the field `f` (resolved from this layout). Throws StructViewType when the
  /// value's type differs from the field's WGSL type, StructViewPath when a runtime-array element
  /// lies beyond the byte span.
  template <class T>
  void set(const FieldRef& f, const T& value) {
    using Tr = detail::HostTraits<T>;
    constexpr detail::HostShape h = Tr::shape;
    detail::check_field(f, bytes_.size());
    if (!detail::accepts(f, h)) detail::throw_type_mismatch(f, h);
    std::byte* dst = bytes_.data() + f.offset;
    if constexpr (h.kind == TypeKind::Matrix) {
      if (f.scalar == ScalarKind::F16) {
        detail::write_f16(dst, f, &value[0][0]);
      } else if (sizeof(T) == h.columns * h.rows * sizeof(float) && f.column_stride == h.rows * sizeof(float)) {
        std::memcpy(dst, &value[0][0], h.columns * h.rows * sizeof(float));  // tight columns (mat4x4, matCx2)
      } else {
        for (int c = 0; c < h.columns; ++c) std::memcpy(dst + c * f.column_stride, &value[c][0], h.rows * sizeof(float));
      }
    } else {
      if constexpr (h.scalar == ScalarKind::F32) {
        if (f.scalar == ScalarKind::F16) {
          detail::write_f16(dst, f, Tr::data(value));
          return;
        }
      }
      std::memcpy(dst, Tr::data(value), h.rows * sizeof(typename Tr::Component));
    }
  }

  /// Same as set(layout().resolve(path), value): parses `path` ("world", "lights[3].color").
  template <class T>
  void set(std::string_view path, const T& value) {
    set(layout_->resolve(path), value);
  }

  /// Reads the field `f` as T (f16 converted to float when T is float-based). Throws like set().
  template <class T>
  T get(const FieldRef& f) const {
    using Tr = detail::HostTraits<T>;
    constexpr detail::HostShape h = Tr::shape;
    detail::check_field(f, bytes_.size());
    if (!detail::accepts(f, h)) detail::throw_type_mismatch(f, h);
    const std::byte* src = bytes_.data() + f.offset;
    T value{};
    if constexpr (h.kind == TypeKind::Matrix) {
      if (f.scalar == ScalarKind::F16) {
        detail::read_f16(src, f, &value[0][0]);
      } else {
        for (int c = 0; c < h.columns; ++c) std::memcpy(&value[c][0], src + c * f.column_stride, h.rows * sizeof(float));
      }
    } else {
      if constexpr (h.scalar == ScalarKind::F32) {
        if (f.scalar == ScalarKind::F16) {
          detail::read_f16(src, f, Tr::data(value));
          return value;
        }
      }
      std::memcpy(Tr::data(value), src, h.rows * sizeof(typename Tr::Component));
    }
    return value;
  }

  /// Same as get<T>(layout().resolve(path)).
  template <class T>
  T get(std::string_view path) const {
    return get<T>(layout_->resolve(path));
  }

  /// Copies raw bytes into a field of any type (arrays, structs); `data.size()` must equal f.size
  /// (StructViewType otherwise).
  void set_bytes(const FieldRef& f, std::span<const std::byte> data);

 private:
  const StructLayout* layout_;
  std::span<std::byte> bytes_;
};

}  // namespace bindery
