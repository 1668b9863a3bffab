// SPDX-License-Identifier: MIT
// Accessors of the reflected layout (StructLayout, FieldRef, BindingInfo, Reflection) and the
// `bindery layout` renderings (JSON and table).
#include <bindery/wgsl/wgsl_layout.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>

namespace bindery {
namespace {

FieldRef make_ref(const WgslType& t, uint64_t offset, std::string path) {
  FieldRef f;
  f.offset = static_cast<uint32_t>(offset);
  f.size = t.size;
  f.kind = t.kind;
  f.scalar = t.scalar;
  f.columns = static_cast<uint8_t>(t.columns);
  f.rows = static_cast<uint8_t>(t.rows);
  f.column_stride = t.kind == TypeKind::Matrix ? static_cast<uint16_t>(t.stride) : 0;
  f.type = &t;
  f.path = std::move(path);
  return f;
}

std::string member_list(const StructLayout& s) {
  std::string names;
  for (const auto& m : s.members) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

}  // namespace

std::string_view to_string(BindingSpace space) noexcept {
  switch (space) {
    case BindingSpace::Uniform: return "uniform";
    case BindingSpace::Storage: return "storage";
    case BindingSpace::ReadOnlyStorage: return "read-only-storage";
    case BindingSpace::Texture: return "texture";
    case BindingSpace::StorageTexture: return "storage-texture";
    case BindingSpace::ExternalTexture: return "external-texture";
    case BindingSpace::Sampler: return "sampler";
    case BindingSpace::ComparisonSampler: return "comparison-sampler";
  }
  return "?";
}

FieldRef FieldRef::element(uint32_t index) const {
  if (!type || type->kind != TypeKind::Array)
    throw Error(ErrorKind::StructViewPath,
                fmt::format("'{}' is {}, not an array: [{}] cannot be applied", path, type ? type->name : "empty", index));
  if (type->count != 0 && index >= type->count)
    throw Error(ErrorKind::StructViewPath,
                fmt::format("'{}[{}]': index out of range for {} (valid 0..{})", path, index, type->name, type->count - 1));
  uint64_t off = offset + static_cast<uint64_t>(index) * type->stride;
  if (off > 0xFFFFFFFFull) throw Error(ErrorKind::StructViewPath, fmt::format("'{}[{}]': offset beyond 4 GiB", path, index));
  return make_ref(*type->element, off, fmt::format("{}[{}]", path, index));
}

FieldRef FieldRef::member(std::string_view name) const {
  if (!type || type->kind != TypeKind::Struct)
    throw Error(ErrorKind::StructViewPath,
                fmt::format("'{}' is {}, not a struct: member '{}' cannot be applied", path, type ? type->name : "empty", name));
  const StructMember* m = type->struct_layout->find_member(name);
  if (!m)
    throw Error(ErrorKind::StructViewPath, fmt::format("'{}.{}': struct '{}' has no member '{}' (members: {})", path, name,
                                                       type->name, name, member_list(*type->struct_layout)));
  return make_ref(*m->type, static_cast<uint64_t>(offset) + m->offset, fmt::format("{}.{}", path, name));
}

const StructMember* StructLayout::find_member(std::string_view n) const noexcept {
  for (const auto& m : members)
    if (m.name == n) return &m;
  return nullptr;
}

FieldRef StructLayout::field(std::string_view n) const {
  const StructMember* m = find_member(n);
  if (!m)
    throw Error(ErrorKind::StructViewPath,
                fmt::format("struct '{}' has no member '{}' (members: {})", name, n, member_list(*this)));
  return make_ref(*m->type, m->offset, std::string(n));
}

FieldRef StructLayout::resolve(std::string_view path) const {
  auto bad = [&](std::string_view why) {
    throw Error(ErrorKind::StructViewPath, fmt::format("struct '{}': path '{}': {}", name, path, why));
  };
  size_t i = 0;
  auto ident = [&]() {
    size_t start = i;
    while (i < path.size() && path[i] != '.' && path[i] != '[' && path[i] != ']') ++i;
    if (i == start) bad(fmt::format("expected a member name at character {}", start + 1));
    return path.substr(start, i - start);
  };
  FieldRef f = field(ident());
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      f = f.member(ident());
    } else if (path[i] == '[') {
      ++i;
      size_t start = i;
      while (i < path.size() && path[i] >= '0' && path[i] <= '9') ++i;
      uint32_t index = 0;
      auto [p, ec] = std::from_chars(path.data() + start, path.data() + i, index);
      if (ec != std::errc() || p != path.data() + i || i == start) bad(fmt::format("expected an index at character {}", start + 1));
      if (i >= path.size() || path[i] != ']') bad(fmt::format("expected ']' at character {}", i + 1));
      ++i;
      f = f.element(index);
    } else {
      bad(fmt::format("unexpected '{}' at character {}", path[i], i + 1));
    }
  }
  f.path = std::string(path);
  return f;
}

uint64_t BindingInfo::runtime_array_length(uint64_t binding_size) const {
  const WgslType* t = store_type.get();
  uint64_t array_offset = 0;
  if (t && t->kind == TypeKind::Struct && !t->struct_layout->members.empty()) {
    array_offset = t->struct_layout->members.back().offset;
    t = t->struct_layout->members.back().type.get();
  }
  if (!t || !t->is_runtime_array())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("binding '{}' ({}) has no runtime-sized array", name, type));
  if (binding_size < min_binding_size)
    throw Error(ErrorKind::MinBindingSizeTooSmall,
                fmt::format("binding '{}': binding size {} is smaller than its minimum binding size {}", name,
                            binding_size, min_binding_size));
  if ((space == BindingSpace::Storage || space == BindingSpace::ReadOnlyStorage) && binding_size % 4 != 0)
    throw Error(ErrorKind::BindingSizeAlignment,
                fmt::format("binding '{}': storage binding size {} is not a multiple of 4", name, binding_size));
  return (binding_size - array_offset) / t->stride;
}

