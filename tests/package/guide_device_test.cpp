// SPDX-License-Identifier: MIT
// The device snippets of docs/GUIDE.md (see guide_test.cpp for how the guide is checked against
// them), run on the WebGPU adapter present (lavapipe on CPU-only machines). Expected values are
// hand-computed: stride = 80 rounded up to the device's minUniformBufferOffsetAlignment; the
// clear colour 0.2 / 0.4 / 0.6 is 51 / 102 / 153 in RGBA8Unorm.
#include "bindery/bindery.hpp"

#include "support/device.hpp"

#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace bindery {
namespace {

using test::shared_device;

TEST(GuideDevice, TwoWaysIn) {
  // [guide:two_ways_in]
  // bindery makes the device ...
  Device made = Device::create({.power_preference = WGPUPowerPreference_LowPower});
  // ... or wraps one the application made (here the same handles, to keep this short).
  Device adopted = Device::adopt(made.instance(), nullptr, made.get());
  EXPECT_EQ(adopted.get(), made.get());
  EXPECT_EQ(adopted.limits().maxBindGroups, made.limits().maxBindGroups);  // the device's own
  // [guide:end]
  WGPULimits raw = WGPU_LIMITS_INIT;
  ASSERT_EQ(wgpuDeviceGetLimits(made.get(), &raw), WGPUStatus_Success);
  EXPECT_EQ(adopted.limits().maxBindGroups, raw.maxBindGroups);
}

TEST(GuideDevice, DynamicUniformBuffer) {
  const Device& device = shared_device();
  Reflection r = reflect_wgsl("struct Object { world: mat4x4f, tint: vec3f, id: u32 };");
  r.throw_if_errors();
  // [guide:dynamic_uniform_buffer]
  const StructLayout& object = r.struct_layout("Object");  // 80 bytes (WGSL SizeOf)
  DynamicUniformBuffer objects(device, {.element_size = object.size, .slot_count = 1000});
  const FieldRef world = object.field("world"), id = object.field("id");
  for (uint32_t i = 0; i < 1000; ++i) {
    StructView v(object, objects.slot_data(i));
    v.set(world, glm::mat4(1.0f));
    v.set(id, i);
    objects.mark_dirty(i);
  }
  const FlushStats flushed = objects.flush();  // every slot dirty: one writeBuffer per chunk
  EXPECT_EQ(flushed.write_buffer_calls, objects.chunk_count());
  // In the pass, per draw i (RenderPassState skips what is already bound):
  //   uint32_t offset = objects.dynamic_offset(i);
  //   state.set_bind_group(2, objects.bind_group(objects.chunk_of(i)), {&offset, 1});
  // [guide:end]
  const uint64_t a = device.limits().minUniformBufferOffsetAlignment;
  EXPECT_EQ(objects.stride(), (80 + a - 1) / a * a);
  EXPECT_EQ(objects.dynamic_offset(3), 3 * objects.stride());
  EXPECT_EQ(flushed.bytes_uploaded, 999 * objects.stride() + 80);  // first to last dirty slot
}

TEST(GuideDevice, OffscreenAndReadBack) {
  const Device& device = shared_device();
  const std::string png = (std::filesystem::temp_directory_path() / "bindery_guide.png").string();
  // [guide:offscreen]
  OffscreenTarget target(device, {.width = 100, .height = 60});  // RGBA8Unorm + Depth24Plus
  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), {}));
  {
    gpu::RenderPassEncoder pass = target.begin_render_pass(encoder.get(), {0.2, 0.4, 0.6, 1.0});
    // ... set pipeline, bind groups, draw ...
    wgpuRenderPassEncoderEnd(pass.get());
  }
  auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  wgpuQueueSubmit(device.queue(), 1, &raw);

  const Image image = read_back(device, target);  // rows of 400 bytes, copied at a 512 pitch
  write_png(png, image);
  EXPECT_EQ(image.rgba.size(), 100u * 60u * 4u);
  EXPECT_EQ(image.pixel(99, 59)[2], 153);  // 0.6 x 255
  // [guide:end]
  EXPECT_EQ(image.pixel(0, 0)[0], 51);
  EXPECT_EQ(image.pixel(0, 0)[1], 102);
  EXPECT_EQ(read_png(png).rgba, image.rgba);
  std::filesystem::remove(png);
}

// Objects moved from four threads: every moved object's record, read back, holds its new
// translation; the others keep theirs.
TEST(GuideDevice, ObjectsFromManyThreads) {
  using namespace gpu_driven;
  const Device& device = shared_device();
  ObjectTable objects(device, {.initial_capacity = 1000});
  for (uint32_t i = 0; i < 1000; ++i) objects.add(glm::mat4(1.0f), 0, 0);
  auto submit = [&](gpu::CommandEncoder& enc) {
    auto commands = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc.get(), nullptr));
    WGPUCommandBuffer raw = commands.get();
    device.submit({&raw, 1});
    objects.after_submit();
  };
  auto first = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), {}));
  objects.flush(first.get());
  submit(first);
  std::vector<ObjectId> moved;
  std::vector<glm::mat4> worlds;
  for (uint32_t id = 0; id < 1000; id += 3) {
    moved.push_back(id);
    worlds.push_back(glm::translate(glm::mat4(1.0f), glm::vec3(float(id), 0, 0)));
  }
  auto encoder = gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), {}));
  // [guide:objects_from_threads]
  // A frame: after the previous frame's submit and objects.after_submit(), which mapped the
  // staging the writers fill (writes before after_submit() go to heap blocks, copied at the flush).
  std::vector<std::thread> writers;
  for (uint32_t t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      for (size_t i = t; i < moved.size(); i += 4) objects.set_transform(moved[i], worlds[i]);
    });
  for (std::thread& w : writers) w.join();  // every write happens-before the flush
  objects.flush(encoder.get());             // GpuDrivenScene::record_frame() flushes too: join first
  // [guide:end]
  submit(encoder);
  const std::vector<std::byte> bytes = read_back_buffer(device, objects.buffer(), 0, 1000 * 64);
  std::vector<ObjectRecord> records(1000);
  std::memcpy(records.data(), bytes.data(), bytes.size());
  for (uint32_t id = 0; id < 1000; ++id)  // translation x: row 0, column 3
    ASSERT_EQ(records[id].world_rows[0].w, id % 3 == 0 ? float(id) : 0.0f) << id;
}

}  // namespace
}  // namespace bindery
