// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <bindery/core/limits.hpp>
#include <bindery/render/renderer.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace bindery::cli {

std::pair<uint32_t, uint32_t> parse_size(const std::string& s, std::string_view command) {
  const auto x = s.find('x');
  auto bad = [&] {
    return Error(ErrorKind::InvalidArgument,
                 fmt::format("{}: --size '{}' is not WIDTHxHEIGHT with positive integers "
                             "(e.g. 640x480; 1x1 is the article's render-off mode)",
                             command, escape_for_message(s)));
  };
  if (x == std::string::npos) throw bad();
  int64_t w = -1, h = -1;
  auto r1 = std::from_chars(s.data(), s.data() + x, w);
  auto r2 = std::from_chars(s.data() + x + 1, s.data() + s.size(), h);
  const bool shaped = r1.ptr == s.data() + x && r2.ptr == s.data() + s.size() &&
                      r1.ec != std::errc::invalid_argument && r2.ec != std::errc::invalid_argument;
  if (!shaped) throw bad();
  // Digits past int64's range are a size out of range, like any other too large.
  const bool too_large = r1.ec != std::errc() || r2.ec != std::errc();
  if (too_large || w <= 0 || h <= 0 || w > UINT32_MAX || h > UINT32_MAX)
    throw Error(
        ErrorKind::TextureSizeOutOfRange,
        fmt::format("{}: --size {}, valid 1..maxTextureDimension2D each (the device's: 8192 "
                    "or more)",
                    command, escape_for_message(s)));
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
                              command, escape_for_message(list)));
    if (name == "all")
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: --strategies '{}' lists 'all' with other names ('all' stands "
                              "alone: every strategy)",
                              command, escape_for_message(list)));
    with_context("reading --strategies", [&] { return find_strategy(name); });
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("{}: --strategies lists '{}' twice", command,
                              escape_for_message(name)));
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
          {"bufferBytesCreated", c.buffer_bytes_created},
          {"texturesCreated", c.textures_created},
          {"textureBytesCreated", c.texture_bytes_created}};
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
  check_moving(moving, command);
  CitySceneOptions c;
  c.objects = static_cast<uint32_t>(objects);
  c.meshes = static_cast<uint32_t>(o.meshes);
  c.materials = static_cast<uint32_t>(o.materials);
  c.textures = static_cast<uint32_t>(o.textures);
  c.moving = moving;
  c.seed = seed;
  return c;
}

