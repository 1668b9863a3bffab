// SPDX-License-Identifier: MIT
// The GPU layer of the per-draw data toolkit on a real device (lavapipe on CPU-only machines):
// DynamicUniformBuffer (size from the DEVICE's stride, flush, growth, what a shader reads at each
// dynamic offset), StorageArray (natural stride, indexed by invocation), StagingRing (never
// waits, recycles). Buffers are read back with a MAP_READ copy; expected bytes are the patterns
// the test wrote, expected sizes hand-computed from the limits.
#include "support/expect_kind.hpp"
#include "bindery/data/align.hpp"
#include "bindery/core/device.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/data/staging_ring.hpp"
#include "bindery/data/storage_array.hpp"
#include "bindery/headless/offscreen.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace bindery {
namespace {


// One device with the spec-default limits (alignment 256) and one with the adapter's best
// (lavapipe: a smaller alignment), shared by the tests of this file.
class ToolkitDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    DeviceOptions spec;
    spec.limits = LimitsRequest::spec_default;
    spec.want_timestamp_query = false;
    spec_device_ = std::make_unique<Device>(Device::create(spec));
    DeviceOptions best;
    best.want_timestamp_query = false;
    best_device_ = std::make_unique<Device>(Device::create(best));
  }
  static void TearDownTestSuite() {
    spec_device_.reset();
    best_device_.reset();
  }
  static const Device& spec() { return *spec_device_; }
  static const Device& best() { return *best_device_; }

  static void submit(const Device& d, gpu::CommandEncoder& enc) {
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc.get(), nullptr);
    wgpuQueueSubmit(d.queue(), 1, &cb);
    wgpuCommandBufferRelease(cb);
    d.check();
  }

  static gpu::CommandEncoder encoder(const Device& d) {
    return gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  }

  static std::vector<std::byte> pattern(uint32_t slot, uint64_t size, uint32_t salt = 0) {
    std::vector<std::byte> v(size);
    for (uint64_t i = 0; i < size; ++i) v[i] = std::byte((slot * 31 + i * 7 + salt) & 0xFF);
    return v;
  }

  static inline std::unique_ptr<Device> spec_device_;
  static inline std::unique_ptr<Device> best_device_;
};

// ---------------------------------------------------------------- DynamicUniformBuffer

TEST_F(ToolkitDevice, BufferIsSlotsTimesTheDevicesStride) {
  // Issue 4: 2000 objects of 128 bytes. Spec defaults: stride 256 -> 512000 bytes.
  DynamicUniformBufferDesc desc;
  desc.element_size = 128;
  desc.slot_count = 2000;
  DynamicUniformBuffer a(spec(), desc);
  EXPECT_EQ(spec().limits().minUniformBufferOffsetAlignment, 256u);
  EXPECT_EQ(a.stride(), 256u);
  EXPECT_EQ(a.chunk_count(), 1u);
  EXPECT_EQ(a.buffer_size(0), 2000u * 256u);
  EXPECT_EQ(wgpuBufferGetSize(a.buffer(0)), 2000u * 256u);
  EXPECT_EQ(a.dynamic_offset(5), 5u * 256u);
  EXPECT_EQ(a.layout_entry().min_binding_size, 128u);
  EXPECT_TRUE(a.layout_entry().has_dynamic_offset);
  // The bind group binds ONE element, not the whole buffer (seed 002).
  EXPECT_EQ(a.bind_group_entry(0).size, 128u);
  EXPECT_EQ(a.bind_group_entry(0).offset, 0u);

  // Adapter-best device: a power-of-two alignment A gives stride max(128, A) (128 where A <= 128).
  DynamicUniformBuffer b(best(), desc);
  const uint64_t A = best().limits().minUniformBufferOffsetAlignment;
  const uint64_t want = std::max<uint64_t>(128, A);
  EXPECT_EQ(b.stride(), want);
  EXPECT_EQ(wgpuBufferGetSize(b.buffer(0)), 2000u * want);
  EXPECT_KIND(a.dynamic_offset(2000), InvalidArgument);
  EXPECT_KIND(a.bind_group(1), InvalidArgument);
}

