// SPDX-License-Identifier: MIT
// MaterialTable (include/bindery/gpu_driven/material_table.hpp): textures grouped into 2D-array
// textures by size class, materials in one storage array, and the WGSL that reads them.
#include "bindery/gpu_driven/material_table.hpp"

#include "bindery/core/features.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "internal/implementation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace bindery::gpu_driven {
namespace {

// Mip levels of a full chain for a w x h level 0: floor(log2(max(w, h))) + 1.
uint32_t full_chain_levels(uint32_t w, uint32_t h) {
  uint32_t levels = 1;
  while ((std::max(w, h) >> levels) > 0) ++levels;
  return levels;
}

std::string texture_name(const TextureData& t, size_t index) {
  return t.name.empty() ? fmt::format("texture {}", index)
                        : fmt::format("texture {} (\"{}\")", index, escape_for_message(t.name));
}

// TextureData's rules: at least one level, no more than the full chain, each level
// max(1, w >> i) x max(1, h >> i) x 4 bytes; level 0 within maxTextureDimension2D.
void check_texture(const TextureData& t, size_t index, const Limits& limits) {
  if (t.width == 0 || t.height == 0 || t.width > limits.maxTextureDimension2D ||
      t.height > limits.maxTextureDimension2D)
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("{} is {}x{}; each side must be 1..maxTextureDimension2D ({})",
                            texture_name(t, index), t.width, t.height,
                            limits.maxTextureDimension2D));
  const uint32_t chain = full_chain_levels(t.width, t.height);
  if (t.mips.empty() || t.mips.size() > chain)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{} has {} mip levels; a {}x{} texture has 1..{}",
                            texture_name(t, index), t.mips.size(), t.width, t.height, chain));
  for (size_t level = 0; level < t.mips.size(); ++level) {
    const uint64_t w = std::max(1u, t.width >> level), h = std::max(1u, t.height >> level);
    if (t.mips[level].size() != w * h * 4)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{} mip level {} has {} bytes; {}x{} RGBA8 texels are {} bytes",
                              texture_name(t, index), level, t.mips[level].size(), w, h,
                              w * h * 4));
  }
}

// The WGSL of MaterialRecord and the bindings (no functions): what the constructor reflects.
std::string declarations(uint32_t group, uint32_t first_binding, size_t arrays,
                         size_t samplers, bool binding_array = false) {
  std::string s =
      "// bindery MaterialTable: one record per material (alphaCutoff: 0 opaque, the cutoff for\n"
      "// mask, -1 blend), the texture's (array, layer) and its sampler.\n"
      "struct MaterialRecord {\n"
      "  color: vec4f,\n"
      "  shininess: f32,\n"
      "  alphaCutoff: f32,\n"
      "  textureArray: u32,\n"
      "  layer: u32,\n"
      "  samplerIndex: u32,\n"
      "};\n";
  s += fmt::format(
      "@group({}) @binding({}) var<storage, read> materialRecords: array<MaterialRecord>;\n",
      group, first_binding);
  if (binding_array) {
    s += fmt::format(
        "@group({}) @binding({}) var materialTextures: binding_array<texture_2d<f32>, {}>;\n",
        group, first_binding + 1, arrays);
    arrays = 1;  // one binding
  } else {
    for (size_t a = 0; a < arrays; ++a)
      s += fmt::format("@group({}) @binding({}) var materialArray{}: texture_2d_array<f32>;\n",
                       group, first_binding + 1 + a, a);
  }
  for (size_t i = 0; i < samplers; ++i)
    s += fmt::format("@group({}) @binding({}) var materialSampler{}: sampler;\n", group,
                     first_binding + 1 + arrays + i, i);
  return s;
}

