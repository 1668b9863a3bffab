// The frame loop of `bindery render`: offscreen target, per-frame timing with timestamp queries,
// readback of the last frame (rows padded to the copy alignment, wgpu-native examples/capture).
#include "bindery/renderer.hpp"

#include "strategy.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>

namespace bindery {

std::string_view to_string(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::naive:
      return "naive";
    case StrategyKind::dynamic_offsets:
      return "dynamic-offsets";
    case StrategyKind::storage_instancing:
      return "storage-instancing";
    case StrategyKind::mapped_staging:
      return "mapped-staging";
    case StrategyKind::render_bundles:
      return "render-bundles";
    case StrategyKind::gpu_culling:
      return "gpu-culling";
  }
  return "unknown";
}

StrategyKind parse_strategy(std::string_view name) {
  if (name == "naive") return StrategyKind::naive;
  if (name == "dynamic-offsets") return StrategyKind::dynamic_offsets;
  if (name == "storage-instancing") return StrategyKind::storage_instancing;
  if (name == "mapped-staging") return StrategyKind::mapped_staging;
  if (name == "render-bundles") return StrategyKind::render_bundles;
  if (name == "gpu-culling") return StrategyKind::gpu_culling;
  throw Error(ErrorKind::InvalidArgument,
              fmt::format("unknown strategy '{}' (valid: naive, dynamic-offsets, "
                          "mapped-staging, render-bundles, storage-instancing, gpu-culling)",
                          name));
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0, Clock::time_point t1) {
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// WebGPU §13.1 (GPUTexelCopyBufferLayout): bytesPerRow of a texture-to-buffer copy must be a
// multiple of 256. This is a fixed rule of the spec, not a device limit.
constexpr uint32_t kBytesPerRowAlignment = 256;  // spec constant, see above

// A Scene is a public struct: check every index and texture before any GPU object is made from
// it, so a bad one is a SceneInput error naming the element instead of a crash or a raw
// validation error from the implementation.
void validate_scene(const Scene& scene, const Limits& limits) {
  for (size_t i = 0; i < scene.meshes.size(); ++i) {
    const Mesh& m = scene.meshes[i];
    if (m.vertices.empty() || m.indices.empty() || m.indices.size() % 3 != 0)
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: mesh {} ('{}') needs vertices and whole triangles ({} "
                              "vertices, {} indices)",
                              i, m.name, m.vertices.size(), m.indices.size()));
    for (uint32_t index : m.indices)
      if (index >= m.vertices.size())
        throw Error(ErrorKind::SceneInput,
                    fmt::format("scene: mesh {} ('{}') has index {} >= vertex count {}", i, m.name,
                                index, m.vertices.size()));
    if (m.index16 && m.vertices.size() > 65536)
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: mesh {} ('{}') is marked index16 with {} vertices", i, m.name,
                              m.vertices.size()));
  }
  for (size_t i = 0; i < scene.textures.size(); ++i) {
    const TextureData& t = scene.textures[i];
    if (t.width == 0 || t.height == 0 || t.width > limits.maxTextureDimension2D ||
        t.height > limits.maxTextureDimension2D)
      throw Error(ErrorKind::TextureSizeOutOfRange,
                  fmt::format("scene: texture {} ('{}') is {}x{}; each side must be 1..{} "
                              "(maxTextureDimension2D)",
                              i, t.name, t.width, t.height, limits.maxTextureDimension2D));
    uint32_t w = t.width, h = t.height;
    if (t.mips.empty())
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: texture {} ('{}') has no mip levels", i, t.name));
    for (size_t level = 0; level < t.mips.size(); ++level) {
      if (t.mips[level].size() != size_t(w) * h * 4)
        throw Error(
            ErrorKind::SceneInput,
            fmt::format("scene: texture {} ('{}') mip {} has {} bytes, {}x{} RGBA8 needs {}", i,
                        t.name, level, t.mips[level].size(), w, h, size_t(w) * h * 4));
      if (level + 1 < t.mips.size() && w == 1 && h == 1)
        throw Error(ErrorKind::SceneInput,
                    fmt::format("scene: texture {} ('{}') has mips past 1x1", i, t.name));
      w = std::max(1u, w / 2);
      h = std::max(1u, h / 2);
    }
  }
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& m = scene.materials[i];
    if (m.texture >= scene.textures.size())
      throw Error(ErrorKind::SceneInput, fmt::format("scene: material {} names texture {} of {}", i,
                                                     m.texture, scene.textures.size()));
    if (m.sampler >= scene.samplers.size())
      throw Error(ErrorKind::SceneInput, fmt::format("scene: material {} names sampler {} of {}", i,
                                                     m.sampler, scene.samplers.size()));
    if (m.alpha_mode == AlphaMode::mask && !std::isfinite(m.alpha_cutoff))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: material {} has alpha cutoff {}", i, m.alpha_cutoff));
  }
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    const Object& obj = scene.objects[i];
    if (obj.mesh >= scene.meshes.size() || obj.material >= scene.materials.size())
      throw Error(ErrorKind::SceneInput,
                  fmt::format("scene: object {} names mesh {} of {} and material {} of {}", i,
                              obj.mesh, scene.meshes.size(), obj.material, scene.materials.size()));
  }
}

