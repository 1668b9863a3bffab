// SPDX-License-Identifier: MIT
// --strategy split-uniforms: seed 003's "split the uniform buffers (shared, material, per model)"
// step with its "separate more uniforms" follow-up (object_groups.hpp): the values shared by
// every object (GlobalUniforms) live in one buffer written once per frame, each material's
// (MaterialUniforms) in a window written once at start, and each object keeps a small buffer of
// its own (PerObjectUniforms: normal matrix + world, 112 bytes instead of naive's 224), still
// written with one writeBuffer per object per frame and bound through one bind group per object.
// The article gives each material its own buffer; here the materials share one buffer at the
// device's minUniformBufferOffsetAlignment (MaterialGroups), which the shader cannot tell apart.
#include "object_groups.hpp"

namespace bindery::strategies {
namespace {

class SplitUniformsStrategy final : public ObjectGroupStrategy {
 public:
  SplitUniformsStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : ObjectGroupStrategy(device, scene, gpu, "split-uniforms"), bytes_(object_size_) {
    buffers_.reserve(scene.objects.size());
    for (size_t i = 0; i < scene.objects.size(); ++i)
      buffers_.push_back(device.create_buffer("per-object uniforms", object_size_,
                                              WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst));
    create_object_groups([&](uint32_t i) { return ObjectWindow{buffers_[i].get(), 0}; });
  }

  /// One writeBuffer for the frame values, then one per object that moved this frame (every
  /// object, every frame, in the article's scene).
  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    frame_.update(in.values);
    for (uint32_t i = in.changed_begin; i < in.changed_end; ++i) {
      writer_.write(bytes_, in.transforms[i]);
      device_.write_buffer(buffers_[i].get(), 0, bytes_.data(), bytes_.size());
    }
  }

 private:
  std::vector<std::byte> bytes_;  ///< one object's PerObjectUniforms, reused
  std::vector<gpu::Buffer> buffers_;
};

}  // namespace

extern const StrategyRow split_uniforms_row{
    {"split-uniforms",
     "frame, material and per-object uniform buffers (a small one per object, writeBuffer each); "
     "one bind group per object referencing all three",
     "003: split the uniform buffers (shared, material, per model); separate more uniforms"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<SplitUniformsStrategy>(device, scene, gpu);
    },
    nullptr,
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