TEST_F(ToolkitDevice, FlushUploadsAllThenOnlyTheMovedSlots) {
  DynamicUniformBufferDesc desc;
  desc.element_size = 80;  // seed 002: mat4x4 + vec4
  desc.slot_count = 10;
  desc.extra_usage = WGPUBufferUsage_CopySrc;
  DynamicUniformBuffer dub(spec(), desc);
  for (uint32_t s = 0; s < 10; ++s) dub.write(s, pattern(s, 80));
  const Counters before = spec().counters();
  const FlushStats all = dub.flush();
  const Counters d1 = spec().counters() - before;
  // All 10 dirty: one writeBuffer from slot 0 to the end of slot 9: 9 × 256 + 80 = 2384 bytes.
  EXPECT_EQ(all.write_buffer_calls, 1u);
  EXPECT_EQ(all.bytes_uploaded, 2384u);
  EXPECT_EQ(d1.write_buffer_calls, 1u);
  EXPECT_EQ(d1.bytes_uploaded, 2384u);
  auto got = read_back_buffer(spec(), dub.buffer(0), 0, dub.buffer_size(0));
  for (uint32_t s = 0; s < 10; ++s) {
    const auto want = pattern(s, 80);
    EXPECT_EQ(std::memcmp(got.data() + s * 256, want.data(), 80), 0) << "slot " << s;
  }
  // Move 2 of 10: two writeBuffer calls of 80 bytes each.
  dub.write(3, pattern(3, 80, 99));
  dub.write(7, pattern(7, 80, 99));
  const Counters before2 = spec().counters();
  const FlushStats few = dub.flush();
  EXPECT_EQ(few.write_buffer_calls, 2u);
  EXPECT_EQ(few.bytes_uploaded, 160u);
  EXPECT_EQ((spec().counters() - before2).bytes_uploaded, 160u);
  EXPECT_EQ(dub.flush().write_buffer_calls, 0u);  // nothing dirty any more
  got = read_back_buffer(spec(), dub.buffer(0), 0, dub.buffer_size(0));
  for (uint32_t s = 0; s < 10; ++s) {
    const auto want = pattern(s, 80, (s == 3 || s == 7) ? 99 : 0);
    EXPECT_EQ(std::memcmp(got.data() + s * 256, want.data(), 80), 0) << "slot " << s;
  }
}

TEST_F(ToolkitDevice, GrowthKeepsData) {
  DynamicUniformBufferDesc desc;
  desc.element_size = 64;
  desc.slot_count = 4;
  desc.extra_usage = WGPUBufferUsage_CopySrc;
  DynamicUniformBuffer dub(spec(), desc);
  for (uint32_t s = 0; s < 4; ++s) dub.write(s, pattern(s, 64));
  dub.flush();
  const WGPUBindGroupLayout layout = dub.bind_group_layout();
  const Counters before = spec().counters();
  dub.resize(9);
  const Counters created = spec().counters() - before;
  EXPECT_EQ(created.buffers_created, 1u);      // the one chunk is recreated at 9 × 256
  EXPECT_EQ(created.bind_groups_created, 1u);  // and its bind group rebuilt
  EXPECT_EQ(dub.bind_group_layout(), layout);  // the layout stays
  EXPECT_EQ(wgpuBufferGetSize(dub.buffer(0)), 9u * 256u);
  dub.write(8, pattern(8, 64));
  dub.flush();
  const auto got = read_back_buffer(spec(), dub.buffer(0), 0, dub.buffer_size(0));
  for (uint32_t s : {0u, 1u, 2u, 3u, 8u}) {
    const auto want = pattern(s, 64);
    EXPECT_EQ(std::memcmp(got.data() + s * 256, want.data(), 64), 0) << "slot " << s;
  }
  for (uint32_t s = 4; s < 8; ++s) EXPECT_EQ(got[s * 256], std::byte{0}) << "slot " << s;
}

