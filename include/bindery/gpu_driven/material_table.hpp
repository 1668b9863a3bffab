// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu_driven/material_table.hpp — every material of a scene in one storage array and every
/// texture, whatever its size, in a few 2D-array textures, so that draws of any material share one
/// bind group (WebGPU has no bindless: a shader names each texture binding statically).
///
/// How: textures are grouped by size class (width, height, mip level count, format); each class
/// becomes one `texture_2d_array<f32>` (several when it has more layers than
/// maxTextureArrayLayers), and each texture one layer of it. A material becomes one MaterialRecord
/// (colour, shininess, alpha cutoff, the array and layer of its texture, its sampler), indexed by
/// the object's material in the shader. The generated WGSL (MaterialTable::wgsl()) declares the
/// bindings and `material_texel()`, which picks the array and the sampler through a `switch` and
/// samples with textureSampleGrad: explicit derivatives make the call legal in non-uniform control
/// flow (WGSL §15.2, "uniformity analysis": textureSample needs uniform control flow) and, given
/// dpdx/dpdy of the same coordinates, choose the same mip level as textureSample, so the image is
/// the one a bind group per material (texture view + sampler) draws.
///
/// A second backend, MaterialBackend::binding_array, binds every texture as it is (its own size
/// and mips) in one `binding_array<texture_2d<f32>, N>` indexed by the material's texture, where
/// the implementation offers binding arrays with non-uniform indexing (wgpu-native's
/// TextureBindingArray and SampledTextureAndStorageBufferArrayNonUniformIndexing; not webgpu.h,
/// not Dawn): no size classes, the same image (tested). material_backend_unavailable() says in one
/// line why a device cannot take it.
///
/// Limits read: maxTextureArrayLayers (layers per array; bigger classes are split),
/// maxTextureDimension2D (texture sizes), maxSampledTexturesPerShaderStage (one texture binding per
/// array), maxSamplersPerShaderStage (one sampler binding per sampler), maxStorageBufferBindingSize
/// (the material array), maxBindingsPerBindGroup (the bindings' numbers).
///
/// Use:
/// @code
///   gpu_driven::MaterialTable table(device, scene.materials, scene.textures, scene.samplers);
///   // layout: table.layout_entries(0) in group 1; WGSL: table.wgsl(1, 0) + the shader's code
///   // fragment: let m = materialRecords[material];
///   //           let uv = in.texcoord; let ddx = dpdx(uv); let ddy = dpdy(uv);  // uniform flow
///   //           let texel = material_texel(m, uv, ddx, ddy);
/// @endcode
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/data/scene_data.hpp"
#include "bindery/data/scene_gpu.hpp"  // sampler_descriptor(), shader_alpha_cutoff()
#include "bindery/wgsl/wgsl_layout.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <optional>
#include <memory>
#include <vector>

