// SPDX-License-Identifier: MIT
// bindery/gpu_driven/mesh_pool.hpp on a device (lavapipe on CPU-only machines). Randomized
// add / remove / replace sequences with tiny initial capacities (so the buffers grow often) run
// against a CPU model that predicts every offset (best fit), every capacity (the documented growth
// policy: max(2 x capacity, needed)), every id (lowest free first) and every byte uploaded; after
// each step the vertex, index and mesh-table buffers are read back through a MAP_READ copy and
// every live mesh's bytes, its range and its record compared with the model. MeshRecord offsets in
// the checks are hand-worked from WGSL §14.4.1 (three vec4f at 0, 16, 32, then four 4-byte
// scalars at 48..60; stride 64), not taken from bindery.
#include "support/expect_kind.hpp"
#include "unit_model.hpp"
#include "bindery/device.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace bindery::gpu_driven {
namespace {

constexpr uint32_t kStride = 20;  // float32x3 position + 8 bytes of pattern
constexpr uint64_t kRecord = 64;  // SizeOf(MeshRecord), hand-worked

class MeshPoolDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    DeviceOptions o;
    o.want_timestamp_query = false;
    device_ = std::make_unique<Device>(Device::create(o));
  }
  static void TearDownTestSuite() { device_.reset(); }
  static const Device& dev() { return *device_; }

  // The first `size` bytes of `src` (COPY_SRC), through a MAP_READ copy.
  static std::vector<std::byte> read_back(WGPUBuffer src, uint64_t size) {
    const Device& d = dev();
    gpu::Buffer rb =
        d.create_buffer("readback", size, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
    gpu::CommandEncoder enc =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
    wgpuCommandEncoderCopyBufferToBuffer(enc.get(), src, 0, rb.get(), 0, size);
    gpu::CommandBuffer cb =
        gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc.get(), nullptr));
    const WGPUCommandBuffer raw = cb.get();
    d.submit(std::span(&raw, 1));
    struct Done {
      bool done = false;
      WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
    } done;
    WGPUBufferMapCallbackInfo info = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
    info.mode = WGPUCallbackMode_AllowProcessEvents;
    info.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* u1, void*) {
      auto* dn = static_cast<Done*>(u1);
      dn->done = true;
      dn->status = status;
    };
    info.userdata1 = &done;
    wgpuBufferMapAsync(rb.get(), WGPUMapMode_Read, 0, size_t(size), info);
    for (int i = 0; i < 1000 && !done.done; ++i) d.poll(true);
    EXPECT_EQ(done.status, WGPUMapAsyncStatus_Success);
    std::vector<std::byte> out(size);
    if (done.status == WGPUMapAsyncStatus_Success) {
      std::memcpy(out.data(), wgpuBufferGetConstMappedRange(rb.get(), 0, size_t(size)), size);
      wgpuBufferUnmap(rb.get());
    }
    return out;
  }

 private:
  static inline std::unique_ptr<Device> device_;
};

// A mesh as the test made it: vertex bytes, indices, and its box worked out here.
struct TestMesh {
  std::vector<std::byte> vertices;
  std::vector<uint32_t> indices;
  float lo[3] = {}, hi[3] = {};
};

TestMesh make_mesh(std::mt19937& rng, uint32_t vertex_count, uint32_t index_count) {
  TestMesh m;
  m.vertices.resize(size_t(vertex_count) * kStride);
  std::uniform_real_distribution<float> coord(-50.0f, 50.0f);
  for (uint32_t v = 0; v < vertex_count; ++v) {
    float p[3] = {coord(rng), coord(rng), coord(rng)};
    std::memcpy(&m.vertices[size_t(v) * kStride], p, sizeof(p));
    for (uint32_t b = 12; b < kStride; ++b) m.vertices[size_t(v) * kStride + b] = std::byte(rng());
    for (int a = 0; a < 3; ++a) {
      m.lo[a] = v == 0 ? p[a] : std::min(m.lo[a], p[a]);
      m.hi[a] = v == 0 ? p[a] : std::max(m.hi[a], p[a]);
    }
  }
  for (uint32_t i = 0; i < index_count; ++i) m.indices.push_back(rng() % vertex_count);
  return m;
}