TEST_F(ToolkitDevice, StartsEmptyAndGrows) {
  DynamicUniformBufferDesc desc;
  desc.element_size = 64;
  desc.extra_usage = WGPUBufferUsage_CopySrc;
  DynamicUniformBuffer dub(spec(), desc);  // 0 slots: a layout, no buffer yet
  EXPECT_EQ(dub.chunk_count(), 0u);
  EXPECT_NE(dub.bind_group_layout(), nullptr);
  EXPECT_KIND(dub.bind_group(0), InvalidArgument);
  EXPECT_EQ(dub.flush().write_buffer_calls, 0u);
  dub.resize(3);
  ASSERT_EQ(dub.chunk_count(), 1u);
  EXPECT_EQ(wgpuBufferGetSize(dub.buffer(0)), 3u * 256u);
  dub.write(2, pattern(2, 64));
  dub.flush();
  const auto got = read_back_buffer(spec(), dub.buffer(0), 0, 3 * 256);
  const auto want = pattern(2, 64);
  EXPECT_EQ(std::memcmp(got.data() + 2 * 256, want.data(), 64), 0);
}

// A compute shader reads the per-object uniform through the dynamic offset: the element
// vec4<u32>(index, value, 0, 0) of slot i lands in out[index] = value.
constexpr const char* kDynamicOffsetShader = R"(
struct Obj { v: vec4<u32> }
@group(0) @binding(0) var<uniform> obj: Obj;
@group(1) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[obj.v.x] = obj.v.y; }
)";

constexpr const char* kStorageArrayShader = R"(
@group(0) @binding(0) var<storage, read> objs: array<vec4<u32>>;
@group(1) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  out[id.x] = objs[id.x].y;
}
)";

struct ComputeRig {
  gpu::BindGroupLayout out_layout;
  gpu::Buffer out;
  gpu::BindGroup out_group;
  gpu::PipelineLayout pipeline_layout;
  gpu::ComputePipeline pipeline;
};

ComputeRig make_rig(const Device& d, WGPUBindGroupLayout data_layout, const char* wgsl,
                    uint32_t n) {
  ComputeRig r;
  WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
  e.binding = 0;
  e.visibility = WGPUShaderStage_Compute;
  e.buffer = WGPU_BUFFER_BINDING_LAYOUT_INIT;
  e.buffer.type = WGPUBufferBindingType_Storage;
  WGPUBindGroupLayoutDescriptor ld = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  ld.entryCount = 1;
  ld.entries = &e;
  r.out_layout = gpu::BindGroupLayout::acquire(wgpuDeviceCreateBindGroupLayout(d.get(), &ld));
  r.out = d.create_buffer("out", uint64_t(n) * 4,
                          WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc);
  WGPUBindGroupEntry be = WGPU_BIND_GROUP_ENTRY_INIT;
  be.binding = 0;
  be.buffer = r.out.get();
  WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  bd.layout = r.out_layout.get();
  bd.entryCount = 1;
  bd.entries = &be;
  r.out_group = d.create_bind_group(bd);
  WGPUBindGroupLayout layouts[] = {data_layout, r.out_layout.get()};
  WGPUPipelineLayoutDescriptor pd = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  pd.bindGroupLayoutCount = 2;
  pd.bindGroupLayouts = layouts;
  r.pipeline_layout = gpu::PipelineLayout::acquire(wgpuDeviceCreatePipelineLayout(d.get(), &pd));
  gpu::ShaderModule m = d.create_shader_module("toolkit test", wgsl);
  WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  cd.layout = r.pipeline_layout.get();
  cd.compute.module = m.get();
  cd.compute.entryPoint = gpu::sv("main");
  r.pipeline = gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(d.get(), &cd));
  d.check();
  return r;
}