void add_run_options(CLI::App& sub, RunCliOptions& o, const RunCliRules& rules) {
  sub.add_option("--scene", o.scene.scene,
                 "cubes (the article's scene), city (generated, for benchmarks) or gltf "
                 "(--model)")
      ->check(CLI::IsMember({"cubes", "city", "gltf"}))
      ->capture_default_str();
  sub.add_option("--model", o.scene.model, "glTF 2.0 file (.gltf/.glb) for --scene gltf")
      ->check(not_empty());
  sub.add_option("--seed", o.scene.seed, "random seed of the cube scene or the city")
      ->capture_default_str();
  add_city_options(sub, o.scene.city);
  sub.add_option("--size", o.size, std::string(rules.size_help))
      ->capture_default_str();
  sub.add_option("--frames", o.frames, std::string(rules.frames_help))->capture_default_str();
  sub.add_option("--frames-in-flight", o.frames_in_flight,
                 fmt::format("frames the CPU runs ahead of the GPU (1 = serial; at most {})",
                             kMaxFramesInFlight))
      ->capture_default_str();
  sub.add_option("--threads", o.threads, "CPU threads for per-object maths (0 = all cores)")
      ->capture_default_str();
  sub.add_option("--encode-threads", o.encode_threads,
                 fmt::format("threads encoding the draws, each its own command encoder (1..{}; "
                             "strategies that encode draws on the CPU)",
                             kMaxEncodeThreads))
      ->capture_default_str();
  sub.add_option("--occlusion", o.occlusion,
                 "occlusion culling with a depth pyramid (gpu-driven): on or off")
      ->check(CLI::IsMember({"on", "off"}))
      ->each([&o](const std::string&) { o.occlusion_given = true; })
      ->capture_default_str();
  sub.add_option("--draw-path", o.draw_path,
                 "gpu-driven's indirect draws: multi-draw-indirect-count, multi-draw-indirect, "
                 "bundle or loop (default: the best the device offers)")
      ->check(CLI::IsMember({"multi-draw-indirect-count", "multi-draw-indirect", "bundle",
                             "loop"}));
  sub.add_option("--material-backend", o.material_backend,
                 "gpu-driven's textures: texture-arrays (2D arrays by size, any device) or "
                 "binding-array (every texture as it is; wgpu-native's binding arrays)")
      ->check(CLI::IsMember({"texture-arrays", "binding-array"}));
  sub.add_option("--clusters", o.clusters,
                 "gpu-driven through cluster hierarchies with level of detail: auto (on from "
                 "4 million triangles at full detail and 4 per pixel), on or off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->each([&o](const std::string&) { o.cluster_options_given = true; })
      ->capture_default_str();
  sub.add_option("--lod-error", o.lod_error,
                 fmt::format("with --clusters on or auto: the cut's pixel error, 0 (full "
                             "detail)..{:g}",
                             double(kMaxLodErrorPx)))
      ->each([&o](const std::string&) { o.cluster_options_given = o.lod_error_given = true; })
      ->capture_default_str();
  sub.add_option("--rasterizer", o.rasterizer,
                 "with clusters: who rasterizes them: hardware, compute (every cluster small "
                 "enough: at most 64 pixels a side, opaque) or auto (compute where it wins on "
                 "the device)")
      ->check(CLI::IsMember({"auto", "hardware", "compute"}))
      ->each([&o](const std::string&) { o.cluster_options_given = o.raster_given = true; })
      ->capture_default_str();
  sub.add_option("--raster-rung", o.raster_rung,
                 "with a compute rasterizer: int64-atomic-max or core (default: the best the "
                 "device runs)")
      ->check(CLI::IsMember({"int64-atomic-max", "core"}))
      ->each([&o](const std::string&) { o.cluster_options_given = o.raster_given = true; });
  sub.add_option("--spread", o.spread,
                 "scale of the cubes' placement radius (8: most outside the view)")
      ->capture_default_str();
  add_device_options(sub, o.device);
}

void add_debug_colors_option(CLI::App& sub, RunCliOptions& o) {
  sub.add_option("--debug-colors", o.debug_colors,
                 "with clusters: normal (shaded), clusters (each cluster a hashed colour) or "
                 "levels (each level of the hierarchy a colour of a fixed legend; level 0 = full "
                 "detail), unlit, on both rasterizers")
      ->check(CLI::IsMember({"normal", "clusters", "levels"}))
      ->each([&o](const std::string&) { o.cluster_options_given = o.debug_colors_given = true; })
      ->capture_default_str();
}

void add_vertex_order_option(CLI::App& sub, RunCliOptions& o) {
  sub.add_option("--vertex-order", o.vertex_order,
                 "each mesh's triangles: optimized (reordered for the GPU's vertex cache when "
                 "uploaded) or source (as the scene gives them); same image")
      ->check(CLI::IsMember({"optimized", "source"}))
      ->capture_default_str();
}

std::vector<std::string> given_options(const CLI::App& sub,
                                       std::initializer_list<const char*> others) {
  std::vector<std::string> given;
  for (const char* name :
       {"--scene", "--model", "--seed", "--spread", "--meshes", "--materials", "--textures"})
    if (sub.get_option(name)->count() > 0) given.emplace_back(name);
  for (const char* name : others)
    if (sub.get_option(name)->count() > 0) given.emplace_back(name);
  return given;
}

RenderOptions to_render_options(const RunCliOptions& o, const RunCliRules& rules,
                                RenderOptions base) {
  auto outside = [&](std::string_view flag, auto value, auto lo, auto hi) {
    return Error(ErrorKind::InvalidArgument,
                 fmt::format("{}: {} {} is outside {}..{}", rules.command, flag, value, lo, hi));
  };
  if (o.frames < rules.min_frames || o.frames > rules.max_frames)
    throw outside("--frames", o.frames, rules.min_frames, rules.max_frames);
  if (o.frames_in_flight < 1 || o.frames_in_flight > kMaxFramesInFlight)
    throw outside("--frames-in-flight", o.frames_in_flight, 1, kMaxFramesInFlight);
  if (o.threads < 0 || o.threads > kMaxMatrixThreads)
    throw outside("--threads", o.threads, 0, kMaxMatrixThreads);
  check_encode_threads("dynamic-offsets", o.encode_threads, rules.command);  // the range
  if (!(o.spread >= kMinSpread && o.spread <= kMaxSpread))
    throw Error(ErrorKind::SceneInput, fmt::format("{}: --spread {} is outside {}..{}",
                                                   rules.command, o.spread, kMinSpread,
                                                   kMaxSpread));
  const auto [width, height] = parse_size(o.size, rules.command);
  base.width = width;
  base.height = height;
  base.frames = static_cast<uint32_t>(o.frames);
  base.frames_in_flight = static_cast<uint32_t>(o.frames_in_flight);
  base.threads = static_cast<uint32_t>(o.threads);
  base.encode_threads = static_cast<uint32_t>(o.encode_threads);
  base.occlusion = o.occlusion == "on";
  base.draw_path = o.draw_path;
  base.material_backend = o.material_backend;
  if (!(o.lod_error >= 0.0 && o.lod_error <= double(kMaxLodErrorPx)))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --lod-error {} is outside 0..{:g} pixels", rules.command,
                            o.lod_error, double(kMaxLodErrorPx)));
  if (o.lod_error_given && o.clusters == "off")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --lod-error applies to the cluster path, not to --clusters off",
                            rules.command));
  if (o.debug_colors_given && o.clusters == "off")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --debug-colors colours the cluster path's clusters, not the "
                            "per-object path of --clusters off",
                            rules.command));
  if (!o.draw_path.empty() && o.clusters == "on")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --draw-path applies to the per-object path (--clusters off, or "
                            "what auto chooses), not to --clusters on, which draws one "
                            "drawIndexedIndirect per phase",
                            rules.command));
  if (o.raster_given && o.clusters == "off")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --rasterizer and --raster-rung apply to the cluster path, not to "
                            "--clusters off",
                            rules.command));
  if (!o.raster_rung.empty() && o.rasterizer == "hardware")
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --raster-rung applies to a compute rasterizer, not to "
                            "--rasterizer hardware",
                            rules.command));
  base.clusters = o.clusters;
  base.vertex_order = o.vertex_order;
  base.lod_error_px = static_cast<float>(o.lod_error);
  base.rasterizer = o.rasterizer;
  base.raster_rung = o.raster_rung;
  base.debug_colors = o.debug_colors;
  return base;
}