template <class T>
T load(const std::vector<std::byte>& bytes, uint64_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

// The pool as the test expects it: allocations per buffer, capacities, ids, growths, bytes.
struct PoolModel {
  UnitModel vertices, indices;
  uint64_t table_records = 0;
  uint32_t next_id = 0;
  std::set<uint32_t> free_ids;
  struct Live {
    TestMesh mesh;
    uint64_t base_vertex = 0, first_index = 0;
  };
  std::map<uint32_t, Live> live;
  uint32_t growths = 0;
  uint64_t bytes = 0;

  // Best fit, else growth to max(2 x capacity, capacity + size - free tail), then best fit.
  uint64_t allocate(UnitModel& m, uint64_t size) {
    if (auto o = m.best_fit(size)) {
      m.take(*o, size);
      return *o;
    }
    const uint64_t cap = m.used.size();
    const uint64_t needed = cap + size - std::min(size, m.free_tail());
    m.used.resize(std::max(cap * 2, needed), false);
    ++growths;
    const uint64_t o = m.best_fit(size).value();
    m.take(o, size);
    return o;
  }
  uint32_t add(TestMesh mesh) {
    Live l;
    l.base_vertex = allocate(vertices, mesh.vertices.size() / kStride);
    l.first_index = allocate(indices, mesh.indices.size());
    uint32_t id;
    if (!free_ids.empty()) {
      id = *free_ids.begin();
      free_ids.erase(free_ids.begin());
    } else {
      id = next_id++;
      if (id >= table_records) {
        table_records *= 2;
        ++growths;
      }
    }
    bytes += mesh.vertices.size() + mesh.indices.size() * 4 + kRecord;
    l.mesh = std::move(mesh);
    live[id] = std::move(l);
    return id;
  }
  void remove(uint32_t id) {
    const Live& l = live.at(id);
    vertices.give_back(l.base_vertex);
    indices.give_back(l.first_index);
    live.erase(id);
    free_ids.insert(id);
    bytes += kRecord;
  }
};

void expect_record(const std::vector<std::byte>& table, uint32_t id, const PoolModel::Live* l) {
  const uint64_t at = uint64_t{id} * kRecord;
  if (!l) {
    EXPECT_EQ(load<uint32_t>(table, at + 48), 0u) << "removed id " << id << " still draws";
    return;
  }
  const TestMesh& m = l->mesh;
  for (int a = 0; a < 3; ++a) {
    const double center = (double(m.lo[a]) + m.hi[a]) / 2.0;
    EXPECT_NEAR(load<float>(table, at + 4 * a), center, 1e-4) << "sphere center, id " << id;
    EXPECT_EQ(load<float>(table, at + 16 + 4 * a), m.lo[a]) << "boxMin, id " << id;
    EXPECT_EQ(load<float>(table, at + 32 + 4 * a), m.hi[a]) << "boxMax, id " << id;
  }
  const double dx = double(m.hi[0]) - m.lo[0], dy = double(m.hi[1]) - m.lo[1],
               dz = double(m.hi[2]) - m.lo[2];
  EXPECT_NEAR(load<float>(table, at + 12), std::sqrt(dx * dx + dy * dy + dz * dz) / 2.0, 1e-4);
  EXPECT_EQ(load<uint32_t>(table, at + 48), m.indices.size()) << "indexCount, id " << id;
  EXPECT_EQ(load<uint32_t>(table, at + 52), l->first_index) << "firstIndex, id " << id;
  EXPECT_EQ(load<int32_t>(table, at + 56), int64_t(l->base_vertex)) << "baseVertex, id " << id;
  EXPECT_EQ(load<uint32_t>(table, at + 60), m.vertices.size() / kStride) << "vertexCount";
}

// Everything the pool says and holds on the GPU, against the model.
void expect_pool_matches(const MeshPool& pool, const PoolModel& model,
                         const std::vector<std::byte>& vb, const std::vector<std::byte>& ib,
                         const std::vector<std::byte>& table) {
  const MeshPoolStats s = pool.stats();
  ASSERT_EQ(s.vertex_capacity, model.vertices.used.size());
  ASSERT_EQ(s.index_capacity, model.indices.used.size());
  ASSERT_EQ(pool.mesh_table_size(), model.table_records * kRecord);
  EXPECT_EQ(s.meshes, model.live.size());
  EXPECT_EQ(s.growths, model.growths);
  EXPECT_EQ(pool.generation(), model.growths);
  EXPECT_EQ(s.bytes_uploaded, model.bytes);
  EXPECT_EQ(pool.id_capacity(), model.next_id);
  EXPECT_EQ(wgpuBufferGetSize(pool.vertex_buffer()), s.vertex_capacity * kStride);
  EXPECT_EQ(wgpuBufferGetSize(pool.index_buffer()), s.index_capacity * 4);
  uint64_t vertices_used = 0, indices_used = 0;
  for (uint32_t id = 0; id < model.next_id; ++id) {
    const auto it = model.live.find(id);
    EXPECT_EQ(pool.contains(id), it != model.live.end()) << "id " << id;
    expect_record(table, id, it == model.live.end() ? nullptr : &it->second);
    if (it == model.live.end()) continue;
    const PoolModel::Live& l = it->second;
    const MeshRange& r = pool.range(id);
    EXPECT_EQ(r.base_vertex, int64_t(l.base_vertex)) << "id " << id;
    EXPECT_EQ(r.first_index, l.first_index) << "id " << id;
    EXPECT_EQ(r.vertex_count, l.mesh.vertices.size() / kStride);
    EXPECT_EQ(r.index_count, l.mesh.indices.size());
    vertices_used += r.vertex_count;
    indices_used += r.index_count;
    EXPECT_EQ(std::memcmp(vb.data() + l.base_vertex * kStride, l.mesh.vertices.data(),
                          l.mesh.vertices.size()),
              0)
        << "vertex bytes of id " << id;
    EXPECT_EQ(std::memcmp(ib.data() + l.first_index * 4, l.mesh.indices.data(),
                          l.mesh.indices.size() * 4),
              0)
        << "index bytes of id " << id;
  }
  // The model's units are disjoint by construction; the pool's used counts agree with them.
  EXPECT_EQ(s.vertices_used, vertices_used);
  EXPECT_EQ(s.indices_used, indices_used);
}

void run_sequence(const Device& d, uint32_t seed, int steps,
                  std::vector<std::byte> (*read)(WGPUBuffer, uint64_t)) {
  std::mt19937 rng(seed);
  MeshPool pool(d, {.label = "random pool", .vertex_stride = kStride, .initial_vertices = 8,
                    .initial_indices = 6, .initial_ids = 2});
  PoolModel model;
  model.vertices.used.assign(8, false);
  model.indices.used.assign(6, false);
  model.table_records = 2;
  const Counters before = d.counters();
  int same_offsets = 0;
  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " step " << step);
    const uint32_t pick = rng() % 100;
    if (pick < 55 || model.live.empty()) {
      TestMesh m = make_mesh(rng, 1 + rng() % 40, 3 * (1 + rng() % 20));
      const MeshId id = pool.add(m.vertices, m.indices);
      ASSERT_EQ(id, model.add(std::move(m)));
    } else {
      auto it = model.live.begin();
      std::advance(it, rng() % model.live.size());
      const uint32_t id = it->first;
      const uint64_t vc = it->second.mesh.vertices.size() / kStride;
      const uint64_t ic = it->second.mesh.indices.size();
      const uint64_t old_vertex = it->second.base_vertex, old_index = it->second.first_index;
      pool.remove(id);
      model.remove(id);
      if (pick >= 85) {  // replace: a mesh of the same size right after the remove
        TestMesh m = make_mesh(rng, uint32_t(vc), uint32_t(ic));
        const MeshId again = pool.add(m.vertices, m.indices);
        ASSERT_EQ(again, model.add(std::move(m)));
        const MeshRange& r = pool.range(again);
        same_offsets += uint64_t(r.base_vertex) == old_vertex && r.first_index == old_index;
      }
    }
    const MeshPoolStats s = pool.stats();
    const auto vb = read(pool.vertex_buffer(), s.vertex_capacity * kStride);
    const auto ib = read(pool.index_buffer(), s.index_capacity * 4);
    const auto table = read(pool.mesh_table(), pool.mesh_table_size());
    ASSERT_NO_FATAL_FAILURE(expect_pool_matches(pool, model, vb, ib, table));
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(model.growths, 3u);  // the sequence did exercise growth
  EXPECT_GT(same_offsets, 0);    // and a replaced mesh landed where the removed one was
  const Counters delta = d.counters() - before;
  EXPECT_EQ(delta.bytes_uploaded, model.bytes);  // readbacks upload nothing
  // One buffer per growth, one MAP_READ buffer per readback (3 per step).
  EXPECT_EQ(delta.buffers_created, model.growths + 3u * uint64_t(steps));
}