std::vector<uint32_t> as_u32(const std::vector<std::byte>& bytes) {
  std::vector<uint32_t> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

TEST_F(ToolkitDevice, ShaderReadsEachSlotAtItsDynamicOffset) {
  for (const Device* d : {&spec(), &best()}) {
    const uint32_t n = 37;
    DynamicUniformBufferDesc desc;
    desc.element_size = 16;
    desc.slot_count = n;
    desc.visibility = kStageCompute;
    DynamicUniformBuffer dub(*d, desc);
    for (uint32_t s = 0; s < n; ++s) {
      // Slot s writes out[n - 1 - s] = 1000 + s (reversed, so a wrong offset shows).
      const std::array<uint32_t, 4> v{n - 1 - s, 1000 + s, 0, 0};
      dub.write_value(s, v);
    }
    dub.flush();
    ComputeRig rig = make_rig(*d, dub.bind_group_layout(), kDynamicOffsetShader, n);
    gpu::CommandEncoder enc = encoder(*d);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc.get(), nullptr);
    wgpuComputePassEncoderSetPipeline(pass, rig.pipeline.get());
    wgpuComputePassEncoderSetBindGroup(pass, 1, rig.out_group.get(), 0, nullptr);
    for (uint32_t s = 0; s < n; ++s) {
      const uint32_t off = dub.dynamic_offset(s);
      wgpuComputePassEncoderSetBindGroup(pass, 0, dub.bind_group(dub.chunk_of(s)), 1, &off);
      wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    }
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    submit(*d, enc);
    const auto out = as_u32(read_back_buffer(*d, rig.out.get(), 0, uint64_t(n) * 4));
    for (uint32_t s = 0; s < n; ++s) EXPECT_EQ(out[n - 1 - s], 1000 + s) << "slot " << s;
  }
}

// ---------------------------------------------------------------- StorageArray

TEST_F(ToolkitDevice, StorageArrayAtTheNaturalStride) {
  // Two mat4x4f per object: 128 bytes per element, no padding to the offset alignment.
  StorageArrayDesc big;
  big.element_size = 128;
  big.slot_count = 2000;
  StorageArray objects(spec(), big);
  EXPECT_EQ(objects.stride(), 128u);
  EXPECT_EQ(wgpuBufferGetSize(objects.buffer(0)), 2000u * 128u);
  EXPECT_EQ(objects.bind_group_entry(0).size, 2000u * 128u);  // the whole array, bound once
  EXPECT_EQ(objects.layout_entry().kind, BindingKind::read_only_storage_buffer);
  EXPECT_EQ(objects.layout_entry().min_binding_size, 128u);

  // Indexed by invocation: element i = vec4<u32>(0, 500 + i, 0, 0) -> out[i] = 500 + i.
  const uint32_t n = 50;
  StorageArrayDesc desc;
  desc.element_size = 16;
  desc.slot_count = n;
  desc.visibility = kStageCompute;
  StorageArray arr(spec(), desc);
  for (uint32_t s = 0; s < n; ++s) arr.write_value(s, std::array<uint32_t, 4>{0, 500 + s, 0, 0});
  arr.flush();
  ComputeRig rig = make_rig(spec(), arr.bind_group_layout(), kStorageArrayShader, n);
  gpu::CommandEncoder enc = encoder(spec());
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc.get(), nullptr);
  wgpuComputePassEncoderSetPipeline(pass, rig.pipeline.get());
  wgpuComputePassEncoderSetBindGroup(pass, 0, arr.bind_group(0), 0, nullptr);
  wgpuComputePassEncoderSetBindGroup(pass, 1, rig.out_group.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass, n, 1, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  submit(spec(), enc);
  const auto out = as_u32(read_back_buffer(spec(), rig.out.get(), 0, uint64_t(n) * 4));
  for (uint32_t s = 0; s < n; ++s) EXPECT_EQ(out[s], 500 + s) << "element " << s;
}

TEST_F(ToolkitDevice, StorageArrayGrowthKeepsData) {
  StorageArrayDesc desc;
  desc.element_size = 12;  // vec3<f32> ...
  desc.array_stride = 16;  // ... at its WGSL array stride
  desc.slot_count = 3;
  desc.extra_usage = WGPUBufferUsage_CopySrc;
  StorageArray arr(spec(), desc);
  for (uint32_t s = 0; s < 3; ++s) arr.write(s, pattern(s, 12));
  arr.flush();
  arr.resize(6);
  arr.write(5, pattern(5, 12));
  arr.flush();
  EXPECT_EQ(wgpuBufferGetSize(arr.buffer(0)), 6u * 16u);
  const auto got = read_back_buffer(spec(), arr.buffer(0), 0, 6 * 16);
  for (uint32_t s : {0u, 1u, 2u, 5u}) {
    const auto want = pattern(s, 12);
    EXPECT_EQ(std::memcmp(got.data() + s * 16, want.data(), 12), 0) << "element " << s;
  }
  StorageArrayDesc bad = desc;
  bad.array_stride = 10;  // not a multiple of 4
  EXPECT_KIND(StorageArray(spec(), bad), InvalidArgument);
}

