// SPDX-License-Identifier: MIT
// --strategy immediates: per-draw data as immediate data (wgpu-native's Immediates feature,
// wgpu.h WGPUNativeFeature_Immediates, or Dawn's core maxImmediateSize; WGSL `var<immediate>`; on
// Vulkan a push constant range).
//   group 0 (frame):    GlobalUniforms, one writeBuffer per frame, bound once per pass.
//   group 1 (material): texture + sampler + MaterialUniforms, one bind group per material, bound
//                       once per material (draws sorted by material, like dynamic-offsets).
//   immediate data:     PerObjectImmediates (the normal matrix's columns as three vec4f, then the
//                       world matrix: WGSL SizeOf 112 bytes, the bytes of PerObjectUniforms),
//                       copied into the command stream by setImmediates before each draw.
// No per-object buffer, bind group or writeBuffer: a frame uploads only GlobalUniforms, however
// many objects move. The shader (shaders/cubes_immediates.wgsl) calls the same functions as
// cubes_by_frequency.wgsl with the same values, so the image is the one dynamic-offsets draws.
// The immediate size is the reflected SizeOf of the `var<immediate>`, checked against the
// DEVICE's maxImmediateSize (lavapipe offers 256 on Vulkan and GL; Vulkan guarantees at least
// 128 bytes of push constants): StrategyUnavailable where the feature is missing or the limit is
// smaller.
#include "shared_groups.hpp"
#include "strategy.hpp"

#include "bindery/encode/draw_list.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery_shaders.hpp"

#include <fmt/format.h>

#include <cstring>

namespace bindery::strategies {
namespace {

/// The `var<immediate>` of the strategy's shader (the per-object values).
constexpr std::string_view kImmediateVar = "obj";

/// The C++ mirror of WGSL PerObjectImmediates (shaders/cubes_immediates.wgsl): the normal
/// matrix's columns as vec4 (w unused), then the world matrix; 112 bytes, checked against the
/// reflected struct when the strategy starts.
struct PerObjectImmediatesGpu {
  glm::vec4 normalColumn0, normalColumn1, normalColumn2;
  glm::mat4 world;
};
BINDERY_WGSL_STRUCT_CHECK(PerObjectImmediatesGpu, normalColumn0, normalColumn1, normalColumn2,
                          world);

const ImmediateInfo& immediate_of(const Reflection& reflection) {
  const ImmediateInfo* info = reflection.find_immediate(kImmediateVar);
  if (!info)
    throw Error(
        ErrorKind::StructViewPath,
        fmt::format("cubes_immediates.wgsl declares no var<immediate> '{}'", kImmediateVar));
  return *info;
}

/// Why this device cannot run the strategy, or nullopt. Reads the device's feature and limit.
std::optional<std::string> unavailable_on(const Device& device, const Reflection& reflection) {
  if (!device.has_immediates())
    return fmt::format(
        "the device takes no immediate data ({} on the {} adapter: wgpu-native needs its "
        "Immediates feature, Dawn a non-zero maxImmediateSize)",
        device.adapter().implementation, device.adapter().backend);
  const uint64_t size = immediate_of(reflection).size;
  if (size > device.limits().maxImmediateSize)
    return fmt::format(
        "per-draw immediate data is {} bytes (WGSL SizeOf({})), over the device's "
        "maxImmediateSize ({})",
        size, immediate_of(reflection).type, device.limits().maxImmediateSize);
  return std::nullopt;
}

class ImmediatesStrategy final : public Strategy {
 public:
  ImmediatesStrategy(const Device& device, const Scene& scene, const GpuScene& gpu)
      : device_(device),
        gpu_(gpu),
        reflection_(reflect_checked(shaders::cubes_immediates)),
        frame_(device, reflection_.struct_layout("GlobalUniforms")),
        materials_(device, scene, gpu, reflection_.struct_layout("MaterialUniforms")),
        immediate_size_(static_cast<uint32_t>(immediate_of(reflection_).size)) {
    check_struct_matches<PerObjectImmediatesGpu>(
        reflection_.struct_layout(immediate_of(reflection_).type));
    if (std::optional<std::string> why = unavailable_on(device, reflection_))
      throw Error(ErrorKind::StrategyUnavailable, "immediates strategy: " + *why);
    objects_.resize(size_t(scene.objects.size()) * immediate_size_);

    WGPUBindGroupLayout layouts[frame_material_groups::kGroupCount] = {};
    layouts[frame_material_groups::kFrameGroup] = frame_.layout();
    layouts[frame_material_groups::kMaterialGroup] = materials_.layout();
    pipeline_layout_ = create_pipeline_layout(device, layouts, "immediates", immediate_size_);
    module_ = device.create_shader_module("cubes_immediates.wgsl", shaders::cubes_immediates);
    pipeline_ = create_scene_pipeline(device, module_.get(), pipeline_layout_.get(), "immediates");

    // Draw order: pipeline > material > mesh, as dynamic-offsets (by_frequency.hpp).
    draws_.reserve(scene.objects.size());
    for (uint32_t i = 0; i < scene.objects.size(); ++i)
      draws_.add({.pipeline = 0,
                  .material = scene.objects[i].material,
                  .mesh = scene.objects[i].mesh,
                  .object_slot = i});
    draws_.sort(DrawOrder::material);
    with_context("creating the immediates strategy", [&] { device.check(); });
  }