TEST_F(MeshPoolDevice, RandomSequencesMatchTheModel) {
  for (uint32_t seed : {7u, 8u, 9u}) {
    run_sequence(dev(), seed, 120, &read_back);
    if (HasFailure()) return;
  }
}

TEST_F(MeshPoolDevice, RemoveThenAddOfTheSameSizeReusesTheRanges) {
  std::mt19937 rng(1);
  MeshPool pool(dev(), {.vertex_stride = kStride, .initial_vertices = 64, .initial_indices = 64});
  const TestMesh a = make_mesh(rng, 4, 6), b = make_mesh(rng, 5, 9), c = make_mesh(rng, 3, 3);
  const MeshId ia = pool.add(a.vertices, a.indices), ib = pool.add(b.vertices, b.indices);
  const MeshId ic = pool.add(c.vertices, c.indices);
  EXPECT_EQ(ia, 0u);
  EXPECT_EQ(ib, 1u);
  EXPECT_EQ(ic, 2u);
  EXPECT_EQ(pool.range(ib).base_vertex, 4);
  EXPECT_EQ(pool.range(ib).first_index, 6u);
  pool.remove(ib);
  EXPECT_FALSE(pool.contains(ib));
  const TestMesh d = make_mesh(rng, 5, 9);
  const MeshId id = pool.add(d.vertices, d.indices);
  EXPECT_EQ(id, 1u);
  EXPECT_EQ(pool.range(id).base_vertex, 4);
  EXPECT_EQ(pool.range(id).first_index, 6u);
  EXPECT_EQ(pool.stats().vertices_used, 12u);
  EXPECT_EQ(pool.generation(), 0u);
}