void check_objects_instances_time(int64_t objects, int64_t instances,
                                  const std::optional<double>& time, std::string_view scene,
                                  std::string_view command) {
  const int64_t least = scene == "city" ? 1 : 0;
  if (objects < least || objects > kMaxObjects)
    throw Error(ErrorKind::SceneInput, fmt::format("{}: --objects {} is outside {}..{}", command,
                                                   objects, least, kMaxObjects));
  if (instances < 1 || instances > 1'000'000)
    throw Error(ErrorKind::SceneInput,
                fmt::format("{}: --instances {} is outside 1..1000000", command, instances));
  if (time && !(std::abs(*time) <= double(kMaxAnimationTime)))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --time {} is outside -{:g}..{:g} seconds (beyond, 32-bit float "
                            "angles lose the precision the strategies agree on)",
                            command, *time, double(kMaxAnimationTime), double(kMaxAnimationTime)));
}

void model_implies_gltf(SceneCliOptions& scene, const std::vector<std::string>& given) {
  auto has = [&](const char* name) {
    return std::find(given.begin(), given.end(), name) != given.end();
  };
  if (has("--model") && !has("--scene")) scene.scene = "gltf";
}

CLI::Validator not_empty() {
  return CLI::Validator(
      [](std::string& value) { return value.empty() ? std::string("empty") : std::string(); },
      "", "not empty");
}

