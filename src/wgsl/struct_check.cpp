// SPDX-License-Identifier: MIT
// check_struct_matches(): C++ struct versus reflected WGSL struct.
#include <bindery/wgsl/struct_check.hpp>

#include <fmt/format.h>

namespace bindery {

void check_struct_matches(const StructLayout& wgsl, std::string_view host_name, std::size_t host_size,
                          std::span<const HostField> fields, StructCheck mode) {
  auto fail = [&](const std::string& msg) {
    throw Error(ErrorKind::StructMismatch,
                fmt::format("C++ struct '{}' vs WGSL struct '{}': {}", host_name, wgsl.name, msg));
  };
  for (const HostField& f : fields) {
    const StructMember* m = wgsl.find_member(f.name);
    if (!m) fail(fmt::format("field '{}' (C++ offset {}) has no WGSL member of that name", f.name, f.offset));
    if (f.offset != m->offset)
      fail(fmt::format("field '{}': C++ offset {}, WGSL offset {} ({})", f.name, f.offset, m->offset, m->type->name));
    if (f.size < m->type->size || f.size > m->size)
      fail(fmt::format("field '{}': C++ size {} bytes, WGSL size {} bytes ({}{}){}", f.name, f.size, m->type->size,
                       m->type->name, m->size != m->type->size ? fmt::format(", @size({})", m->size) : "",
                       m->type->kind == TypeKind::Matrix && m->type->rows == 3
                           ? " — a matCx3 column is 16 bytes: use float[4*C] or glm::mat{C}x4"
                           : ""));
  }
  if (mode == StructCheck::Complete) {
    for (const StructMember& m : wgsl.members) {
      bool listed = false;
      for (const HostField& f : fields) listed = listed || f.name == m.name;
      if (!listed) fail(fmt::format("WGSL member '{}' (offset {}, {}) has no C++ field", m.name, m.offset, m.type->name));
    }
  }
  if (host_size > wgsl.size)
    fail(fmt::format("sizeof is {} bytes, more than the WGSL struct's {} bytes", host_size, wgsl.size));
}

}  // namespace bindery