// Capacity 4 vertices with 3 used: a second 3-vertex mesh needs 4 + 3 - 1 (free tail) = 6, and
// the buffer doubles to 8; the first mesh stays at 0 with its bytes, the second at 3.
TEST_F(MeshPoolDevice, GrowthDoublesAndKeepsOffsetsAndBytes) {
  std::mt19937 rng(2);
  MeshPool pool(dev(), {.vertex_stride = kStride, .initial_vertices = 4, .initial_indices = 64});
  const TestMesh a = make_mesh(rng, 3, 3), b = make_mesh(rng, 3, 3);
  const MeshId ia = pool.add(a.vertices, a.indices);
  const WGPUBuffer before = pool.vertex_buffer();
  EXPECT_EQ(pool.generation(), 0u);
  const MeshId ib = pool.add(b.vertices, b.indices);
  EXPECT_EQ(pool.generation(), 1u);
  EXPECT_NE(pool.vertex_buffer(), before);
  EXPECT_EQ(pool.stats().vertex_capacity, 8u);
  EXPECT_EQ(pool.range(ia).base_vertex, 0);
  EXPECT_EQ(pool.range(ib).base_vertex, 3);
  const auto vb = read_back(pool.vertex_buffer(), 8 * kStride);
  EXPECT_EQ(std::memcmp(vb.data(), a.vertices.data(), a.vertices.size()), 0);
  EXPECT_EQ(std::memcmp(vb.data() + 3 * kStride, b.vertices.data(), b.vertices.size()), 0);
  // 20 more vertices: needed 8 + 20 - 2 = 26 > 16, so exactly 26.
  const TestMesh c = make_mesh(rng, 20, 3);
  const MeshId ic = pool.add(c.vertices, c.indices);
  EXPECT_EQ(pool.stats().vertex_capacity, 26u);
  EXPECT_EQ(pool.range(ic).base_vertex, 6);
}