// ---------------------------------------------------------------- StagingRing

TEST_F(ToolkitDevice, StagingRingUploadsAndRecyclesWithoutWaiting) {
  StagingRing ring(spec(), {.label = "test ring", .block_size = 256});
  gpu::Buffer dst = spec().create_buffer("dst", 256,
                                         WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
  uint32_t first_id = 0;
  for (uint32_t frame = 0; frame < 5; ++frame) {
    const Counters before = spec().counters();
    StagingBlock b = ring.acquire(64);
    ASSERT_EQ(b.data.size(), 256u);  // block_size
    if (frame == 0) first_id = b.id;
    EXPECT_EQ(b.id, first_id) << "frame " << frame << " did not reuse the block";
    const auto p = pattern(frame, 64);
    std::memcpy(b.data.data(), p.data(), 64);  // straight into mapped memory
    gpu::CommandEncoder enc = encoder(spec());
    ring.copy(enc.get(), b, 0, dst.get(), 64, 64);
    submit(spec(), enc);
    ring.after_submit();
    StagingRingStats st = ring.stats();
    EXPECT_EQ(st.blocks, 1u);
    EXPECT_EQ(st.pending + st.free, 1u);
    const Counters d = spec().counters() - before;
    EXPECT_EQ(d.copy_buffer_to_buffer, 1u);
    EXPECT_EQ(d.map_async, 1u);
    EXPECT_EQ(d.bytes_uploaded, 64u);
    const auto got = read_back_buffer(spec(), dst.get(), 0, 256);  // polls until the copy is done
    EXPECT_EQ(std::memcmp(got.data() + 64, p.data(), 64), 0) << "frame " << frame;
    spec().poll(true);
    st = ring.stats();
    EXPECT_EQ(st.free, 1u) << "the map callback returned the block to the pool";
  }
}

TEST_F(ToolkitDevice, StagingRingGrowsInsteadOfBlocking) {
  StagingRing ring(spec(), {.label = "grow", .block_size = 128});
  // Two blocks in use in the same frame: the second acquire creates a block, it cannot wait.
  StagingBlock a = ring.acquire(128);
  StagingBlock b = ring.acquire(128);
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(ring.stats().blocks, 2u);
  EXPECT_EQ(ring.stats().in_use, 2u);
  // A request larger than the block size gets a block of its own size (rounded up to 4).
  StagingBlock big = ring.acquire(1001);
  EXPECT_EQ(big.data.size(), 1004u);
  // Blocks acquired but never copied go straight back to the pool, still mapped.
  ring.after_submit();
  EXPECT_EQ(ring.stats().free, 3u);
  EXPECT_EQ(ring.stats().pending, 0u);
  EXPECT_EQ(ring.stats().bytes, 128u + 128u + 1004u);
  // Misuse is an error, never a crash.
  EXPECT_KIND(ring.acquire(0), InvalidArgument);
  StagingBlock c = ring.acquire(128);
  gpu::Buffer dst = spec().create_buffer("dst", 128, WGPUBufferUsage_CopyDst);
  gpu::CommandEncoder enc = encoder(spec());
  EXPECT_KIND(ring.copy(enc.get(), c, 2, dst.get(), 0, 4), InvalidArgument);    // offset 2
  EXPECT_KIND(ring.copy(enc.get(), c, 0, dst.get(), 64, 128), InvalidArgument);  // past dst
  StagingBlock forged = c;
  forged.id = 99;
  EXPECT_KIND(ring.copy(enc.get(), forged, 0, dst.get(), 0, 4), InvalidArgument);
  ring.after_submit();
  EXPECT_KIND(ring.copy(enc.get(), c, 0, dst.get(), 0, 4), InvalidArgument);  // not acquired
}

}  // namespace
}  // namespace bindery
