// SPDX-License-Identifier: MIT
// --strategy mapped-staging: the dynamic-offsets layout (by_frequency.hpp) with the article's
// last upload step (seed 003, "mapped transfer buffers"): the changed objects are written
// straight into a mapped MAP_WRITE | COPY_SRC block of a StagingRing and copied into the
// per-object buffer with copyBufferToBuffer before the pass, instead of queue.writeBuffer from
// a CPU shadow copy.
#include "by_frequency.hpp"

#include "bindery/data/staging_ring.hpp"

#include <algorithm>

namespace bindery::strategies {
namespace {

class MappedStagingStrategy final : public ByFrequencyStrategy {
 public:
  MappedStagingStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : ByFrequencyStrategy(device, scene, gpu, "mapped-staging"),
        staging_(device, StagingRingDesc{"per-object staging", 0}) {}

  /// The changed objects [changed_begin, changed_end) are one run of slots: for each chunk they
  /// span, written straight into one mapped block at the buffer's stride and copied with one
  /// copyBufferToBuffer (a block never exceeds its chunk, so never maxBufferSize).
  void upload(const FrameInputs& in, WGPUCommandEncoder encoder) override {
    frame_.update(in.values);
    const uint64_t stride = objects_->stride();
    const SlotLayout& layout = objects_->slot_layout();
    for (uint32_t slot = in.changed_begin; slot < in.changed_end;) {
      const uint32_t chunk = objects_->chunk_of(slot);
      const uint32_t end =
          std::min<uint64_t>(in.changed_end, uint64_t(chunk + 1) * layout.slots_per_chunk);
      const StagingBlock block = staging_.acquire(uint64_t(end - slot) * stride);
      for (uint32_t i = slot; i < end; ++i)
        writer_.write(block.data.subspan(uint64_t(i - slot) * stride, objects_->element_size()),
                      in.transforms[i]);
      staging_.copy(encoder, block, 0, objects_->buffer(chunk), layout.offset_in_chunk(slot),
                    uint64_t(end - slot) * stride);
      slot = end;
    }
  }

  void after_submit() override { staging_.after_submit(); }

  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    RenderPassState state(pass, counters, IntruderPolicy::build_default, &device_.limits());
    encode_range(state, first, last);
  }

 private:
  StagingRing staging_;
};

}  // namespace

extern const StrategyRow mapped_staging_row{
    {"mapped-staging",
     "dynamic-offsets, per-object data written straight into mapped staging buffers and copied "
     "with copyBufferToBuffer",
     "003: use mapped buffers, on 000's dynamic offsets"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<MappedStagingStrategy>(device, scene, gpu);
    },
    nullptr,
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
