// SPDX-License-Identifier: MIT
// --strategy buffer-offsets: seed 003's "one large uniform buffer with buffer offsets" step
// (object_groups.hpp): every object's PerObjectUniforms in one large uniform buffer at a stride
// of align_to(SizeOf, minUniformBufferOffsetAlignment) read from the device, each object's bind
// group binding its own window at a static binding offset (not a dynamic offset: the bind groups
// stay one per object), and the frame's values uploaded with ONE writeBuffer from a CPU shadow
// copy (SlotShadow) instead of one per object.
#include "object_groups.hpp"

namespace bindery::strategies {
namespace {

class BufferOffsetsStrategy final : public ObjectGroupStrategy {
 public:
  BufferOffsetsStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : ObjectGroupStrategy(device, scene, gpu, "buffer-offsets"),
        objects_(device, object_size_, static_cast<uint32_t>(scene.objects.size())),
        shadow_(objects_.layout, static_cast<uint32_t>(scene.objects.size())) {
    create_object_groups([&](uint32_t i) { return objects_.window(i); });
  }

  uint64_t object_stride() const override { return objects_.layout.stride; }

  /// The moved objects go into the shadow copy; one writeBuffer then covers the first to the
  /// last of them (per buffer: one unless maxBufferSize split it), as the article's
  /// writeBuffer(uniformBuffer, 0, values, 0, (n - 1) x stride + size) does.
  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    frame_.update(in.values);
    for (uint32_t i = in.changed_begin; i < in.changed_end; ++i) {
      writer_.write(shadow_.slot_data(i), in.transforms[i]);
      shadow_.mark_dirty(i);
    }
    const std::byte* bytes = shadow_.bytes().data();
    for (const UploadRange& r : shadow_.take_upload_ranges(FlushPolicy{}))
      device_.write_buffer(objects_.chunks[r.chunk].get(), r.buffer_offset, bytes + r.shadow_offset,
                           r.size);
  }

 private:
  LargeObjectBuffer objects_;
  SlotShadow shadow_;
};

}  // namespace

extern const StrategyRow buffer_offsets_row{
    {"buffer-offsets",
     "frame / material uniforms as split-uniforms; every object in one large uniform buffer, "
     "its bind group at its own binding offset, one writeBuffer per frame",
     "003: one large uniform buffer with buffer offsets"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<BufferOffsetsStrategy>(device, scene, gpu);
    },
    nullptr,
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
