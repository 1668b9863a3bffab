// libFuzzer target: arbitrary bytes into reflect_wgsl() must never crash, hang or throw, and the
// layout it reports must be self-consistent (members inside the struct, offsets aligned).
// Built and run by fuzz/run.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <bindery/struct_view.hpp>
#include <bindery/wgsl_layout.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  bindery::ReflectOptions options{.uniform_buffer_standard_layout = size > 0 && (data[0] & 1)};
  bindery::Reflection r = bindery::reflect_wgsl(src, options);

  for (const auto& e : r.errors)
    if (e.line == 0 || e.column == 0 || e.message.empty()) std::abort();
  for (const auto& s : r.structs) {
    if (s->align == 0 || (s->align & (s->align - 1)) != 0 || s->size % s->align != 0) std::abort();
    for (const auto& m : s->members) {
      if (m.align == 0 || m.offset % m.align != 0 || uint64_t{m.offset} + m.size > s->size) std::abort();
      // Every member resolves and can be written as raw bytes inside a view of SizeOf(S).
      bindery::FieldRef f = s->field(m.name);
      if (s->size <= (1u << 20)) {
        std::vector<std::byte> bytes(s->size);
        bindery::StructView view(*s, bytes);
        if (!m.type->is_runtime_array()) {
          std::vector<std::byte> value(f.size);
          view.set_bytes(f, value);
        }
      }
    }
  }
  (void)bindery::layout_json(r);
  (void)bindery::layout_table(r);
  return 0;
}