namespace bindery::gpu_driven {

/// A size class: textures that can share one 2D-array texture (same level-0 width and height in
/// texels, same mip level count, same format), and how many layers its array holds.
struct TextureClass {
  uint32_t width = 0;       ///< level-0 width, texels
  uint32_t height = 0;      ///< level-0 height, texels
  uint32_t mip_levels = 0;  ///< mip level count of every layer
  WGPUTextureFormat format = WGPUTextureFormat_RGBA8Unorm;  ///< texel format (TextureData: RGBA8)
  uint32_t layers = 0;      ///< depthOrArrayLayers of the array texture, 1..max_layers
  /// Same width, height, mip count and format (layers not compared).
  bool same_class(const TextureClass& o) const {
    return width == o.width && height == o.height && mip_levels == o.mip_levels &&
           format == o.format;
  }
};

/// Where one scene texture lives: `array` indexes MaterialTable::classes() (and the WGSL binding
/// first_binding + 1 + array), `layer` is its array layer.
struct TextureSlot {
  uint32_t array = 0;  ///< which 2D-array texture
  uint32_t layer = 0;  ///< which layer of it
  bool operator==(const TextureSlot&) const = default;  ///< same array and layer
};

/// The grouping of textures into arrays: one TextureClass per array texture, one TextureSlot per
/// texture (same order as the textures).
struct TextureClassPlan {
  std::vector<TextureClass> classes;  ///< one per array texture, in order of first use
  std::vector<TextureSlot> slots;     ///< slots[i]: where textures[i] lives
};

/// Groups `textures` into 2D-array textures, without a device: textures are taken in order; each
/// goes to the newest array of its class (width, height, mips.size(), RGBA8Unorm) at the next
/// layer, or opens a new array (appended to `classes`) when its class has none yet or that array
/// already holds `max_layers` layers (maxTextureArrayLayers). Throws InvalidArgument when
/// `max_layers` is 0 or a texture has a zero size or no mip level.
TextureClassPlan plan_texture_classes(std::span<const TextureData> textures, uint32_t max_layers);

/// The WGSL MaterialTable::wgsl() returns for a table of `arrays` array textures and `samplers`
/// samplers at `group`, bindings from `first_binding` (see there). Needs no device: the record
/// layout can be reflected from it (reflect_wgsl).
std::string material_table_wgsl(uint32_t group, uint32_t first_binding, size_t arrays,
                                size_t samplers);

/// Most (array, sampler) pairs for which material_texel() samples every pair with textureSample
/// in the caller's uniform control flow and selects the material's afterwards: exactly the texels
/// of one textureSample per material (the CPU strategies' call). Above it, material_texel()
/// branches to the material's pair and samples with textureSampleGrad and the caller's
/// derivatives, whose level of detail an implementation may compute differently (WGSL §17.5).
inline constexpr size_t kMaxImplicitLodPairs = 16;
/// Whether material_texel() of `arrays` arrays and `samplers` samplers samples with textureSample
/// (implicit level of detail): arrays * samplers is 1..kMaxImplicitLodPairs.
constexpr bool material_texel_uses_implicit_lod(size_t arrays, size_t samplers) {
  return arrays > 0 && samplers > 0 && arrays * samplers <= kMaxImplicitLodPairs;
}

/// How a MaterialTable binds its textures.
enum class MaterialBackend {
  texture_arrays,  ///< one texture_2d_array per size class (any WebGPU device)
  binding_array,   ///< one binding_array<texture_2d<f32>, N> of every texture (wgpu-native)
};
/// The backend's name as `--material-backend` takes it: "texture-arrays", "binding-array".
std::string_view to_string(MaterialBackend backend);
/// The backend named `name` (to_string()'s spelling); nullopt for any other text.
std::optional<MaterialBackend> parse_material_backend(std::string_view name);
/// Why `device` cannot take `backend` for `textures` textures (one line: the missing feature or
/// the limit, maxBindingArrayElementsPerShaderStage), or nullopt. texture_arrays: always nullopt.
std::optional<std::string> material_backend_unavailable(const Device& device,
                                                        MaterialBackend backend,
                                                        uint32_t textures);

/// Options of a MaterialTable.
struct MaterialTableDesc {
  /// Prefix of the GPU labels ("materials records", "materials array 0", ...).
  std::string label = "materials";
  /// Layers per array texture at most; 0 = the device's maxTextureArrayLayers. A smaller value
  /// splits classes sooner (tests use it); larger than the limit is clamped to it.
  uint32_t max_array_layers = 0;
  /// How textures are bound. binding_array throws StrategyUnavailable (the one line of
  /// material_backend_unavailable()) where the device cannot take it, FeatureNotRequested where
  /// the device lacks a feature its adapter offers (bindery/core/features.hpp).
  MaterialBackend backend = MaterialBackend::texture_arrays;
};

/// Materials in one storage array indexed by the object's material, and every texture grouped by
/// size class into 2D-array textures, so draws of any material need no bind group change (no
/// bindless in WebGPU). Move-only; owns its buffer, textures, views and samplers.
class MaterialTable {
 public:
  /// Uploads `textures` (with their mips) into one 2D-array texture per (width, height, mip
  /// count, format) class — a class with more layers than maxTextureArrayLayers (or
  /// desc.max_array_layers) is split into several arrays —, creates one sampler per `samplers`
  /// entry, and writes one MaterialRecord per material.
  /// Throws StrategyUnavailable (one line naming the limit) when the arrays exceed
  /// maxSampledTexturesPerShaderStage minus `reserved_textures`, or the samplers
  /// maxSamplersPerShaderStage minus `reserved_samplers` (the bindings the caller's shader stage
  /// uses besides the table's); StorageBindingTooLarge when the records exceed
  /// maxStorageBufferBindingSize; TextureSizeOutOfRange when a texture is larger than
  /// maxTextureDimension2D; InvalidArgument when a material names a texture or sampler that does
  /// not exist, a texture has no level, more levels than its full chain or a level of the wrong
  /// byte size (TextureData), or materials name textures but `samplers` is empty.
  MaterialTable(const Device& device, std::span<const Material> materials,
                std::span<const TextureData> textures, std::span<const SamplerData> samplers,
                const MaterialTableDesc& desc = {}, uint32_t reserved_textures = 0,
                uint32_t reserved_samplers = 0);
  MaterialTable(MaterialTable&&) noexcept = default;             ///< moves the resources
  MaterialTable& operator=(MaterialTable&&) noexcept = default;  ///< moves the resources