// material_texel of the binding-array backend: the material's texture (textureArray = its index
// in the binding array, non-uniform across a draw) sampled with each sampler in the caller's
// uniform control flow and the material's sampler selected afterwards, up to
// kMaxImplicitLodPairs samplers; beyond, a switch over samplers with textureSampleGrad.
std::string binding_array_texel_function(size_t samplers, std::string_view name = "material_texel",
                                         bool implicit = true) {
  std::string s = fmt::format(
      "fn {}(m: MaterialRecord, uv: vec2f, ddx: vec2f, ddy: vec2f) -> vec4f {{\n"
      "  var texel = vec4f(1.0);\n",
      name);
  if (implicit && material_texel_uses_implicit_lod(1, samplers)) {
    for (size_t i = 0; i < samplers; ++i)
      s += fmt::format(
          "  let t{0} = textureSample(materialTextures[m.textureArray], materialSampler{0}, uv);\n"
          "  texel = select(texel, t{0}, m.samplerIndex == {0}u);\n",
          i);
  } else if (samplers > 0) {
    s += "  switch m.samplerIndex {\n";
    for (size_t i = 0; i < samplers; ++i)
      s += fmt::format(
          "    case {}u{}: {{ texel = textureSampleGrad(materialTextures[m.textureArray], "
          "materialSampler{}, uv, ddx, ddy); }}\n",
          i, i == 0 ? ", default" : "", i);
    s += "  }\n";
  }
  return s + "  return texel;\n}\n";
}

// material_texel: an outer switch over samplers, an inner one over arrays; an index out of range
// takes case 0 (the constructor and set_material never write one). `name` and `implicit`: the
// function's name and whether it may sample with implicit derivatives (material_texel_grad, for
// callers whose quad neighbours show other triangles, never does).
std::string texel_function(size_t arrays, size_t samplers, std::string_view name = "material_texel",
                           bool implicit = true) {
  if (implicit && material_texel_uses_implicit_lod(arrays, samplers)) {
    // Few (array, sampler) pairs: every pair sampled with textureSample in the caller's uniform
    // control flow (no branch before the samples), the material's pair selected afterwards. The
    // implicit derivatives then give exactly the texels of the CPU strategies' textureSample;
    // textureSampleGrad with the same derivatives picks other mip levels on some devices
    // (lavapipe: up to 4 levels off on 0.6% of a textured box's pixels).
    std::string u = fmt::format(
        "fn {}(m: MaterialRecord, uv: vec2f, ddx: vec2f, ddy: vec2f) -> vec4f {{\n"
        "  var texel = vec4f(1.0);\n",
        name);
    for (size_t i = 0; i < samplers; ++i)
      for (size_t a = 0; a < arrays; ++a)
        u += fmt::format(
            "  let t{0}_{1} = textureSample(materialArray{1}, materialSampler{0}, uv, m.layer);\n"
            "  texel = select(texel, t{0}_{1}, m.samplerIndex == {0}u && m.textureArray == {1}u);\n",
            i, a);
    return u + "  return texel;\n}\n";
  }
  std::string s = fmt::format(
      "fn {}(m: MaterialRecord, uv: vec2f, ddx: vec2f, ddy: vec2f) -> vec4f {{\n"
      "  var texel = vec4f(1.0);\n",
      name);
  if (arrays > 0 && samplers > 0) {
    s += "  switch m.samplerIndex {\n";
    for (size_t i = 0; i < samplers; ++i) {
      s += fmt::format("    case {}u{}: {{\n      switch m.textureArray {{\n", i,
                       i == 0 ? ", default" : "");
      for (size_t a = 0; a < arrays; ++a)
        s += fmt::format(
            "        case {}u{}: {{ texel = textureSampleGrad(materialArray{}, materialSampler{}, "
            "uv, m.layer, ddx, ddy); }}\n",
            a, a == 0 ? ", default" : "", a, i);
      s += "      }\n    }\n";
    }
    s += "  }\n";
  }
  s += "  return texel;\n}\n";
  return s;
}

