// SPDX-License-Identifier: MIT
// Device tests of the GPU-driven parts working together (issue 20): the object table and the mesh
// pool feed Culling, which fills IndirectDraws' bins. What the GPU writes (every bin's
// DrawIndexedIndirect, the compacted arguments, the draw count, each bin's window of the instance
// remap) is read back and compared with a CPU model of the same structure written here: counts
// per mesh, exclusive prefix sums in bin order, the set of objects in each window.
#include <bindery/device.hpp>
#include <bindery/data/layout_builder.hpp>
#include <bindery/gpu_driven/culling.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/gpu_driven/mesh_pool.hpp>
#include <bindery/gpu_driven/object_table.hpp>
#include <bindery/headless/offscreen.hpp>
#include <bindery/scene.hpp>

#include "support/device.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace bindery {
namespace {

using namespace gpu_driven;

using test::shared_device;

// Bytes [offset, offset + size) of `src` (read_back_buffer) as 32-bit words.
std::vector<uint32_t> read_u32(const Device& device, WGPUBuffer src, uint64_t offset,
                               uint64_t size) {
  const std::vector<std::byte> bytes = read_back_buffer(device, src, offset, size);
  std::vector<uint32_t> out(size / 4);
  std::memcpy(out.data(), bytes.data(), size_t(size));
  return out;
}

// A box mesh of `k` boxes side by side (12 triangles each), so meshes differ in index count.
Mesh boxes(uint32_t k) {
  Mesh m;
  m.name = "boxes" + std::to_string(k);
  for (uint32_t b = 0; b < k; ++b) {
    const uint32_t base = static_cast<uint32_t>(m.vertices.size());
    for (uint32_t c = 0; c < 8; ++c) {
      Vertex v;
      v.position = glm::vec3(float(b) * 3 + ((c & 1) ? 1.0f : -1.0f), (c & 2) ? 1.0f : -1.0f,
                             (c & 4) ? 1.0f : -1.0f);
      m.vertices.push_back(v);
    }
    const uint32_t faces[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    for (uint32_t i : faces) m.indices.push_back(base + i);
  }
  m.bounds_min = glm::vec3(-1, -1, -1);
  m.bounds_max = glm::vec3(float(k - 1) * 3 + 1, 1, 1);
  return m;
}

struct Frame {
  std::vector<uint32_t> args, remap, counters, cull;
};

// One phase 1 over the table: flush, cull, build; read back what the GPU wrote.
Frame run_phase1(const Device& device, ObjectTable& table, const MeshPool& pool,
                 IndirectDraws& draws, Culling& culling, const glm::mat4& view_projection) {
  gpu::CommandEncoder encoder =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
  table.flush(encoder.get());
  culling.prepare(view_projection);
  WGPUComputePassDescriptor pd = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder.get(), &pd);
  culling.phase1(pass);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  gpu::Buffer stats = device.create_buffer("test stats", Culling::kStatsBytes,
                                           WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
  culling.copy_stats(encoder.get(), stats.get(), 0);
  gpu::CommandBuffer commands =
      gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  const WGPUCommandBuffer raw = commands.get();
  device.submit({&raw, 1});
  table.after_submit();
  device.check();
  Frame f;
  f.args = read_u32(device, draws.args_buffer(), 0, 2ull * draws.bins() * 20);
  f.remap = read_u32(device, draws.remap_buffer(), 0, uint64_t(table.capacity()) * 4);
  f.counters = read_u32(device, draws.counters_buffer(), 0, 20);
  f.cull = read_u32(device, stats.get(), 0, Culling::kStatsBytes);
  (void)pool;
  return f;
}

// With frustum culling off, every live object of a live mesh is drawn: bin m holds exactly the
// objects whose mesh is m, the bins' first instances are the exclusive prefix sums of their
// counts in mesh-id order, and the compacted arguments are the non-empty bins in that order.
TEST(GpuDrivenParts, BinsAndRemapMatchACpuModel) {
  const Device& device = shared_device();
  if (!device.has_indirect_first_instance()) GTEST_SKIP() << "no indirect-first-instance";
  MeshPool pool(device, {.label = "test pool", .vertex_stride = sizeof(Vertex),
                         .initial_vertices = 64, .initial_indices = 64});
  std::vector<MeshId> ids;
  for (uint32_t k = 1; k <= 5; ++k) ids.push_back(pool.add(boxes(k)));
  pool.remove(ids[2]);  // a dead bin: no object may land there
  ObjectTable table(device, {.label = "test objects", .initial_capacity = 64});
  IndirectDraws draws(device, table, pool, {.label = "test draws", .path = DrawPath::loop});
  Culling culling(device, table, pool, draws, nullptr, {.frustum = false, .occlusion = false});

  std::mt19937 rng(7);
  std::map<ObjectId, MeshId> live;
  const MeshId choices[] = {ids[0], ids[1], ids[3], ids[4]};
  for (int i = 0; i < 300; ++i) {
    const MeshId m = choices[rng() % 4];
    live[table.add(glm::translate(glm::mat4(1.0f), glm::vec3(float(i), 0, 0)), m, 0)] = m;
  }
  for (int i = 0; i < 40; ++i) {  // remove 40 at random; their ids must vanish from the bins
    auto it = std::next(live.begin(), rng() % live.size());
    table.remove(it->first);
    live.erase(it);
  }
  const Frame f = run_phase1(device, table, pool, draws, culling, glm::mat4(1.0f));

  const uint32_t bins = draws.bins();
  std::vector<std::set<uint32_t>> model(bins);
  for (const auto& [object, mesh] : live) model[mesh].insert(object);
  uint32_t first = 0, compact = 0;
  for (uint32_t b = 0; b < bins; ++b) {
    const uint32_t* a = &f.args[b * 5];
    const uint32_t count = static_cast<uint32_t>(model[b].size());
    SCOPED_TRACE("bin " + std::to_string(b));
    EXPECT_EQ(a[1], count);
    EXPECT_EQ(a[4], first);
    if (pool.contains(b)) {
      const MeshRange& r = pool.range(b);
      EXPECT_EQ(a[0], r.index_count);
      EXPECT_EQ(a[2], r.first_index);
      EXPECT_EQ(static_cast<int32_t>(a[3]), r.base_vertex);
    } else {
      EXPECT_EQ(a[0], 0u);  // a removed mesh draws nothing
    }
    const std::set<uint32_t> window(f.remap.begin() + first, f.remap.begin() + first + count);
    EXPECT_EQ(window, model[b]);
    if (count > 0) {
      const uint32_t* c = &f.args[(bins + compact) * 5];
      EXPECT_EQ(std::vector<uint32_t>(c, c + 5), std::vector<uint32_t>(a, a + 5));
      ++compact;
    }
    first += count;
  }
  EXPECT_EQ(f.counters[0], live.size());  // entries appended
  EXPECT_EQ(f.counters[1], compact);      // sub-draws: the non-empty bins
  EXPECT_EQ(f.counters[4], compact);      // pipeline 0's draw count
  EXPECT_EQ(f.cull[2], live.size());      // drawn
  EXPECT_EQ(f.cull[3], compact);
}

// Frustum culling by each mesh's bounding sphere under the object's world matrix: objects placed
// by hand well inside and well outside an orthographic view volume.
TEST(GpuDrivenParts, TheObjectGroupHelpersNameTheTableAndTheRemap) {
  // The group every vertex stage of the draws reads (issue 26): entries at the bindings asked
  // for, the table's buffer and the remap; WGSL that compiles with them; a generation that
  // changes when the table grows (its buffer replaced) and not otherwise.
  const Device& device = shared_device();
  MeshPool pool(device, {.label = "test pool", .vertex_stride = sizeof(Vertex),
                         .initial_vertices = 64, .initial_indices = 64});
  const MeshId mesh = pool.add(boxes(1));
  ObjectTable table(device, {.label = "test objects", .initial_capacity = 4});
  IndirectDraws draws(device, table, pool, {.label = "test draws", .path = DrawPath::loop});
  const auto layout = IndirectDraws::object_layout_entries(3, WGPUShaderStage_Vertex);
  ASSERT_EQ(layout.size(), 2u);
  EXPECT_EQ(layout[0].binding, 3u);
  EXPECT_EQ(layout[1].binding, 4u);
  EXPECT_EQ(layout[0].buffer.type, WGPUBufferBindingType_ReadOnlyStorage);
  const std::vector<WGPUBindGroupEntry> entries = draws.object_group_entries(3);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].buffer, table.buffer());
  EXPECT_EQ(entries[1].buffer, draws.remap_buffer());
  // The declarations and a vertex stage that reads them, as an application writes it.
  const std::string wgsl = IndirectDraws::object_wgsl(1, 3) +
                           "@vertex fn vs(@builtin(instance_index) i: u32) -> "
                           "@builtin(position) vec4f {\n"
                           "  return vec4f(object_transform(objects[remap[i]], vec3f(0.0)), 1.0);\n"
                           "}\n";
  EXPECT_NE(wgsl.find("@group(1) @binding(3) var<storage, read> objects: array<ObjectRecord>;"),
            std::string::npos);
  EXPECT_NE(wgsl.find("@group(1) @binding(4) var<storage, read> remap: array<u32>;"),
            std::string::npos);
  const gpu::BindGroupLayout bgl = create_bind_group_layout(device, "objects", layout);
  const gpu::BindGroup group = create_bind_group(device, "objects", bgl.get(), entries);
  {
    const gpu::ShaderModule module = device.create_shader_module("object group test", wgsl);
    EXPECT_NO_THROW(device.check()) << "the declarations compile";
    EXPECT_TRUE(group);
  }
  const uint64_t g0 = draws.object_group_generation();
  table.add(glm::mat4(1.0f), mesh, 0);
  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
  table.flush(encoder.get());
  draws.prepare();
  EXPECT_EQ(draws.object_group_generation(), g0) << "nothing replaced";
  for (int i = 0; i < 10; ++i) table.add(glm::mat4(1.0f), mesh, 0);  // past 4 records: grows
  table.flush(encoder.get());
  draws.prepare();
  EXPECT_NE(draws.object_group_generation(), g0);
  EXPECT_EQ(draws.object_group_entries(0)[0].buffer, table.buffer());
  EXPECT_EQ(draws.object_group_entries(0)[1].buffer, draws.remap_buffer());
  auto commands = device.finish(encoder.get(), "object group test");
  const WGPUCommandBuffer raw = commands.get();
  device.submit({&raw, 1});
  table.after_submit();
}

