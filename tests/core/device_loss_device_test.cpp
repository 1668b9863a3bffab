// SPDX-License-Identifier: MIT
// Out-of-memory and device loss on a real device (lavapipe on CPU-only machines): a buffer beyond
// the DEVICE's maxBufferSize, and a device destroyed with wgpuDeviceDestroy in the middle of a
// run. Each must end in one bindery::Error of a named kind (BufferTooLarge, WebGPUValidation,
// DeviceLost), never a crash or a hang, and nothing may be created after the error.
#include "support/expect_kind.hpp"
#include "bindery/core/device.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/render/renderer.hpp"
#include "bindery/render/scene.hpp"
#include "bindery/data/storage_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bindery {
namespace {

Device make_device() {
  DeviceOptions o;
  o.want_timestamp_query = false;
  return Device::create(o);
}

TEST(DeviceLimits, BufferBeyondMaxBufferSizeIsBufferTooLarge) {
  const Device device = make_device();
  const uint64_t max = device.limits().maxBufferSize;
  const uint64_t created = device.counters().buffers_created;
  // WebGPU §5.1.2 createBuffer: size > maxBufferSize is a validation error; bindery refuses it
  // before the implementation sees it, naming the limit.
  EXPECT_KIND((void)device.create_buffer("too large", max + 1,
                                         WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst),
              BufferTooLarge);
  EXPECT_KIND((void)device.create_buffer("far too large", UINT64_MAX,
                                         WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst),
              BufferTooLarge);
  EXPECT_EQ(device.counters().buffers_created, created);  // nothing was created
  // Through the toolkit: one storage element larger than any buffer the device may create.
  StorageArrayDesc sd;
  sd.element_size = (max + 4) & ~uint64_t(3);
  sd.slot_count = 1;
  try {
    StorageArray a(device, sd);
    ADD_FAILURE() << "a storage element of " << sd.element_size << " bytes was accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(e.kind() == ErrorKind::StorageBindingTooLarge ||
                e.kind() == ErrorKind::BufferTooLarge)
        << e.what();
  }
  // The device is still usable afterwards.
  const gpu::Buffer ok = device.create_buffer("ok", 256, WGPUBufferUsage_CopyDst);
  EXPECT_NE(ok.get(), nullptr);
  EXPECT_NO_THROW(device.check());
}

TEST(DeviceLimits, ImplementationErrorForAnOversizedRawBufferIsOneError) {
  // The same request made straight through webgpu.h, past bindery's check: the implementation's
  // uncaptured error reaches the caller as one bindery::Error with a kind at the next check().
  const Device device = make_device();
  WGPUBufferDescriptor d = WGPU_BUFFER_DESCRIPTOR_INIT;
  d.size = device.limits().maxBufferSize + 4;
  d.usage = WGPUBufferUsage_Storage;
  const gpu::Buffer raw = gpu::Buffer::acquire(wgpuDeviceCreateBuffer(device.get(), &d));
  device.poll(false);
  try {
    device.check();
    ADD_FAILURE() << "no error reported for a buffer of maxBufferSize + 4 bytes";
  } catch (const Error& e) {
    EXPECT_TRUE(e.kind() == ErrorKind::WebGPUValidation || e.kind() == ErrorKind::OutOfMemory)
        << e.what();
  }
  EXPECT_NO_THROW(device.check());  // reported once
}

TEST(DeviceLoss, DestroyedDeviceIsDeviceLostOnEveryUse) {
  Device device = make_device();
  DynamicUniformBufferDesc dd;
  dd.element_size = 64;
  dd.slot_count = 8;
  DynamicUniformBuffer objects(device, dd);
  objects.flush();
  device.check();

  wgpuDeviceDestroy(device.get());
  device.poll(false);
  // The first use after the loss is DeviceLost (wgpu-native may not call the device-lost
  // callback for an idle device, so the loss may only show once the device is used).
  EXPECT_KIND((void)device.create_buffer("first use", 256, WGPUBufferUsage_CopyDst), DeviceLost);
  EXPECT_TRUE(device.is_lost());
  // Loss is permanent: every later use is DeviceLost again, before touching the device.
  const uint64_t buffers = device.counters().buffers_created;
  const uint64_t writes = device.counters().write_buffer_calls;
  EXPECT_KIND((void)device.create_buffer("after loss", 256, WGPUBufferUsage_CopyDst), DeviceLost);
  const std::vector<std::byte> bytes(64);
  EXPECT_KIND(objects.write(0, bytes); objects.flush(), DeviceLost);
  EXPECT_KIND(objects.resize(100), DeviceLost);
  EXPECT_KIND(
      (void)device.create_shader_module("after loss", "@compute @workgroup_size(1) fn main() {}"),
      DeviceLost);
  EXPECT_KIND(device.submit({}), DeviceLost);
  EXPECT_KIND(device.check(), DeviceLost);
  EXPECT_EQ(device.counters().buffers_created, buffers);
  EXPECT_EQ(device.counters().write_buffer_calls, writes);
  // The destructors (device, arena) must not hang or crash either: leaving this scope runs them.
}

TEST(DeviceLoss, DestroyedBeforeAnyWorkIsDeviceLostAtSubmit) {
  // wgpuQueueSubmit on a lost device aborts the process in wgpu-native: Device::submit() must
  // find out first. An encoder on the destroyed device gives the implementation a chance to
  // report "device is lost"; if it does not, the submit itself must still end in an error.
  const Device device = make_device();
  wgpuDeviceDestroy(device.get());
  gpu::CommandEncoder enc =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
  gpu::CommandBuffer cb = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc.get(), nullptr));
  const WGPUCommandBuffer raw = cb.get();
  EXPECT_KIND(device.submit({&raw, 1}), DeviceLost);
}

TEST(DeviceLoss, DeviceDestroyedMidRenderEndsTheRunWithDeviceLost) {
  for (const char* strategy : {"dynamic-offsets", "storage-instancing", "gpu-driven"}) {
    SCOPED_TRACE(strategy);
    const Device device = make_device();
    const Scene scene = make_cube_scene({.objects = 50, .seed = 2});
    RenderOptions o;
    o.strategy = strategy;
    o.width = 32;
    o.height = 32;
    o.frames = 6;
    uint32_t frames_seen = 0;
    o.on_frame = [&](uint32_t frame, uint32_t) {
      frames_seen = frame + 1;
      if (frame == 1) wgpuDeviceDestroy(device.get());
    };
    EXPECT_KIND((void)render(device, scene, o), DeviceLost);
    EXPECT_EQ(frames_seen, 2u);  // no frame completes after the loss
    EXPECT_KIND(device.check(), DeviceLost);
  }
}

}  // namespace
}  // namespace bindery