// Every texture its own class (layers 1) and slot {i, 0}: the binding-array backend's plan.
TextureClassPlan one_class_per_texture(std::span<const TextureData> textures) {
  TextureClassPlan plan;
  for (uint32_t i = 0; i < textures.size(); ++i) {
    const TextureData& t = textures[i];
    plan.classes.push_back({t.width, t.height, static_cast<uint32_t>(t.mips.size()),
                            WGPUTextureFormat_RGBA8Unorm, 1});
    plan.slots.push_back({i, 0});
  }
  return plan;
}

}  // namespace

std::string_view to_string(MaterialBackend backend) {
  return backend == MaterialBackend::binding_array ? "binding-array" : "texture-arrays";
}

std::optional<MaterialBackend> parse_material_backend(std::string_view name) {
  for (MaterialBackend b : {MaterialBackend::texture_arrays, MaterialBackend::binding_array})
    if (to_string(b) == name) return b;
  return std::nullopt;
}

std::optional<std::string> material_backend_unavailable(const Device& device,
                                                        MaterialBackend backend,
                                                        uint32_t textures) {
  if (backend == MaterialBackend::texture_arrays) return std::nullopt;
  if (std::optional<std::string> why =
          implementation::texture_binding_array_unavailable(device.get(), std::max(textures, 1u)))
    return "the binding-array material backend is unavailable: " + *why;
  return std::nullopt;
}

TextureClassPlan plan_texture_classes(std::span<const TextureData> textures, uint32_t max_layers) {
  if (max_layers == 0)
    throw Error(ErrorKind::InvalidArgument,
                "plan_texture_classes: max_layers is 0; an array texture holds at least 1 layer "
                "(maxTextureArrayLayers)");
  TextureClassPlan plan;
  // (width, height, mips, format) -> the newest array of that class.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, int>, uint32_t> open;
  for (size_t i = 0; i < textures.size(); ++i) {
    const TextureData& t = textures[i];
    if (t.width == 0 || t.height == 0 || t.mips.empty())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("plan_texture_classes: {} is {}x{} with {} mip levels; a texture "
                              "needs a non-zero size and at least one level",
                              texture_name(t, i), t.width, t.height, t.mips.size()));
    TextureClass c;
    c.width = t.width;
    c.height = t.height;
    c.mip_levels = static_cast<uint32_t>(t.mips.size());
    const auto key = std::make_tuple(c.width, c.height, c.mip_levels, int(c.format));
    auto it = open.find(key);
    if (it == open.end() || plan.classes[it->second].layers >= max_layers) {
      plan.classes.push_back(c);
      it = open.insert_or_assign(key, static_cast<uint32_t>(plan.classes.size() - 1)).first;
    }
    TextureClass& array = plan.classes[it->second];
    plan.slots.push_back({it->second, array.layers});
    array.layers++;
  }
  return plan;
}