  uint32_t draw_count() const override { return static_cast<uint32_t>(draws_.size()); }

  /// The frame's one writeBuffer (GlobalUniforms); the changed objects' values go into the CPU
  /// array that encode() hands to setImmediates.
  void upload(const FrameInputs& in, WGPUCommandEncoder) override {
    frame_.update(in.values);
    for (uint32_t i = in.changed_begin; i < in.changed_end; ++i) {
      const ObjectTransform& t = in.transforms[i];
      const PerObjectImmediatesGpu g{glm::vec4(t.normal[0], 0.0f), glm::vec4(t.normal[1], 0.0f),
                                     glm::vec4(t.normal[2], 0.0f), t.world};
      std::memcpy(object_bytes(i).data(), &g, sizeof(g));
    }
  }

  void encode(WGPURenderPassEncoder pass, uint32_t first, uint32_t last,
              Counters& counters) override {
    RenderPassState state(pass, counters, IntruderPolicy::build_default, &device_.limits());
    for (const DrawItem& item : draws_.items().subspan(first, last - first)) {
      const GpuMesh& mesh = gpu_.meshes[item.mesh];
      state.set_pipeline(pipeline_.get());
      state.set_bind_group(frame_material_groups::kFrameGroup, frame_.bind_group(), {},
                           Frequency::frame, 0);
      state.set_bind_group(frame_material_groups::kMaterialGroup,
                           materials_.bind_group(item.material), {}, Frequency::material,
                           item.material);
      state.set_vertex_buffer(0, mesh.vertices, mesh.vertex_offset, mesh.vertex_bytes);
      state.set_index_buffer(mesh.indices, mesh.index_format, mesh.index_offset,
                             mesh.index_bytes);
      state.set_immediates(0, object_bytes(item.object_slot));
      state.draw_indexed(mesh.index_count);
    }
  }

  std::vector<std::pair<std::string, std::string>> notes() const override {
    return {{"immediateBytesPerDraw", std::to_string(immediate_size_)},
            {"maxImmediateSize", std::to_string(device_.limits().maxImmediateSize)}};
  }

 private:
  std::span<std::byte> object_bytes(uint32_t object) {
    return {objects_.data() + size_t(object) * immediate_size_, immediate_size_};
  }

  const Device& device_;
  const GpuScene& gpu_;
  Reflection reflection_;
  FrameGroup frame_;
  MaterialGroups materials_;
  uint32_t immediate_size_ = 0;     ///< WGSL SizeOf of the var<immediate>, bytes
  std::vector<std::byte> objects_;  ///< every object's immediate bytes, object i at i * size
  gpu::PipelineLayout pipeline_layout_;
  gpu::ShaderModule module_;
  gpu::RenderPipeline pipeline_;
  DrawList draws_;
};

}  // namespace

extern const StrategyRow immediates_row{
    {"immediates",
     "frame / material groups; per-object values as immediate data (setImmediates per draw), no "
     "per-object buffer",
     "wgpu-native Immediates (WGSL var<immediate>); 001: bind groups by frequency"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions&) -> std::unique_ptr<Strategy> {
      return std::make_unique<ImmediatesStrategy>(device, scene, gpu);
    },
    [](const Device& device, const Scene&) -> std::optional<std::string> {
      return unavailable_on(device, reflect_checked(shaders::cubes_immediates));
    },
    /*parallel_encode=*/true};

}  // namespace bindery::strategies
