// SPDX-License-Identifier: MIT
// --strategy buffer-offsets-mapped: seed 003's final version, "use mapped buffers": the
// buffer-offsets layout (object_groups.hpp), with the moved objects written straight into a
// mapped MAP_WRITE | COPY_SRC transfer buffer taken from a pool (StagingRing: blocks are handed
// out already mapped, mapAsync is issued after submit and never waited on) and copied into the
// large uniform buffer with one copyBufferToBuffer, encoded before the render pass that reads it.
// No CPU shadow copy and no writeBuffer for per-object data.
#include "object_groups.hpp"

#include "bindery/data/staging_ring.hpp"

#include <algorithm>

namespace bindery::strategies {
namespace {

class BufferOffsetsMappedStrategy final : public ObjectGroupStrategy {
 public:
  BufferOffsetsMappedStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : ObjectGroupStrategy(device, scene, gpu, "buffer-offsets-mapped"),
        objects_(device, object_size_, static_cast<uint32_t>(scene.objects.size())),
        staging_(device, StagingRingDesc{"transfer buffers", 0}) {
    create_object_groups([&](uint32_t i) { return objects_.window(i); });
  }

  uint64_t object_stride() const override { return objects_.layout.stride; }

  /// For each large buffer the moved objects [changed_begin, changed_end) span (one unless
  /// maxBufferSize split it): a mapped block of (count - 1) x stride + SizeOf bytes, the objects
  /// written into it at the stride, one copyBufferToBuffer of those bytes (the article's size).
  void upload(const FrameInputs& in, WGPUCommandEncoder encoder) override {
    frame_.update(in.values);
    const SlotLayout& layout = objects_.layout;
    for (uint32_t first = in.changed_begin; first < in.changed_end;) {
      const uint32_t chunk = layout.chunk_of(first);
      const uint32_t end =
          std::min<uint64_t>(in.changed_end, uint64_t(chunk + 1) * layout.slots_per_chunk);
      const uint64_t bytes = uint64_t(end - first - 1) * layout.stride + layout.upload_size_bytes();
      const StagingBlock block = staging_.acquire(bytes);
      for (uint32_t i = first; i < end; ++i)
        writer_.write(block.data.subspan(uint64_t(i - first) * layout.stride, object_size_),
                      in.transforms[i]);
      staging_.copy(encoder, block, 0, objects_.chunks[chunk].get(), layout.offset_in_chunk(first),
                    bytes);
      first = end;
    }
  }

  void after_submit() override { staging_.after_submit(); }

 private:
  LargeObjectBuffer objects_;
  StagingRing staging_;
};

}  // namespace

extern const StrategyRow buffer_offsets_mapped_row{
    {"buffer-offsets-mapped",
     "buffer-offsets, per-object data written straight into mapped transfer buffers from a pool "
     "and copied with copyBufferToBuffer",
     "003: use mapped buffers (the article's final version)"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<BufferOffsetsMappedStrategy>(device, scene, gpu);
    },
    nullptr,
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