MaterialTable::MaterialTable(const Device& device, std::span<const Material> materials,
                             std::span<const TextureData> textures,
                             std::span<const SamplerData> samplers, const MaterialTableDesc& desc,
                             uint32_t reserved_textures, uint32_t reserved_samplers)
    : device_(&device),
      backend_(desc.backend),
      material_count_(static_cast<uint32_t>(materials.size())),
      texture_count_(static_cast<uint32_t>(textures.size())) {
  const CallScope scope(device);
  const Limits& limits = device.limits();
  for (size_t i = 0; i < textures.size(); ++i) check_texture(textures[i], i, limits);
  const uint32_t max_layers = desc.max_array_layers == 0
                                  ? limits.maxTextureArrayLayers
                                  : std::min(desc.max_array_layers, limits.maxTextureArrayLayers);
  if (backend_ == MaterialBackend::binding_array) {
    if (std::optional<std::string> why = material_backend_unavailable(
            device, backend_, static_cast<uint32_t>(textures.size()))) {
      // The feature is missing from the device but the adapter has it: not requested.
      bool adapter_offers = false;
      for (const FeatureNeed& n : implementation::native_feature_needs())
        if (n.used_by.find("binding_array") != std::string::npos && !device.has_feature(n.feature))
          adapter_offers = adapter_offers ||
                           describe_missing_feature(device, n.feature, n.name).adapter_offers;
      throw Error(adapter_offers ? ErrorKind::FeatureNotRequested : ErrorKind::StrategyUnavailable,
                  adapter_offers ? *why + " (the adapter offers the feature: the device was "
                                          "created without it; see bindery::best_features())"
                                 : *why);
    }
    plan_ = one_class_per_texture(textures);
  } else {
    plan_ = plan_texture_classes(textures, max_layers);
  }
  const uint64_t texture_budget =
      limits.maxSampledTexturesPerShaderStage - std::min(limits.maxSampledTexturesPerShaderStage,
                                                         reserved_textures);
  if (!binding_array() && plan_.classes.size() > texture_budget)
    throw Error(ErrorKind::StrategyUnavailable,
                fmt::format("{} textures need {} 2D-array textures (size classes, at most {} "
                            "layers each); maxSampledTexturesPerShaderStage ({}) minus {} reserved "
                            "leaves {}",
                            textures.size(), plan_.classes.size(), max_layers,
                            limits.maxSampledTexturesPerShaderStage, reserved_textures,
                            texture_budget));
  const uint64_t sampler_budget =
      limits.maxSamplersPerShaderStage - std::min(limits.maxSamplersPerShaderStage,
                                                  reserved_samplers);
  if (samplers.size() > sampler_budget)
    throw Error(ErrorKind::StrategyUnavailable,
                fmt::format("{} samplers exceed maxSamplersPerShaderStage ({}) minus {} reserved "
                            "({})",
                            samplers.size(), limits.maxSamplersPerShaderStage, reserved_samplers,
                            sampler_budget));
  if (!textures.empty() && samplers.empty() && !materials.empty())
    throw Error(ErrorKind::InvalidArgument,
                "materials with textures need at least one sampler (samplers is empty)");
  for (const SamplerData& s : samplers) {
    WGPUSamplerDescriptor sd = sampler_descriptor(s);
    const std::string label = fmt::format("{} sampler {}", desc.label, samplers_.size());
    sd.label = gpu::sv(label);
    samplers_.push_back(gpu::Sampler::acquire(wgpuDeviceCreateSampler(device.get(), &sd)));
  }

  // The record layout comes from the WGSL this table generates (reflected, never hand-counted).
  // (The binding-array backend's record is the same struct; bindery's reflector reads it from the
  // declarations without the binding array, which it has no layout to compute for.)
  reflection_ = reflect_wgsl(binding_array() ? material_table_wgsl(0, 0, 0, samplers_.size())
                                             : wgsl(0, 0));
  reflection_.throw_if_errors();
  const StructLayout& record = record_layout();
  for (size_t i = 0; i < materials.size(); ++i)
    check_material(materials[i], fmt::format("material {}", i));
  const uint64_t bytes = uint64_t(std::max<size_t>(materials.size(), 1)) * record.size;
  if (bytes > limits.maxStorageBufferBindingSize)
    throw Error(ErrorKind::StorageBindingTooLarge,
                fmt::format("{} materials need {} bytes of MaterialRecord ({} each) in one "
                            "binding; maxStorageBufferBindingSize is {}",
                            materials.size(), bytes, record.size,
                            limits.maxStorageBufferBindingSize));
  buffer_ = device.create_buffer(desc.label + " records", bytes,
                                 WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc);
  std::vector<std::byte> all(bytes);
  for (size_t i = 0; i < materials.size(); ++i) {
    const std::vector<std::byte> one = pack(materials[i]);
    std::copy(one.begin(), one.end(), all.begin() + i * record.size);
  }
  device.write_buffer(buffer_.get(), 0, all.data(), all.size());
  upload_textures(device, textures, desc);
  with_context("creating the material table", [&] { device.check(); });
}

