// SPDX-License-Identifier: MIT
// fuzz/targets.hpp — the bodies of bindery's libFuzzer targets, shared by the fuzzers
// (fuzz/*_fuzz.cpp, run by fuzz/run.sh) and by tests/package/fuzz_regression_test.cpp, which
// replays every input kept in tests/data/fuzz/<target>/ (crashes the fuzzers found, once fixed).
//
// Each target feeds arbitrary bytes to one input format through bindery's own entry points. The
// only allowed outcome for bad input is a bindery::Error (caught here); anything else — another
// exception type (std::terminate), a sanitizer report, a hang, or output that breaks an invariant
// checked below (std::abort) — is a finding.
#pragma once

#include <bindery/encode/bind_group_plan.hpp>
#include <bindery/core/error.hpp>
#include <bindery/render/scene.hpp>
#include <bindery/wgsl/struct_view.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include "render/scenes/resource_resolver.hpp"  // private: the fuzz and test targets add src/

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace bindery::fuzz {

/// Arbitrary bytes into reflect_wgsl(): never a crash, hang or throw, and a self-consistent
/// layout (members inside their struct, offsets aligned, every member writable through a view).
inline void wgsl(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  ReflectOptions options{.uniform_buffer_standard_layout = size > 0 && (data[0] & 1)};
  Reflection r = reflect_wgsl(src, options);

  for (const auto& e : r.errors)
    if (e.line == 0 || e.column == 0 || e.message.empty()) std::abort();
  for (const auto& s : r.structs) {
    if (s->align == 0 || (s->align & (s->align - 1)) != 0 || s->size % s->align != 0) std::abort();
    for (const auto& m : s->members) {
      if (m.align == 0 || m.offset % m.align != 0 || uint64_t{m.offset} + m.size > s->size)
        std::abort();
      FieldRef f = s->field(m.name);
      if (s->size <= (1u << 20)) {
        std::vector<std::byte> bytes(s->size);
        StructView view(*s, bytes);
        if (!m.type->is_runtime_array()) {
          std::vector<std::byte> value(f.size);
          view.set_bytes(f, value);
        }
      }
    }
  }
  (void)layout_json(r);
  (void)layout_table(r);
}

/// Arbitrary bytes as a `bindery plan` scene description: parse_plan_input(), plan_bind_groups()
/// and the three reports. Bad input must be a bindery::Error; a plan must add up (the totals are
/// the sums over the groups, every binding sits in the group that lists it, split arrays have as
/// many windows as their objects need).
inline void plan(const uint8_t* data, size_t size) {
  try {
    const PlanInput input =
        parse_plan_input(std::string_view(reinterpret_cast<const char*>(data), size));
    const BindGroupPlan p = plan_bind_groups(input);
    uint64_t calls = 0, groups = 0;
    for (const PlannedGroup& g : p.groups) {
      calls += g.set_bind_group_per_pass;
      groups += g.bind_groups_created;
      if (g.windows == 0) std::abort();
      for (uint32_t m : g.members)
        if (m >= p.bindings.size() || p.bindings[m].group != g.index) std::abort();
    }
    if (calls != p.set_bind_group_per_pass || groups != p.bind_groups_created) std::abort();
    if (p.set_bind_group_per_frame != p.set_bind_group_per_pass * p.stats.passes) std::abort();
    for (const PlannedBinding& b : p.bindings) {
      if (b.windows == 0) continue;
      const uint64_t need = (p.stats.objects + b.objects_per_window - 1) / b.objects_per_window;
      if (b.objects_per_window == 0 || b.windows != need) std::abort();
    }
    (void)p.to_text();
    (void)p.to_json();
    (void)p.wgsl_declarations();
  } catch (const Error&) {
  }
}

/// Arbitrary bytes as a glTF 2.0 file (JSON or GLB: the loader tells them apart by the GLB magic)
/// through load_gltf_scene(), which takes a path: the bytes are written to a per-process file
/// (under /dev/shm when it exists, to keep the disk out of the loop). A loaded scene must be
/// drawable: whole triangles, indices below the vertex count, objects naming existing meshes and
/// materials, materials naming existing textures, each texture level w x h x 4 bytes.
inline void gltf(const uint8_t* data, size_t size) {
  static const std::string path = [] {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::is_directory("/dev/shm", ec)
                                    ? std::filesystem::path("/dev/shm")
                                    : std::filesystem::temp_directory_path();
    dir /= "bindery_gltf_fuzz_" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    return (dir / "input.gltf").string();
  }();
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
  }
  try {
    const Scene s = load_gltf_scene(path, 1 + (size > 0 ? data[size - 1] % 3 : 0));
    for (const Mesh& m : s.meshes) {
      if (m.indices.size() % 3 != 0) std::abort();
      for (uint32_t i : m.indices)
        if (i >= m.vertices.size()) std::abort();
    }
    for (const Object& o : s.objects)
      if (o.mesh >= s.meshes.size() || o.material >= s.materials.size()) std::abort();
    for (const Material& m : s.materials)
      if (m.texture >= s.textures.size()) std::abort();
    for (const TextureData& t : s.textures) {
      if (t.mips.empty() || t.width == 0 || t.height == 0) std::abort();
      if (t.mips[0].size() != size_t(t.width) * t.height * 4) std::abort();
    }
    std::vector<ObjectTransform> transforms;
    s.animate(0.5f, transforms);
  } catch (const Error&) {
  }
}

/// Arbitrary bytes as a resource URI through resolve_model_resource(), against a fixed folder
/// tree (per process, under /dev/shm when it exists) with symbolic links in and out:
///   ROOT/outside.bin  ROOT/m/a.bin  ROOT/m/x/b.bin  ROOT/m/in -> x/b.bin  ROOT/m/out ->
///   ../outside.bin  ROOT/m/abs_out -> ROOT/outside.bin  ROOT/m/x/up -> ../..  ROOT/m/loop -> loop
/// The model's folder is ROOT/m. Bad input must be a bindery::Error (ModelLoad or Io); an
/// accepted URI must name a regular file strictly inside ROOT/m by canonical path.
inline void resolver(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const fs::path root = [] {
    std::error_code ec;
    fs::path dir = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm")
                                                     : fs::temp_directory_path();
    dir /= "bindery_resolver_fuzz_" + std::to_string(getpid());
    fs::remove_all(dir, ec);
    fs::create_directories(dir / "m" / "x");
    for (const char* f : {"outside.bin", "m/a.bin", "m/x/b.bin"})
      if (FILE* out = std::fopen((dir / f).c_str(), "wb")) std::fclose(out);
    fs::create_symlink("x/b.bin", dir / "m" / "in");
    fs::create_symlink("../outside.bin", dir / "m" / "out");
    fs::create_symlink(dir / "outside.bin", dir / "m" / "abs_out");
    fs::create_symlink("../..", dir / "m" / "x" / "up");
    fs::create_symlink("loop", dir / "m" / "loop");
    return fs::canonical(dir);
  }();
  const std::string uri(reinterpret_cast<const char*>(data), size);
  try {
    const fs::path p = resolve_model_resource(root / "m", uri);
    const std::string inside = (root / "m").string() + "/";
    struct stat st {};
    if (p != fs::canonical(p) || p.string().rfind(inside, 0) != 0 ||
        ::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      std::abort();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::ModelLoad && e.kind() != ErrorKind::Io) std::abort();
  }
}

}  // namespace bindery::fuzz
