// SPDX-License-Identifier: MIT
// StructView's out-of-line parts: error messages, f16 conversion, raw byte writes.
#include <bindery/wgsl/struct_view.hpp>

#include <fmt/format.h>

#include <bit>

namespace bindery {
namespace {

std::string_view scalar_text(ScalarKind s) {
  switch (s) {
    case ScalarKind::Bool: return "bool";
    case ScalarKind::I32: return "i32";
    case ScalarKind::U32: return "u32";
    case ScalarKind::F32: return "f32";
    case ScalarKind::F16: return "f16 (raw uint16_t)";
  }
  return "?";
}

std::string host_text(detail::HostShape h) {
  switch (h.kind) {
    case TypeKind::Scalar: return std::string(scalar_text(h.scalar));
    case TypeKind::Vector: return fmt::format("vec{}<{}>", h.rows, scalar_text(h.scalar));
    case TypeKind::Matrix: return fmt::format("mat{}x{}<{}> (glm::mat{}x{})", h.columns, h.rows, scalar_text(h.scalar), h.columns, h.rows);
    default: return "?";
  }
}

}  // namespace

uint16_t float_to_f16(float value) noexcept {
  uint32_t x = std::bit_cast<uint32_t>(value);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xFFu;
  uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mant ? 0x200u | (mant >> 13) : 0));  // inf / NaN
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);  // overflow → infinity
  if (e <= 0) {
    // Subnormal half (or zero): shift the mantissa with its implicit 1, round to nearest even.
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

float f16_to_float(uint16_t bits) noexcept {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1Fu;
  uint32_t mant = bits & 0x3FFu;
  uint32_t out;
  if (exp == 0x1F) {
    out = sign | 0x7F800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      out = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      out = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
    }
  } else {
    out = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(out);
}

namespace detail {

void throw_type_mismatch(const FieldRef& f, HostShape h) {
  throw Error(ErrorKind::StructViewType,
              fmt::format("StructView: field '{}' is {} in WGSL; a {} value cannot be written to or read from it{}",
                          f.path, f.type ? f.type->name : "?", host_text(h),
                          f.scalar == ScalarKind::F16 ? " (f16 fields take float or raw uint16_t of the same shape)" : ""));
}

void throw_out_of_bounds(const FieldRef& f, std::size_t span_bytes) {
  throw Error(ErrorKind::StructViewPath,
              fmt::format("StructView: field '{}' at bytes [{}, {}) lies beyond the view's {} bytes", f.path, f.offset,
                          static_cast<uint64_t>(f.offset) + field_extent(f), span_bytes));
}

void throw_unresolved(const FieldRef& f) {
  throw Error(ErrorKind::StructViewPath,
              fmt::format("StructView: FieldRef '{}' was never resolved (use StructLayout::field() or resolve())",
                          f.path));
}

void write_f16(std::byte* dst, const FieldRef& f, const float* src) noexcept {
  // Matrices: column c at c * column_stride; vectors and scalars: one "column".
  uint32_t stride = f.kind == TypeKind::Matrix ? f.column_stride : 0;
  for (uint32_t c = 0; c < f.columns; ++c)
    for (uint32_t r = 0; r < f.rows; ++r) {
      uint16_t bits = float_to_f16(src[c * f.rows + r]);
      std::memcpy(dst + c * stride + r * 2, &bits, 2);
    }
}

void read_f16(const std::byte* src, const FieldRef& f, float* dst) noexcept {
  uint32_t stride = f.kind == TypeKind::Matrix ? f.column_stride : 0;
  for (uint32_t c = 0; c < f.columns; ++c)
    for (uint32_t r = 0; r < f.rows; ++r) {
      uint16_t bits;
      std::memcpy(&bits, src + c * stride + r * 2, 2);
      dst[c * f.rows + r] = f16_to_float(bits);
    }
}

}  // namespace detail

StructView::StructView(const StructLayout& layout, std::span<std::byte> bytes) : layout_(&layout), bytes_(bytes) {
  if (bytes.size() < layout.size)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("StructView('{}'): {} bytes given, the struct needs SizeOf = {}", layout.name, bytes.size(),
                            layout.size));
}

void StructView::set_bytes(const FieldRef& f, std::span<const std::byte> data) {
  if (data.size() != f.size)
    throw Error(ErrorKind::StructViewType,
                fmt::format("StructView: field '{}' ({}) is {} bytes; {} bytes given", f.path,
                            f.type ? f.type->name : "?", f.size, data.size()));
  detail::check_field(f, bytes_.size());
  std::memcpy(bytes_.data() + f.offset, data.data(), data.size());
}

}  // namespace bindery