void validate_options(const Device& device, const Scene& scene, const RenderOptions& o) {
  const uint32_t max_dim = device.limits().maxTextureDimension2D;
  if (o.width == 0 || o.height == 0 || o.width > max_dim || o.height > max_dim)
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("render: --size {}x{} is outside 1..{} (maxTextureDimension2D) in "
                            "each dimension",
                            o.width, o.height, max_dim));
  if (o.frames == 0) throw Error(ErrorKind::SceneInput, "render: --frames must be at least 1");
  if (o.time_s && !std::isfinite(*o.time_s))
    throw Error(ErrorKind::SceneInput, fmt::format("render: time {} is not finite", *o.time_s));
  if (!(o.moving >= 0.0 && o.moving <= 1.0))
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: --moving {} is outside [0, 1]", o.moving));
  if (o.strategy != StrategyKind::naive && o.strategy != StrategyKind::dynamic_offsets &&
      o.strategy != StrategyKind::storage_instancing &&
      o.strategy != StrategyKind::mapped_staging && o.strategy != StrategyKind::render_bundles &&
      o.strategy != StrategyKind::gpu_culling)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("render: strategy {} is not a StrategyKind", int(o.strategy)));
  validate_scene(scene, device.limits());
}

}  // namespace

uint32_t default_max_draws_per_pass(const AdapterDescription& adapter) {
  // Mesa lavapipe 25.0 segfaults in its rasterizer thread once one render pass holds more than
  // about 65,100 draws (65,100 ran, 65,200 crashed, both per-draw strategies; seen on this
  // project's CPU machines). Splitting the frame into passes of 50,000 draws avoids it.
  constexpr uint32_t kLavapipeDrawsPerPass = 50'000;
  if (adapter.name.find("llvmpipe") != std::string::npos) return kLavapipeDrawsPerPass;
  return UINT32_MAX;
}

uint64_t default_max_bind_groups(const AdapterDescription& adapter) {
  if (adapter.name.find("llvmpipe") == std::string::npos) return UINT64_MAX;
  constexpr uint64_t kReservedMappings = 5000;  // libraries, heaps, threads, textures
  uint64_t max_map_count = 65530;               // the Linux default
  std::ifstream("/proc/sys/vm/max_map_count") >> max_map_count;
  return max_map_count > kReservedMappings ? max_map_count - kReservedMappings : 0;
}

