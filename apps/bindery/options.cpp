// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <bindery/render/renderer.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace bindery::cli {

std::pair<uint32_t, uint32_t> parse_size(const std::string& s, std::string_view command) {
  const auto x = s.find('x');
  auto bad = [&] {
    return Error(ErrorKind::SceneInput,
                 fmt::format("{}: --size '{}' is not WIDTHxHEIGHT with positive integers "
                             "(e.g. 640x480; 1x1 is the article's render-off mode)",
                             command, s));
  };
  if (x == std::string::npos) throw bad();
  int64_t w = -1, h = -1;
  auto r1 = std::from_chars(s.data(), s.data() + x, w);
  auto r2 = std::from_chars(s.data() + x + 1, s.data() + s.size(), h);
  if (r1.ec != std::errc() || r1.ptr != s.data() + x || r2.ec != std::errc() ||
      r2.ptr != s.data() + s.size())
    throw bad();
  if (w <= 0 || h <= 0 || w > UINT32_MAX || h > UINT32_MAX)
    throw Error(
        ErrorKind::TextureSizeOutOfRange,
        fmt::format("{}: --size {}: each side must be 1..maxTextureDimension2D", command, s));
  return {static_cast<uint32_t>(w), static_cast<uint32_t>(h)};
}

void add_device_options(CLI::App& sub, DeviceCliOptions& o) {
  sub.add_option("--backend", o.backend, "WebGPU backend: any (Vulkan, then GL), vulkan, gl")
      ->check(CLI::IsMember({"any", "vulkan", "gl"}))
      ->capture_default_str();
  sub.add_option("--limits", o.limits,
                 "device limits to require: adapter (the adapter's best) or default (spec "
                 "defaults, e.g. minUniformBufferOffsetAlignment 256)")
      ->check(CLI::IsMember({"adapter", "default"}))
      ->capture_default_str();
  sub.add_option("--uniform-alignment", o.uniform_alignment,
                 "require this minUniformBufferOffsetAlignment (power of two, not better than "
                 "the adapter's)");
}

DeviceOptions to_device_options(const DeviceCliOptions& o) {
  const uint32_t spec_default = Limits::core_defaults().minUniformBufferOffsetAlignment;
  if (o.uniform_alignment && *o.uniform_alignment > spec_default)
    throw Error(
        ErrorKind::DeviceCreation,
        fmt::format("--uniform-alignment {}: WebGPU raises a requested alignment worse than "
                    "the spec default ({}) to that default; ask for a power of two up to {}",
                    *o.uniform_alignment, spec_default, spec_default));
  DeviceOptions d;
  d.backend = o.backend == "vulkan" ? Backend::vulkan
              : o.backend == "gl"   ? Backend::gl
                                    : Backend::any;
  d.limits = o.limits == "default" ? LimitsRequest::spec_default : LimitsRequest::adapter_best;
  d.min_uniform_buffer_offset_alignment = o.uniform_alignment;
  return d;
}

nlohmann::ordered_json implementation_json(const AdapterDescription& a) {
  return {{"name", a.implementation}, {"revision", a.implementation_revision}};
}

nlohmann::ordered_json adapter_json(const AdapterDescription& a) {
  return {{"name", a.name},         {"backend", a.backend},     {"driver", a.driver},
          {"type", a.adapter_type}, {"vendor_id", a.vendor_id}, {"device_id", a.device_id}};
}

nlohmann::ordered_json limits_json(const Limits& l) {
  return {
      {"minUniformBufferOffsetAlignment", l.minUniformBufferOffsetAlignment},
      {"minStorageBufferOffsetAlignment", l.minStorageBufferOffsetAlignment},
      {"maxUniformBufferBindingSize", l.maxUniformBufferBindingSize},
      {"maxStorageBufferBindingSize", l.maxStorageBufferBindingSize},
      {"maxBufferSize", l.maxBufferSize},
      {"maxBindGroups", l.maxBindGroups},
      {"maxBindingsPerBindGroup", l.maxBindingsPerBindGroup},
      {"maxDynamicUniformBuffersPerPipelineLayout", l.maxDynamicUniformBuffersPerPipelineLayout},
      {"maxDynamicStorageBuffersPerPipelineLayout", l.maxDynamicStorageBuffersPerPipelineLayout},
      {"maxUniformBuffersPerShaderStage", l.maxUniformBuffersPerShaderStage},
      {"maxStorageBuffersPerShaderStage", l.maxStorageBuffersPerShaderStage},
      {"maxSampledTexturesPerShaderStage", l.maxSampledTexturesPerShaderStage},
      {"maxSamplersPerShaderStage", l.maxSamplersPerShaderStage},
      {"maxTextureDimension2D", l.maxTextureDimension2D},
      {"maxTextureArrayLayers", l.maxTextureArrayLayers},
      {"maxVertexBuffers", l.maxVertexBuffers},
      {"maxComputeWorkgroupsPerDimension", l.maxComputeWorkgroupsPerDimension},
      {"maxImmediateSize", l.maxImmediateSize}};
}