void check_moving(double moving, std::string_view command) {
  if (!(moving >= 0.0 && moving <= 1.0))
    throw Error(ErrorKind::SceneInput,
                fmt::format("{}: --moving {} is outside 0..1 (a share of the objects)", command,
                            moving));
}

void check_gpu_driven_options(const std::vector<std::string>& strategies, const RunCliOptions& o,
                              std::string_view command) {
  auto has = [&](std::string_view name) {
    return std::find(strategies.begin(), strategies.end(), name) != strategies.end();
  };
  const std::string names = fmt::format("{}", fmt::join(strategies, ", "));
  if (!has("gpu-driven") && !has("gpu-culling"))
    for (const auto& [flag, value] : {std::pair<std::string_view, const std::string&>{
                                          "--draw-path", o.draw_path},
                                      {"--material-backend", o.material_backend}})
      if (!value.empty())
        throw Error(ErrorKind::InvalidArgument,
                    fmt::format("{}: {} applies to gpu-driven and gpu-culling (their indirect "
                                "draws and material table), not to {}",
                                command, flag, names));
  if (o.cluster_options_given && !has("gpu-driven"))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: {} apply to gpu-driven (its cluster hierarchies), not to {}",
                            command,
                            // --debug-colors is render's and view's alone
                            std::string_view(command) == "render" ||
                                    std::string_view(command) == "view"
                                ? "--clusters, --lod-error, --rasterizer, --raster-rung and "
                                  "--debug-colors"
                                : "--clusters, --lod-error, --rasterizer and --raster-rung",
                            names));
  if (o.occlusion_given && !has("gpu-driven"))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("{}: --occlusion applies to gpu-driven (its two-phase occlusion "
                            "culling), not to {}",
                            command, names));
}

int with_flag_names(const std::function<int()>& run) {
  try {
    return run();
  } catch (const Error& e) {
    // Field names of the library's messages (renderer.cpp, the scenes) and the flags that set
    // them.
    static constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
        {"RenderOptions::width x height = ", "--size "},
        {"RenderOptions::frames_in_flight = ", "--frames-in-flight "},
        {"RenderOptions::frames = ", "--frames "},
        {"RenderOptions::threads = ", "--threads "},
        {"RenderOptions::encode_threads = ", "--encode-threads "},
        {"RenderOptions::time_s = ", "--time "},
        {"RenderOptions::moving = ", "--moving "},
        {"RenderOptions::draw_path = ", "--draw-path "},
        {"RenderOptions::material_backend = ", "--material-backend "},
        {"RenderOptions::debug_colors = ", "--debug-colors "},
        {"RenderOptions::clusters = ", "--clusters "},
        {"RenderOptions::strategy = ", "--strategy "},
        {"RenderOptions::vertex_order = ", "--vertex-order "},
        {"CubeSceneOptions::objects = ", "--objects "},
        {"CubeSceneOptions::spread = ", "--spread "},
        {"CitySceneOptions::objects = ", "--objects "},
        {"CitySceneOptions::meshes = ", "--meshes "},
        {"CitySceneOptions::materials = ", "--materials "},
        {"CitySceneOptions::textures = ", "--textures "},
        {"CitySceneOptions::moving = ", "--moving "}};
    std::string message = e.what();
    bool changed = false;
    for (const auto& [field, flag] : kFlags)
      for (size_t at; (at = message.find(field)) != std::string::npos; changed = true)
        message.replace(at, field.size(), flag);
    if (!changed) throw;
    throw Error(e.kind(), message);
  }
}

void add_quiet_flag(CLI::App& sub, bool& quiet) {
  sub.add_flag("--quiet", quiet,
               "no progress or status lines on stderr (warnings and errors still print); stdout "
               "(the table, the JSON line) unchanged");
}

}  // namespace bindery::cli