TEST_F(MeshPoolDevice, AddMeshUsesItsBoxAndTheVertexLayout) {
  Mesh mesh;
  mesh.name = "tri";
  mesh.vertices.resize(3);
  mesh.vertices[0].position = {0, 0, 0};
  mesh.vertices[1].position = {1, 0, 0};
  mesh.vertices[2].position = {0, 1, 0};
  mesh.vertices[2].color = {1, 2, 3, 4};
  mesh.indices = {0, 1, 2};
  mesh.bounds_min = {-1, -2, -3};  // the Mesh's own box, larger than its positions
  mesh.bounds_max = {3, 2, 1};
  MeshPool pool(dev());
  const MeshId id = pool.add(mesh);
  const MeshRange& r = pool.range(id);
  EXPECT_EQ(r.bounds.box_min, glm::vec3(-1, -2, -3));
  EXPECT_EQ(r.bounds.box_max, glm::vec3(3, 2, 1));
  EXPECT_EQ(glm::vec3(r.bounds.sphere), glm::vec3(1, 0, -1));  // the box's center
  EXPECT_NEAR(r.bounds.sphere.w, std::sqrt(48.0) / 2.0, 1e-5);  // half of |(4, 4, 4)|
  const auto vb = read_back(pool.vertex_buffer(), 3 * 36);
  EXPECT_EQ(std::memcmp(vb.data(), mesh.vertices.data(), 3 * 36), 0);
  MeshPool other(dev(), {.vertex_stride = 20});
  EXPECT_KIND(other.add(mesh), InvalidArgument);
}

// Issue 26: a Mesh left with Mesh's default bounds (both corners 0) was culled with a box of
// zero size, so visible objects vanished; now the box of its positions is used.
TEST_F(MeshPoolDevice, AddMeshComputesBoundsThatAreNotSet) {
  Mesh mesh;
  mesh.name = "tri";
  mesh.vertices.resize(4);
  mesh.vertices[0].position = {-2, 0.5f, 1};
  mesh.vertices[1].position = {1, -3, 1};
  mesh.vertices[2].position = {0, 4, -5};
  mesh.vertices[3].position = {0.25f, 0, 2};
  mesh.indices = {0, 1, 2, 0, 2, 3};
  MeshPool pool(dev());
  const MeshRange& r = pool.range(pool.add(mesh));
  // Per axis, the smallest and largest coordinate of the four positions above.
  EXPECT_EQ(r.bounds.box_min, glm::vec3(-2, -3, -5));
  EXPECT_EQ(r.bounds.box_max, glm::vec3(1, 4, 2));
  EXPECT_EQ(glm::vec3(r.bounds.sphere), glm::vec3(-0.5f, 0.5f, -1.5f));  // the box's center
  EXPECT_NEAR(r.bounds.sphere.w, std::sqrt(9.0 + 49.0 + 49.0) / 2.0, 1e-5);  // |(3, 7, 7)| / 2
}