void MaterialTable::upload_textures(const Device& device, std::span<const TextureData> textures,
                                    const MaterialTableDesc& desc) {
  const CallScope scope(device);
  for (size_t a = 0; a < plan_.classes.size(); ++a) {
    const TextureClass& c = plan_.classes[a];
    const std::string label = fmt::format("{} array {} ({}x{}, {} levels)", desc.label, a,
                                          c.width, c.height, c.mip_levels);
    WGPUTextureDescriptor td = WGPU_TEXTURE_DESCRIPTOR_INIT;
    td.label = gpu::sv(label);
    td.size = {c.width, c.height, c.layers};
    td.format = c.format;
    td.mipLevelCount = c.mip_levels;
    td.usage = WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopyDst;
    arrays_.push_back(device.create_texture(td));
    // An explicit 2D-array view: the default view of a 1-layer texture would be "2d". The
    // binding array holds 2D views.
    WGPUTextureViewDescriptor vd = WGPU_TEXTURE_VIEW_DESCRIPTOR_INIT;
    vd.dimension = binding_array() ? WGPUTextureViewDimension_2D : WGPUTextureViewDimension_2DArray;
    views_.push_back(
        gpu::TextureView::acquire(wgpuTextureCreateView(arrays_.back().get(), &vd)));
    raw_views_.push_back(views_.back().get());
  }
  if (binding_array()) {
    layout_chain_ = implementation::binding_array_layout_chain(static_cast<uint32_t>(views_.size()));
    group_chain_ = implementation::binding_array_group_chain(raw_views_);
  }
  for (size_t i = 0; i < textures.size(); ++i) {
    const TextureData& t = textures[i];
    const TextureSlot s = plan_.slots[i];
    for (uint32_t level = 0; level < t.mips.size(); ++level) {
      const uint32_t w = std::max(1u, t.width >> level), h = std::max(1u, t.height >> level);
      WGPUTexelCopyTextureInfo dst = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
      dst.texture = arrays_[s.array].get();
      dst.mipLevel = level;
      dst.origin = {0, 0, s.layer};
      WGPUTexelCopyBufferLayout layout = WGPU_TEXEL_COPY_BUFFER_LAYOUT_INIT;
      layout.bytesPerRow = w * 4;
      layout.rowsPerImage = h;
      const WGPUExtent3D size = {w, h, 1};
      wgpuQueueWriteTexture(device.queue(), &dst, t.mips[level].data(), t.mips[level].size(),
                            &layout, &size);
    }
  }
}

void MaterialTable::check_material(const Material& m, std::string_view what) const {
  if (texture_count_ == 0) return;  // no texture: material_texel returns vec4f(1)
  if (m.texture >= texture_count_)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{} names texture {}; there are {}", what, m.texture, texture_count_));
  if (m.sampler >= samplers_.size())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{} names sampler {}; there are {}", what, m.sampler,
                            samplers_.size()));
}

std::vector<std::byte> MaterialTable::pack(const Material& m) const {
  const StructLayout& record = record_layout();
  std::vector<std::byte> bytes(record.size);
  StructView v(record, std::span<std::byte>(bytes));
  v.set(record.field("color"), m.color);
  v.set(record.field("shininess"), m.shininess);
  v.set(record.field("alphaCutoff"), shader_alpha_cutoff(m));
  const TextureSlot s = texture_count_ == 0 ? TextureSlot{} : slot(m.texture);
  v.set(record.field("textureArray"), s.array);
  v.set(record.field("layer"), s.layer);
  v.set(record.field("samplerIndex"), texture_count_ == 0 ? 0u : m.sampler);
  return bytes;
}

TextureSlot MaterialTable::slot(uint32_t texture) const {
  if (texture >= plan_.slots.size())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("MaterialTable::slot: texture {} does not exist; there are {}",
                            texture, plan_.slots.size()));
  return plan_.slots[texture];
}