RenderReport render(const Device& device, const Scene& scene, const RenderOptions& options) {
  validate_options(device, scene, options);
  const Counters start = device.counters();

  // Offscreen target: colour (rendered, then copied out) and depth24plus.
  WGPUTextureDescriptor cd = WGPU_TEXTURE_DESCRIPTOR_INIT;
  cd.label = gpu::sv("colour target");
  cd.size = {options.width, options.height, 1};
  cd.format = strategies::kColorFormat;
  cd.usage = WGPUTextureUsage_RenderAttachment | WGPUTextureUsage_CopySrc;
  gpu::Texture color = gpu::Texture::acquire(wgpuDeviceCreateTexture(device.get(), &cd));
  WGPUTextureDescriptor dd = cd;
  dd.label = gpu::sv("depth target");
  dd.format = strategies::kDepthFormat;
  dd.usage = WGPUTextureUsage_RenderAttachment;
  gpu::Texture depth = gpu::Texture::acquire(wgpuDeviceCreateTexture(device.get(), &dd));
  gpu::TextureView color_view =
      gpu::TextureView::acquire(wgpuTextureCreateView(color.get(), nullptr));
  gpu::TextureView depth_view =
      gpu::TextureView::acquire(wgpuTextureCreateView(depth.get(), nullptr));
  with_context("creating the offscreen target", [&] { device.check(); });

  // Readback buffer for the last frame.
  const uint32_t bytes_per_row = (options.width * 4 + kBytesPerRowAlignment - 1) /
                                 kBytesPerRowAlignment * kBytesPerRowAlignment;
  const uint64_t readback_size = uint64_t(bytes_per_row) * options.height;
  gpu::Buffer readback;
  if (options.keep_last_frame)
    readback = device.create_buffer("frame readback", readback_size,
                                    WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);

  // Timestamp queries around the render pass, where the device has them.
  gpu::QuerySet queries;
  gpu::Buffer query_resolve, query_read;
  if (device.has_timestamp_query()) {
    WGPUQuerySetDescriptor qd = WGPU_QUERY_SET_DESCRIPTOR_INIT;
    qd.label = gpu::sv("pass timestamps");
    qd.type = WGPUQueryType_Timestamp;
    qd.count = 2;
    queries = gpu::QuerySet::acquire(wgpuDeviceCreateQuerySet(device.get(), &qd));
    query_resolve = device.create_buffer("timestamp resolve", 2 * sizeof(uint64_t),
                                         WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc);
    query_read = device.create_buffer("timestamp read", 2 * sizeof(uint64_t),
                                      WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  }

  strategies::GpuScene gpu_scene = strategies::upload_scene(device, scene);
  std::unique_ptr<strategies::Strategy> strategy;
  switch (options.strategy) {
    case StrategyKind::naive:
      strategy = strategies::make_naive_strategy(device, scene, gpu_scene);
      break;
    case StrategyKind::dynamic_offsets:
      strategy = strategies::make_dynamic_offsets_strategy(device, scene, gpu_scene);
      break;
    case StrategyKind::storage_instancing:
      strategy = strategies::make_storage_instancing_strategy(device, scene, gpu_scene);
      break;
    case StrategyKind::mapped_staging:
      strategy = strategies::make_mapped_staging_strategy(device, scene, gpu_scene);
      break;
    case StrategyKind::render_bundles:
      strategy = strategies::make_render_bundles_strategy(device, scene, gpu_scene);
      break;
    case StrategyKind::gpu_culling:
      strategy = strategies::make_gpu_culling_strategy(device, scene, gpu_scene);
      break;
  }

  RenderReport report;
  report.scene = scene.name;
  report.strategy = options.strategy;
  report.objects = static_cast<uint32_t>(scene.objects.size());
  report.materials = static_cast<uint32_t>(scene.materials.size());
  report.width = options.width;
  report.height = options.height;
  report.object_stride_bytes = strategy->object_stride();
  report.init = device.counters() - start;
  const uint32_t max_draws = options.max_draws_per_pass
                                 ? options.max_draws_per_pass
                                 : default_max_draws_per_pass(device.adapter());

  const float aspect = float(options.width) / float(options.height);
  strategies::FrameValues values{scene.view.view_projection(aspect),
                                 scene.view.light_world_position, scene.view.eye};
  std::vector<ObjectTransform> transforms;
  const uint32_t n = static_cast<uint32_t>(scene.objects.size());
  // ceil(moving * n), with a tolerance so that a decimal share such as 0.0015 of 2000 (not exact
  // in binary floating point) gives 3, not 4.
  const uint32_t moving = std::min(n, static_cast<uint32_t>(std::ceil(options.moving * n - 1e-6)));

  for (uint32_t f = 0; f < options.frames; ++f) {
    const bool last = f + 1 == options.frames;
    const Counters before = device.counters();
    const float t = options.time_s ? *options.time_s : float(f) / 60.0f;
    const Clock::time_point t0 = Clock::now();

    // Math: the first frame computes every object; later frames only the moving share.
    const uint32_t changed_end = f == 0 ? n : moving;
    scene.animate(t, transforms, 0, changed_end);
    const Clock::time_point t1 = Clock::now();

    // Uploads, then the draws in one render pass, or several of at most max_draws passes (the
    // first clears, the others load; timestamps span from the first pass's start to the last's
    // end), then submit.
    strategies::FrameInputs in{transforms, values, 0, changed_end, f == 0};
    gpu::CommandEncoder encoder =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
    strategy->upload(in, encoder.get());
    const uint32_t draws = strategy->draw_count();
    for (uint32_t first = 0; first < draws || first == 0; first += max_draws) {
      const uint32_t end = std::min(draws, first + max_draws);
      const bool first_pass = first == 0, last_pass = end == draws;
      WGPURenderPassColorAttachment ca = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
      ca.view = color_view.get();
      ca.loadOp = first_pass ? WGPULoadOp_Clear : WGPULoadOp_Load;
      ca.storeOp = WGPUStoreOp_Store;
      ca.clearValue = {scene.view.clear_color.r, scene.view.clear_color.g, scene.view.clear_color.b,
                       scene.view.clear_color.a};
      WGPURenderPassDepthStencilAttachment da = WGPU_RENDER_PASS_DEPTH_STENCIL_ATTACHMENT_INIT;
      da.view = depth_view.get();
      da.depthLoadOp = first_pass ? WGPULoadOp_Clear : WGPULoadOp_Load;
      da.depthStoreOp = WGPUStoreOp_Store;
      da.depthClearValue = 1.0f;
      WGPUPassTimestampWrites tw = WGPU_PASS_TIMESTAMP_WRITES_INIT;
      WGPURenderPassDescriptor pd = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
      pd.colorAttachmentCount = 1;
      pd.colorAttachments = &ca;
      pd.depthStencilAttachment = &da;
      if (queries && (first_pass || last_pass)) {
        tw.querySet = queries.get();
        tw.beginningOfPassWriteIndex = first_pass ? 0 : WGPU_QUERY_SET_INDEX_UNDEFINED;
        tw.endOfPassWriteIndex = last_pass ? 1 : WGPU_QUERY_SET_INDEX_UNDEFINED;
        pd.timestampWrites = &tw;
      }
      gpu::RenderPassEncoder pass =
          gpu::RenderPassEncoder::acquire(wgpuCommandEncoderBeginRenderPass(encoder.get(), &pd));
      strategy->encode(pass.get(), first, end);
      wgpuRenderPassEncoderEnd(pass.get());
      report.passes_per_frame = first / max_draws + 1;
      if (draws == 0) break;
    }
    if (queries) {
      wgpuCommandEncoderResolveQuerySet(encoder.get(), queries.get(), 0, 2, query_resolve.get(), 0);
      wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), query_resolve.get(), 0, query_read.get(),
                                           0, 2 * sizeof(uint64_t));
    }
    if (last && readback) {
      WGPUTexelCopyTextureInfo src = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
      src.texture = color.get();
      WGPUTexelCopyBufferInfo dst = WGPU_TEXEL_COPY_BUFFER_INFO_INIT;
      dst.buffer = readback.get();
      dst.layout.bytesPerRow = bytes_per_row;
      dst.layout.rowsPerImage = options.height;
      WGPUExtent3D size = {options.width, options.height, 1};
      wgpuCommandEncoderCopyTextureToBuffer(encoder.get(), &src, &dst, &size);
    }
    gpu::CommandBuffer commands =
        gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
    WGPUCommandBuffer cmd = commands.get();
    wgpuQueueSubmit(device.queue(), 1, &cmd);
    strategy->after_submit();
    const Clock::time_point t2 = Clock::now();
    with_context(fmt::format("frame {} ({} strategy)", f, to_string(options.strategy)),
                 [&] { device.check(); });

    device.poll(true);
    FrameTiming timing;
    if (queries) {
      strategies::map_and_wait(device, query_read.get(), WGPUMapMode_Read, 2 * sizeof(uint64_t));
      uint64_t ts[2];
      std::memcpy(ts, wgpuBufferGetConstMappedRange(query_read.get(), 0, sizeof(ts)), sizeof(ts));
      wgpuBufferUnmap(query_read.get());
      if (ts[1] >= ts[0]) timing.gpu_ms = double(ts[1] - ts[0]) / 1e6;  // webgpu.h: nanoseconds
    }
    const Clock::time_point t3 = Clock::now();
    timing.math_ms = ms_since(t0, t1);
    timing.cpu_ms = ms_since(t1, t2);
    timing.frame_ms = ms_since(t0, t3);
    report.frames.push_back(timing);
    report.per_frame = device.counters() - before;
    if (options.on_frame) options.on_frame(f, options.frames);
  }

  if (readback) {
    strategies::map_and_wait(device, readback.get(), WGPUMapMode_Read, readback_size);
    const auto* data = static_cast<const uint8_t*>(
        wgpuBufferGetConstMappedRange(readback.get(), 0, readback_size));
    Image img;
    img.width = options.width;
    img.height = options.height;
    img.rgba.resize(size_t(options.width) * options.height * 4);
    for (uint32_t y = 0; y < options.height; ++y)
      std::memcpy(&img.rgba[size_t(y) * options.width * 4], data + size_t(y) * bytes_per_row,
                  size_t(options.width) * 4);
    wgpuBufferUnmap(readback.get());
    report.last_frame = std::move(img);
  }
  report.draws_per_frame = static_cast<uint32_t>(report.per_frame.draws);
  report.visible_objects = strategy->visible_objects();
  return report;
}

}  // namespace bindery