  /// One size class per array texture (binding first_binding + 1 + index); with the
  /// binding-array backend one per texture, layers 1, bound as element `index` of the array.
  const std::vector<TextureClass>& classes() const { return plan_.classes; }
  /// The backend the table was created with.
  MaterialBackend backend() const { return backend_; }
  /// Where texture `texture` (index into the constructor's `textures`) lives. Throws
  /// InvalidArgument when out of range.
  TextureSlot slot(uint32_t texture) const;
  /// Number of materials (records in buffer()).
  uint32_t material_count() const { return material_count_; }
  /// Number of samplers (sampler bindings).
  uint32_t sampler_count() const { return static_cast<uint32_t>(samplers_.size()); }
  /// Rewrites record `index` (queue.writeBuffer of one record; visible to work submitted after
  /// the call). Throws InvalidArgument when `index` >= material_count() or `m` names a texture or
  /// sampler that does not exist.
  void set_material(uint32_t index, const Material& m);
  /// The material records: usage STORAGE | COPY_DST | COPY_SRC (to read back), one MaterialRecord
  /// per material (at least one record's bytes, zero when there is no material), stride
  /// record_layout().size.
  WGPUBuffer buffer() const { return buffer_.get(); }
  /// The reflected layout of WGSL `MaterialRecord` (fields color, shininess, alphaCutoff,
  /// textureArray, layer, sampler), read from wgsl()'s own text.
  const StructLayout& record_layout() const { return reflection_.struct_layout("MaterialRecord"); }
  /// The bytes of one record for `m` (length record_layout().size), packed through StructView.
  std::vector<std::byte> pack(const Material& m) const;

  /// Bind group layout entries for group `group`: binding first_binding = the material array
  /// (read-only storage, fragment, minBindingSize one record), then one texture_2d_array<f32>
  /// (float, filterable) per array, then one filtering sampler per sampler, all fragment-visible.
  /// Throws BindingNumberTooLarge when the last binding number reaches maxBindingsPerBindGroup.
  std::vector<WGPUBindGroupLayoutEntry> layout_entries(uint32_t first_binding) const;
  /// The bind group entries matching layout_entries(first_binding) (the handles are lent: valid
  /// while this table lives).
  std::vector<WGPUBindGroupEntry> group_entries(uint32_t first_binding) const;
  /// WGSL for a shader at `group`, `first_binding`: struct MaterialRecord, the bindings
  /// (`materialRecords`, `materialArray<i>`, `materialSampler<s>`) and
  /// `fn material_texel(m: MaterialRecord, uv: vec2f, ddx: vec2f, ddy: vec2f) -> vec4f`, which
  /// samples (array, layer) with the material's sampler by textureSampleGrad through a switch over
  /// arrays and samplers (legal in non-uniform control flow: the caller takes dpdx/dpdy of uv in
  /// uniform control flow). With no texture it returns vec4f(1). Also `fn material_texel_grad`
  /// (the same arguments), which always samples with textureSampleGrad and the given derivatives:
  /// for callers whose quad neighbours are other triangles (the compute rasterizer's resolve).
  std::string wgsl(uint32_t group, uint32_t first_binding) const;
  /// Whether this table's material_texel() samples with textureSample (see
  /// material_texel_uses_implicit_lod()).
  bool implicit_lod() const {
    return backend_ == MaterialBackend::binding_array
               ? material_texel_uses_implicit_lod(plan_.classes.empty() ? 0 : 1, samplers_.size())
               : material_texel_uses_implicit_lod(plan_.classes.size(), samplers_.size());
  }

 private:
  void check_material(const Material& m, std::string_view what) const;
  void upload_textures(const Device& device, std::span<const TextureData> textures,
                       const MaterialTableDesc& desc);

  bool binding_array() const {
    return backend_ == MaterialBackend::binding_array && !plan_.classes.empty();
  }
  const Device* device_;
  MaterialBackend backend_ = MaterialBackend::texture_arrays;
  TextureClassPlan plan_;
  Reflection reflection_;
  uint32_t material_count_ = 0;
  uint32_t texture_count_ = 0;
  gpu::Buffer buffer_;
  std::vector<gpu::Texture> arrays_;
  std::vector<gpu::TextureView> views_;
  std::vector<WGPUTextureView> raw_views_;  // views_ as the binding array's chain lends them
  std::shared_ptr<WGPUChainedStruct> layout_chain_, group_chain_;  // binding_array only
  std::vector<gpu::Sampler> samplers_;
};

}  // namespace bindery::gpu_driven