void MaterialTable::set_material(uint32_t index, const Material& m) {
  if (index >= material_count_)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("MaterialTable::set_material: material {} does not exist; there are {}",
                            index, material_count_));
  check_material(m, fmt::format("MaterialTable::set_material({})", index));
  const std::vector<std::byte> bytes = pack(m);
  device_->write_buffer(buffer_.get(), uint64_t(index) * bytes.size(), bytes.data(), bytes.size());
}

std::vector<WGPUBindGroupLayoutEntry> MaterialTable::layout_entries(uint32_t first_binding) const {
  const size_t texture_bindings = binding_array() ? 1 : views_.size();
  const uint64_t last = uint64_t(first_binding) + texture_bindings + samplers_.size();
  const uint32_t max_bindings = device_->limits().maxBindingsPerBindGroup;
  if (last >= max_bindings)
    throw Error(ErrorKind::BindingNumberTooLarge,
                fmt::format("the material table's bindings {}..{} reach maxBindingsPerBindGroup "
                            "({})",
                            first_binding, last, max_bindings));
  const WGPUShaderStage fs = WGPUShaderStage_Fragment;
  std::vector<WGPUBindGroupLayoutEntry> entries;
  entries.push_back(buffer_layout_entry(first_binding, fs, WGPUBufferBindingType_ReadOnlyStorage,
                                        false, record_layout().size));
  for (size_t a = 0; a < texture_bindings; ++a) {
    WGPUBindGroupLayoutEntry e = texture_layout_entry(
        static_cast<uint32_t>(first_binding + 1 + a), fs, WGPUTextureSampleType_Float,
        binding_array() ? WGPUTextureViewDimension_2D : WGPUTextureViewDimension_2DArray);
    e.nextInChain = binding_array() ? layout_chain_.get() : nullptr;
    entries.push_back(e);
  }
  for (size_t i = 0; i < samplers_.size(); ++i)
    entries.push_back(
        sampler_layout_entry(static_cast<uint32_t>(first_binding + 1 + texture_bindings + i), fs));
  return entries;
}

std::vector<WGPUBindGroupEntry> MaterialTable::group_entries(uint32_t first_binding) const {
  std::vector<WGPUBindGroupEntry> entries;
  entries.push_back(buffer_group_entry(first_binding, buffer_.get()));
  const size_t texture_bindings = binding_array() ? 1 : views_.size();
  if (binding_array()) {
    WGPUBindGroupEntry e = texture_group_entry(first_binding + 1, nullptr);
    e.nextInChain = group_chain_.get();
    entries.push_back(e);
  } else {
    for (size_t a = 0; a < views_.size(); ++a)
      entries.push_back(
          texture_group_entry(static_cast<uint32_t>(first_binding + 1 + a), views_[a].get()));
  }
  for (size_t i = 0; i < samplers_.size(); ++i)
    entries.push_back(sampler_group_entry(
        static_cast<uint32_t>(first_binding + 1 + texture_bindings + i), samplers_[i].get()));
  return entries;
}

std::string material_table_wgsl(uint32_t group, uint32_t first_binding, size_t arrays,
                                size_t samplers) {
  return declarations(group, first_binding, arrays, samplers) + texel_function(arrays, samplers) +
         texel_function(arrays, samplers, "material_texel_grad", false);
}

std::string MaterialTable::wgsl(uint32_t group, uint32_t first_binding) const {
  if (binding_array())
    return declarations(group, first_binding, plan_.classes.size(), samplers_.size(), true) +
           binding_array_texel_function(samplers_.size()) +
           binding_array_texel_function(samplers_.size(), "material_texel_grad", false);
  return material_table_wgsl(group, first_binding, plan_.classes.size(), samplers_.size());
}

}  // namespace bindery::gpu_driven
