// SPDX-License-Identifier: MIT
// The implementation's layout where it deviates (verify_deviation.hpp).
#include "wgsl/verify_deviation.hpp"

#include "internal/implementation.hpp"
#include "wgsl/verify_leaves.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bindery::wgsl::verify {

std::shared_ptr<const WgslType> NagaModel::type(const std::shared_ptr<const WgslType>& t) {
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

NagaModel::Pair NagaModel::model(const StructLayout& s) {
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

namespace {

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

}  // namespace

std::string naga_deviation(const StructLayout& s, NagaModel& spec, NagaModel& naga,
                           std::shared_ptr<const StructLayout>& model) {
  model = naga.layout(s);
  // Only naga (wgpu-native) has it; Dawn's Tint follows the spec (implementation.hpp).
  if (!implementation::struct_align_ignores_member_align()) return {};
  if (!first_difference(s, *spec.layout(s), "").empty()) return {};
  return first_difference(s, *model, "");
}

}  // namespace bindery::wgsl::verify