std::string strategy_names() {
  std::string names;
  for (const StrategyInfo& info : strategy_catalog())
    names += fmt::format("{}{}", names.empty() ? "" : ", ", info.name);
  return names;
}

std::vector<std::string> parse_strategy_list(const std::string& list, std::string_view command) {
  std::vector<std::string> names;
  if (list == "all") {
    for (const StrategyInfo& info : strategy_catalog()) names.emplace_back(info.name);
    return names;
  }
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string name =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: --strategies '{}' has an empty name (names are separated "
                              "by single commas)",
                              command, list));
    with_context("reading --strategies", [&] { return find_strategy(name); });
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: --strategies lists '{}' twice", command, name));
    names.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

nlohmann::ordered_json counters_json(const Counters& c) {
  return {{"draws", c.draws},
          {"setPipeline", c.set_pipeline},
          {"setBindGroup", c.set_bind_group},
          {"setBindGroupSkipped", c.set_bind_group_skipped},
          {"setVertexBuffer", c.set_vertex_buffer},
          {"setIndexBuffer", c.set_index_buffer},
          {"writeBuffer", c.write_buffer_calls},
          {"bytesUploaded", c.bytes_uploaded},
          {"copyBufferToBuffer", c.copy_buffer_to_buffer},
          {"mapAsync", c.map_async},
          {"executeBundles", c.execute_bundles},
          {"setImmediates", c.set_immediates},
          {"immediateBytes", c.immediate_bytes},
          {"bindGroupsCreated", c.bind_groups_created},
          {"buffersCreated", c.buffers_created},
          {"bufferBytesCreated", c.buffer_bytes_created}};
}

bool is_capacity_limit(ErrorKind kind) {
  return kind == ErrorKind::ImplementationLimit || kind == ErrorKind::BufferTooLarge ||
         kind == ErrorKind::OutOfMemory || kind == ErrorKind::StorageBindingTooLarge ||
         kind == ErrorKind::UniformBindingTooLarge;
}

void add_city_options(CLI::App& sub, CityCliOptions& o) {
  sub.add_option("--meshes", o.meshes, "--scene city: unique procedural meshes (1..200000)")
      ->capture_default_str();
  sub.add_option("--materials", o.materials, "--scene city: materials (1..100000)")
      ->capture_default_str();
  sub.add_option("--textures", o.textures, "--scene city: textures in 16 sizes (1..1024)")
      ->capture_default_str();
}

std::optional<std::string> given_city_option(const CLI::App& sub) {
  for (const char* name : {"--meshes", "--materials", "--textures"})
    if (sub.get_option(name)->count() > 0) return std::string(name);
  return std::nullopt;
}

CitySceneOptions city_scene_options(const CityCliOptions& o, int64_t objects, double moving,
                                    uint64_t seed, std::string_view command) {
  const std::pair<const char*, std::pair<int64_t, int64_t>> ranges[] = {
      {"objects", {objects, 10'000'000}},
      {"meshes", {o.meshes, 200'000}},
      {"materials", {o.materials, 100'000}},
      {"textures", {o.textures, 1024}}};
  for (const auto& [name, value_max] : ranges)
    if (value_max.first < 1 || value_max.first > value_max.second)
      throw Error(ErrorKind::SceneInput, fmt::format("{}: --{} {} is outside 1..{}", command, name,
                                                     value_max.first, value_max.second));
  if (!(moving >= 0.0 && moving <= 1.0))
    throw Error(ErrorKind::SceneInput,
                fmt::format("{}: --moving {} is outside 0..1", command, moving));
  CitySceneOptions c;
  c.objects = static_cast<uint32_t>(objects);
  c.meshes = static_cast<uint32_t>(o.meshes);
  c.materials = static_cast<uint32_t>(o.materials);
  c.textures = static_cast<uint32_t>(o.textures);
  c.moving = moving;
  c.seed = seed;
  return c;
}

}  // namespace bindery::cli