bool Reflection::has_syntax_error() const noexcept {
  for (const auto& e : errors)
    if (e.kind == ErrorKind::WgslSyntax) return true;
  return false;
}

void Reflection::throw_if_errors() const {
  if (errors.empty()) return;
  std::string msg = "WGSL reflection found " + std::to_string(errors.size()) + " error(s):";
  for (const auto& e : errors) msg += fmt::format(" {}:{}: {};", e.line, e.column, e.message);
  msg.pop_back();
  throw Error(errors.front().kind, msg);
}

const StructLayout* Reflection::find_struct(std::string_view n) const noexcept {
  for (const auto& s : structs)
    if (s->name == n) return s.get();
  return nullptr;
}

const StructLayout& Reflection::struct_layout(std::string_view n) const {
  if (const StructLayout* s = find_struct(n)) return *s;
  std::string names;
  for (const auto& s : structs) names += (names.empty() ? "" : ", ") + s->name;
  throw Error(ErrorKind::StructViewPath,
              fmt::format("struct_layout('{}'): the shader declares no such struct{} (structs: {})", n,
                          ok() ? "" : " or it has errors", names.empty() ? "none" : names));
}

const BindingInfo* Reflection::find_binding(uint32_t group, uint32_t binding) const noexcept {
  for (const auto& b : bindings)
    if (b.group == group && b.binding == binding) return &b;
  return nullptr;
}

const BindingInfo* Reflection::find_binding(std::string_view n) const noexcept {
  for (const auto& b : bindings)
    if (b.name == n) return &b;
  return nullptr;
}

const ImmediateInfo* Reflection::find_immediate(std::string_view n) const noexcept {
  for (const auto& v : immediates)
    if (v.name == n) return &v;
  return nullptr;
}

std::string layout_json(const Reflection& r, int indent) {
  using nlohmann::ordered_json;
  ordered_json doc;
  doc["structs"] = ordered_json::array();
  for (const auto& s : r.structs) {
    ordered_json js;
    js["name"] = s->name;
    js["size"] = s->size;
    js["align"] = s->align;
    js["members"] = ordered_json::array();
    for (const auto& m : s->members) {
      ordered_json jm;
      jm["name"] = m.name;
      jm["type"] = m.type->name;
      jm["offset"] = m.offset;
      jm["size"] = m.size;
      jm["align"] = m.align;
      if (m.type->kind == TypeKind::Array) jm["stride"] = m.type->stride;
      js["members"].push_back(std::move(jm));
    }
    doc["structs"].push_back(std::move(js));
  }
  doc["bindings"] = ordered_json::array();
  for (const auto& b : r.bindings) {
    ordered_json jb;
    jb["group"] = b.group;
    jb["binding"] = b.binding;
    jb["name"] = b.name;
    jb["space"] = std::string(to_string(b.space));
    jb["type"] = b.type;
    jb["minBindingSize"] = b.min_binding_size;
    jb["portableMinBindingSize"] = b.portable_min_binding_size;
    doc["bindings"].push_back(std::move(jb));
  }
  // Only where the shader declares immediate data, so that other documents keep issue 3's shape.
  for (const auto& v : r.immediates)
    doc["immediates"].push_back({{"name", v.name}, {"type", v.type}, {"size", v.size}});
  doc["errors"] = ordered_json::array();
  for (const auto& e : r.errors) doc["errors"].push_back({{"line", e.line}, {"column", e.column}, {"message", e.message}});
  // Shader text may hold invalid UTF-8 (it ends up in messages): replace it rather than throw.
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string layout_table(const Reflection& r) {
  std::string out;
  for (const auto& s : r.structs) {
    out += fmt::format("struct {}  size {}  align {}\n", s->name, s->size, s->align);
    out += fmt::format("  {:>6} {:>6} {:>6} {:>7} {:>6}  {:<20} {}\n", "offset", "size", "align", "padding", "stride",
                       "member", "type");
    uint32_t end = 0;
    for (const auto& m : s->members) {
      std::string stride = m.type->kind == TypeKind::Array ? std::to_string(m.type->stride) : "";
      out += fmt::format("  {:>6} {:>6} {:>6} {:>7} {:>6}  {:<20} {}\n", m.offset, m.size, m.align, m.offset - end,
                         stride, m.name, m.type->name);
      end = m.offset + m.size;
    }
    if (s->size > end) out += fmt::format("  {:>6} {:>6} {:>6} {:>7} {:>6}  {:<20}\n", end, "", "", s->size - end, "", "(tail padding)");
    out += "\n";
  }
  if (!r.bindings.empty()) {
    out += fmt::format("{:>5} {:>7}  {:<20} {:<18} {:>10} {:>10}  {}\n", "group", "binding", "name", "space",
                       "minBinding", "portable", "type");
    for (const auto& b : r.bindings)
      out += fmt::format("{:>5} {:>7}  {:<20} {:<18} {:>10} {:>10}  {}\n", b.group, b.binding, b.name,
                         to_string(b.space), b.min_binding_size, b.portable_min_binding_size, b.type);
  }
  for (const auto& v : r.immediates)
    out += fmt::format("immediate  {:<20} {:>4} bytes  {}\n", v.name, v.size, v.type);
  for (const auto& e : r.errors) out += fmt::format("{}:{}: error [{}]: {}\n", e.line, e.column, to_string(e.kind), e.message);
  return out;
}

}  // namespace bindery