TEST(GpuDrivenParts, FrustumCullingByHand) {
  const Device& device = shared_device();
  if (!device.has_indirect_first_instance()) GTEST_SKIP() << "no indirect-first-instance";
  MeshPool pool(device, {.label = "test pool"});
  const MeshId box = pool.add(boxes(1));  // sphere radius sqrt(3) about the origin
  ObjectTable table(device, {.label = "test objects", .initial_capacity = 8});
  IndirectDraws draws(device, table, pool, {.label = "test draws", .path = DrawPath::loop});
  Culling culling(device, table, pool, draws, nullptr, {.frustum = true, .occlusion = false});
  // WebGPU clip space of glm::orthoRH_ZO(-10, 10, -10, 10, 0, 100): x, y in [-10, 10], z in
  // [-100, 0] (looking down -z).
  const glm::mat4 vp = glm::orthoRH_ZO(-10.0f, 10.0f, -10.0f, 10.0f, 0.0f, 100.0f);
  auto at = [](float x, float y, float z, float s) {
    return glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(x, y, z)), glm::vec3(s));
  };
  table.add(at(0, 0, -50, 1), box, 0);     // inside
  table.add(at(9, 9, -50, 1), box, 0);     // inside, its sphere crosses two planes
  table.add(at(13, 0, -50, 1), box, 0);    // 13 - sqrt(3) > 10: outside
  table.add(at(13, 0, -50, 3), box, 0);    // scale 3: radius 5.2 reaches x = 7.8: inside
  table.add(at(0, 0, 5, 1), box, 0);       // behind the near plane by more than its radius
  table.add(at(0, 0, -150, 1), box, 0);    // past the far plane
  const Frame f = run_phase1(device, table, pool, draws, culling, vp);
  EXPECT_EQ(f.cull[0], 3u);  // after frustum
  EXPECT_EQ(f.cull[2], 3u);  // drawn
  const std::set<uint32_t> drawn(f.remap.begin(), f.remap.begin() + 3);
  EXPECT_EQ(drawn, (std::set<uint32_t>{0, 1, 3}));
}

}  // namespace
}  // namespace bindery