TEST_F(MeshPoolDevice, AddMeshRefusesBoundsThatMissAVertex) {
  Mesh mesh;
  mesh.name = "crate";
  mesh.vertices.resize(3);
  mesh.vertices[0].position = {0, 0, 0};
  mesh.vertices[1].position = {1, 0, 0};
  mesh.vertices[2].position = {0, 1, 0.5f};
  mesh.indices = {0, 1, 2};
  MeshPool pool(dev());
  mesh.bounds_min = {0, 0, 0};
  mesh.bounds_max = {1, 1, 0.25f};  // vertex 2's z = 0.5 is outside
  try {
    pool.add(mesh);
    ADD_FAILURE() << "bounds that miss vertex 2 were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::MeshBounds);
    EXPECT_NE(std::string(e.what()).find("'crate'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("vertex 2"), std::string::npos) << e.what();
  }
  mesh.bounds_min = {0, 0, 0.5f};  // min > max on z
  mesh.bounds_max = {1, 1, 0.25f};
  EXPECT_KIND(pool.add(mesh), MeshBounds);
  mesh.bounds_min = {0, -std::numeric_limits<float>::infinity(), 0};
  mesh.bounds_max = {1, 1, 1};
  EXPECT_KIND(pool.add(mesh), MeshBounds);
  EXPECT_EQ(pool.stats().meshes, 0u);  // nothing added by the refused calls
  // Within the tolerance (1e-5 x (1 + largest extent 1)): accepted as given.
  mesh.bounds_min = {0, 0, 0};
  mesh.bounds_max = {1, 1, 0.5f - 1e-6f};
  const MeshRange& r = pool.range(pool.add(mesh));
  EXPECT_EQ(r.bounds.box_max, glm::vec3(1, 1, 0.5f - 1e-6f));
}

TEST_F(MeshPoolDevice, RejectsBadArguments) {
  EXPECT_KIND(MeshPool(dev(), {.vertex_stride = 10}), InvalidArgument);
  EXPECT_KIND(MeshPool(dev(), {.vertex_stride = 8}), InvalidArgument);
  EXPECT_KIND(MeshPool(dev(), {.initial_vertices = 0}), InvalidArgument);
  MeshPool pool(dev(), {.vertex_stride = kStride});
  std::mt19937 rng(3);
  TestMesh m = make_mesh(rng, 4, 6);
  EXPECT_KIND(pool.remove(0), InvalidArgument);
  EXPECT_KIND(pool.range(0), InvalidArgument);
  const std::vector<uint32_t> bad_index = {0, 1, 4};  // 4 vertices: 4 is out of range
  EXPECT_KIND(pool.add(m.vertices, bad_index), InvalidArgument);
  const std::vector<uint32_t> not_triangles = {0, 1};
  EXPECT_KIND(pool.add(m.vertices, not_triangles), InvalidArgument);
  EXPECT_KIND(pool.add(std::span(m.vertices).first(kStride + 4), m.indices), InvalidArgument);
  EXPECT_KIND(pool.add({}, m.indices), InvalidArgument);
  EXPECT_EQ(pool.stats().meshes, 0u);
  const MeshId id = pool.add(m.vertices, m.indices);
  pool.remove(id);
  EXPECT_KIND(pool.remove(id), InvalidArgument);
}

// With the spec-default limits, maxStorageBufferBindingSize (128 MiB) < maxBufferSize (256 MiB):
// a pool of 16-byte vertices holds at most 2^27 / 16 = 8,388,608 of them.
TEST_F(MeshPoolDevice, GrowthStopsAtTheDeviceLimits) {
  DeviceOptions o;
  o.limits = LimitsRequest::spec_default;
  o.want_timestamp_query = false;
  const Device d = Device::create(o);
  ASSERT_EQ(d.limits().maxStorageBufferBindingSize, 134217728u);
  EXPECT_KIND(MeshPool(d, {.vertex_stride = 16, .initial_vertices = 8388609}), BufferTooLarge);
  MeshPool pool(d, {.vertex_stride = 16, .initial_vertices = 16});
  const std::vector<std::byte> huge(size_t(8388609) * 16);
  const std::vector<uint32_t> tri = {0, 1, 2};
  EXPECT_KIND(pool.add(huge, tri), BufferTooLarge);
  EXPECT_EQ(pool.generation(), 0u);  // nothing replaced, nothing held
  EXPECT_EQ(pool.stats().vertices_used, 0u);
  const std::vector<std::byte> small(3 * 16);
  const MeshId id = pool.add(small, tri);  // still usable
  EXPECT_EQ(pool.range(id).base_vertex, 0);
}

// A compute shader reads mesh_table() through MeshPool::wgsl() and writes each record's integers
// out: what the GPU sees equals the ranges.
TEST_F(MeshPoolDevice, ShadersReadTheTableThroughTheWgslDeclaration) {
  std::mt19937 rng(4);
  MeshPool pool(dev(), {.vertex_stride = kStride, .initial_ids = 1});
  for (int i = 0; i < 5; ++i) {
    const TestMesh m = make_mesh(rng, 2 + i, 3 * (i + 1));
    pool.add(m.vertices, m.indices);
  }
  pool.remove(2);
  const std::string wgsl = std::string(MeshPool::wgsl()) + R"(
@group(0) @binding(0) var<storage, read> meshes: array<MeshRecord>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4u>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3u) {
  let m = meshes[g.x];
  out[g.x] = vec4u(m.indexCount, m.firstIndex, bitcast<u32>(m.baseVertex), m.vertexCount);
}
)";
  const Device& d = dev();
  gpu::ShaderModule module = d.create_shader_module("mesh table reader", wgsl);
  WGPUComputePipelineDescriptor pd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pd.compute.module = module.get();
  pd.compute.entryPoint = gpu::sv("main");
  gpu::ComputePipeline pipeline =
      gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(d.get(), &pd));
  gpu::BindGroupLayout layout =
      gpu::BindGroupLayout::acquire(wgpuComputePipelineGetBindGroupLayout(pipeline.get(), 0));
  const uint64_t n = pool.id_capacity();
  gpu::Buffer out = d.create_buffer("out", n * 16, WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
  WGPUBindGroupEntry entries[2] = {WGPU_BIND_GROUP_ENTRY_INIT, WGPU_BIND_GROUP_ENTRY_INIT};
  entries[0].binding = 0;
  entries[0].buffer = pool.mesh_table();
  entries[0].size = pool.mesh_table_size();
  entries[1].binding = 1;
  entries[1].buffer = out.get();
  entries[1].size = n * 16;
  WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  bd.layout = layout.get();
  bd.entryCount = 2;
  bd.entries = entries;
  gpu::BindGroup group = d.create_bind_group(bd);
  gpu::CommandEncoder enc =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc.get(), nullptr);
  wgpuComputePassEncoderSetPipeline(pass, pipeline.get());
  wgpuComputePassEncoderSetBindGroup(pass, 0, group.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, uint32_t(n), 1, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  gpu::CommandBuffer cb = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc.get(), nullptr));
  const WGPUCommandBuffer raw = cb.get();
  d.submit(std::span(&raw, 1));
  const auto bytes = read_back(out.get(), n * 16);
  ASSERT_EQ(n, 5u);
  for (uint32_t id = 0; id < n; ++id) {
    const uint32_t expected_count = pool.contains(id) ? pool.range(id).index_count : 0;
    EXPECT_EQ(load<uint32_t>(bytes, id * 16), expected_count) << id;
    if (!pool.contains(id)) continue;
    EXPECT_EQ(load<uint32_t>(bytes, id * 16 + 4), pool.range(id).first_index) << id;
    EXPECT_EQ(load<int32_t>(bytes, id * 16 + 8), pool.range(id).base_vertex) << id;
    EXPECT_EQ(load<uint32_t>(bytes, id * 16 + 12), pool.range(id).vertex_count) << id;
    EXPECT_EQ(pool.range(id).index_count, 3u * (id + 1));
    EXPECT_EQ(pool.range(id).vertex_count, 2u + id);
  }
}

}  // namespace
}  // namespace bindery::gpu_driven
