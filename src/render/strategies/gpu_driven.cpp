// SPDX-License-Identifier: MIT
// --strategy gpu-driven and --strategy gpu-culling: any scene drawn through bindery's GPU-driven
// parts (include/bindery/gpu_driven/, composed in GpuObjectScene): every mesh once in the mesh
// pool, every object a record of the object table, materials and textures in the material table
// (2D arrays by size class), culling on the GPU into (pipeline, mesh) bins, and the bins'
// indirect draws emitted through the best draw path of the device (multi-draw-indirect-count,
// multi-draw-indirect, a render bundle, or a loop of drawIndexedIndirect; --draw-path forces one).
// The two differ in who moves the objects and how much is culled:
//   gpu-driven:  frustum and two-phase occlusion culling (--occlusion); the article's cubes moved
//                by the GPU, any other scene by the application;
//   gpu-culling: frustum culling only, every transform the CPU's (as storage-instancing computes
//                them), so that it measures GPU culling of CPU-computed matrices.
// The further ideas of the webgpufundamentals optimization article (GPU culling, indirect draws);
// the GPU-driven pipelines of Haar & Aaltonen (SIGGRAPH 2015) and Wihlidal (GDC 2016).
//
// Who moves the objects (gpu-driven):
//   - the article's cubes: the GPU. Their animation inputs are uploaded once; each frame a compute
//     pass (shaders/object_animate.wgsl) writes every record's world matrix, and nothing per
//     object crosses from the CPU;
//   - any other scene (glTF, city): the application, through ObjectTable::set_transform for the
//     objects whose transform changed this frame (FrameInputs' changed range), flushed once.
// The stages are composed by bindery's public GpuDrivenScene (gpu_driven_scene.hpp), which
// makes the object group (GpuObjectScene's layout and frame uniform) and, without the cluster
// path, records the frame (GpuDrivenScene::record_passes):
//   compute "cull":    [animate]; Culling::phase1 (counts reset, bins reset, frustum test,
//                      IndirectDraws::build, or the instance list with clusters)
//   compute "clusters" (clusters on): ClusterCulling::begin_frame, build (the cut, per-cluster
//                      culling, the index buffer)
//   compute "raster"   (compute rasterizer): ClusterRaster::rasterize
//   render  "phase1":  IndirectDraws::draw, or ClusterCulling::draw and the resolve
// and with occlusion culling:
//   compute "pyramid": DepthPyramid::build
//   compute "cull2":   Culling::phase2
//   compute "clusters2", "raster2": the same for phase 2
//   render  "phase2":  the same draws (loads colour and depth)
// The cluster path records its own sequence over the scene's parts (draws(), culling(),
// pyramid()), the cluster stages between them.
#include "gpu_object_scene.hpp"
#include "strategy.hpp"

#include "bindery/gpu_driven/cluster_culling.hpp"
#include "bindery/gpu_driven/cluster_hierarchy.hpp"
#include "bindery/gpu_driven/cluster_raster.hpp"
#include "bindery/gpu_driven/culling.hpp"
#include "bindery/gpu_driven/depth_pyramid.hpp"
#include "bindery/gpu_driven/gpu_driven_scene.hpp"
#include "bindery/gpu_driven/indirect_draws.hpp"

#include <fmt/format.h>

#include <tbb/parallel_for.h>

#include <chrono>
#include <cmath>
#include <memory>

namespace bindery::strategies {
namespace {

using namespace bindery::gpu_driven;

// Why the strategy cannot run on this device and scene, or nullopt.
std::optional<std::string> unavailable(const Device& device, const Scene& scene) {
  if (device.adapter().backend == "gl")
    return "its culling compute shaders do not translate to wgpu-native's OpenGL backend (the "
           "GLSL generated for them calls textureSize with an unsigned level); use --backend "
           "vulkan";
  if (std::optional<std::string> why = draw_path_unavailable(device, DrawPath::loop)) return why;
  return object_records_unavailable(device, scene);
}

// Every mesh of `scene` built into a cluster hierarchy (in parallel), added to `geometry` under its
// pool id (the scene's mesh index). Returns the build's wall time, ms.
double build_hierarchies(const Scene& scene, ClusterGeometry& geometry, uint32_t& levels) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<ClusterHierarchy> built(scene.meshes.size());
  tbb::parallel_for(size_t(0), scene.meshes.size(), [&](size_t i) {
    const Mesh& m = scene.meshes[i];
    try {
      built[i] = build_cluster_hierarchy(std::as_bytes(std::span(m.vertices)),
                                         uint32_t(m.vertices.size()), sizeof(Vertex), m.indices,
                                         ClusterBuildDesc{.normal_offset_bytes = 12}, m.name);
    } catch (const Error& e) {
      // The scene's data, not the caller's arguments: its kind, and the way around it.
      throw Error(ErrorKind::SceneInput,
                  fmt::format("--clusters on: scene mesh {} cannot be built into a cluster "
                              "hierarchy ({}); the per-object path (--clusters off) draws it",
                              i, e.what()));
    }
  });
  levels = 0;
  for (uint32_t i = 0; i < built.size(); ++i) {
    geometry.add(i, built[i]);
    levels = std::max<uint32_t>(levels, uint32_t(built[i].levels.size()));
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The split's area per triangle of --rasterizer: hardware none, compute every cluster the
// compute rasterizer can take, auto what the device's measurements say.
float compute_raster_area_px(const Device& device, const std::string& rasterizer) {
  if (rasterizer == "hardware") return 0.0f;
  if (rasterizer == "compute") return 3.0e38f;
  return compute_raster_auto_area_px(device);
}

// What distinguishes the strategies built on culling and indirect draws.
struct CulledComposition {
  const char* label;
  TransformProducer producer;
  bool occlusion_allowed;  // gpu-culling: frustum only, whatever --occlusion says
};

class CulledStrategy final : public Strategy {
 public:
  CulledStrategy(const Device& device, const Scene& scene, const GpuScene& gpu,
                 const StrategyOptions& options, const CulledComposition& composition)
      : occlusion_(options.occlusion && composition.occlusion_allowed),
        scene_(device, scene, gpu, composition.label, composition.producer,
               options.material_backend.empty()
                   ? MaterialBackend::texture_arrays
                   : parse_material_backend(options.material_backend)
                         .value_or(MaterialBackend::texture_arrays)) {
    GpuDrivenSceneDesc gd;
    gd.label = composition.label;
    gd.draws.label = std::string(composition.label) + " draws";
    if (!options.draw_path.empty()) gd.draws.path = parse_draw_path(options.draw_path);
    gd.culling = {true, occlusion_,
                  options.clusters ? CullingOutput::instance_list : CullingOutput::bins};
    gd.object_group = {.first_binding = GpuObjectScene::kObjectsBinding,
                       .extra_entries = {buffer_group_entry(GpuObjectScene::kFrameBinding,
                                                            scene_.frame_buffer())},
                       .layout = scene_.object_layout()};
    gd.depth = {options.depth_texture, options.width, options.height};
    gd.read_counts = false;  // render()'s readback slots take them (copy_stats)
    gpu_ = std::make_unique<GpuDrivenScene>(device, scene_.objects(), scene_.meshes(), gd);
    if (options.clusters) create_clusters(device, scene, options, composition.label);
    with_context(fmt::format("creating the {} strategy", composition.label),
                 [&] { device.check(); });
  }

  bool needs_cpu_transforms() const override { return !scene_.animated_on_gpu(); }
  bool takes_transforms_from_threads() const override { return !scene_.animated_on_gpu(); }
  void write_transforms(std::span<const ObjectTransform> all, uint32_t begin, uint32_t end,
                        bool first_frame) override {
    scene_.write_transforms(all, begin, end, first_frame);
  }
  uint64_t object_stride() const override { return kObjectRecordBytes; }
  uint32_t draw_count() const override { return 1; }
  uint64_t stats_bytes() const override {
    return Culling::kStatsBytes + (clusters_ ? ClusterCulling::kStatsBytes : 0);
  }

  void upload(const FrameInputs& in, WGPUCommandEncoder encoder) override {
    if (clusters_) {
      clusters_->set_lod_error(in.lod_error_px);
      scene_.set_debug_colors(in.debug_colors);
      debug_colors_ = in.debug_colors;
    }
    scene_.upload(in, encoder);
    gpu_->prepare(encoder, in.values.view_projection);  // the table is flushed already
    scene_.refresh_animate_group();
    if (clusters_) {
      geometry_->prepare();
      clusters_->prepare(ClusterView{in.values.view_projection, in.values.view_world_position,
                                     pixels_per_unit_, z_near_, viewport_});
      if (raster_) raster_->prepare(viewport_.x, viewport_.y);
    }
  }

  void after_submit() override { scene_.after_submit(); }

  void encode(WGPURenderPassEncoder pass, uint32_t, uint32_t, Counters& counters) override {
    const auto groups = scene_.groups(gpu_->object_group());
    if (clusters_) {
      clusters_->draw(pass, scene_.cluster_pipeline(), groups, counters);
      if (raster_) raster_->resolve(pass, scene_.resolve_pipeline(), groups, *clusters_, counters);
    } else
      gpu_->draws().draw(pass, 0, DrawState{scene_.pipeline(), groups}, counters);
  }

  void record_frame(FrameContext& ctx) override {
    upload(ctx.in, ctx.encoder);
    if (!clusters_) {
      record_scene_passes(ctx);
      return;
    }
    if (raster_) raster_->clear(ctx.encoder);
    {
      TimedComputePass pass(ctx, "cull");
      scene_.animate(pass);
      gpu_->culling().phase1(pass.get());
    }
    if (clusters_) {
      TimedComputePass pass(ctx, "clusters");
      clusters_->begin_frame(pass.get());
      clusters_->build(pass.get());
    }
    if (raster_) {
      TimedComputePass pass(ctx, "raster");
      raster_->rasterize(pass.get());
    }
    render_pass(ctx, "phase1", true);
    if (!occlusion_) return;
    {
      TimedComputePass pass(ctx, "pyramid");
      gpu_->pyramid()->build(pass.get());
    }
    if (raster_) raster_->clear(ctx.encoder);
    {
      TimedComputePass pass(ctx, "cull2");
      gpu_->culling().phase2(pass.get());
    }
    if (clusters_) {
      TimedComputePass pass(ctx, "clusters2");
      clusters_->build(pass.get());
    }
    if (raster_) {
      TimedComputePass pass(ctx, "raster2");
      raster_->rasterize(pass.get());
    }
    render_pass(ctx, "phase2", false);
  }

  void copy_stats(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) override {
    gpu_->copy_counts(encoder, dst, offset);
    if (clusters_) clusters_->copy_stats(encoder, dst, offset + Culling::kStatsBytes);
  }

  std::optional<CullingCounts> read_stats(const std::byte* bytes) const override {
    const CullingStats s = GpuDrivenScene::counts_from(bytes, scene_.object_count());
    CullingCounts counts{s.objects, s.after_frustum, s.after_occlusion, s.drawn, s.sub_draws};
    if (clusters_) {
      const ClusterStats c = ClusterCulling::read_stats(bytes + Culling::kStatsBytes);
      counts.has_clusters = true;
      counts.clusters_tested = c.tested;
      counts.clusters_visible = c.visible;
      counts.triangles_submitted = c.triangles_submitted;
      counts.clusters_dropped = c.dropped;
      counts.triangles_rasterized = c.triangles_rasterized;
      counts.sub_draws = occlusion_ ? 2 : 1;
    }
    return counts;
  }

  std::optional<double> cpu_ns_per_moved_object() const override {
    return scene_.cpu_ns_per_moved_object();
  }

  std::vector<std::pair<std::string, std::string>> notes() const override {
    const std::string arrays = std::to_string(
        scene_.materials().backend() == MaterialBackend::texture_arrays
            ? scene_.materials().classes().size()
            : 0);
    if (clusters_)
      return {{"clusterPath", "on"},
              {"drawPath", "clusters: one drawIndexedIndirect per phase"},
              {"occlusion", occlusion_ ? "two-phase depth pyramid" : "off"},
              {"lodErrorPx", fmt::format("{:g}", clusters_->lod_error())},
              {"debugColors", debug_colors_ == 2 ? "levels" : debug_colors_ == 1 ? "clusters"
                                                                               : "normal"},
              {"clusterLevels", std::to_string(cluster_levels_)},
              {"clusters", std::to_string(geometry_->cluster_count())},
              {"hierarchyBytes", std::to_string(geometry_->bytes())},
              {"hierarchyBuildMs", fmt::format("{:.1f}", hierarchy_build_ms_)},
              {"clusterTriangleCapacity", std::to_string(clusters_->max_triangles())},
              {"rasterizer", rasterizer_name()},
              {"rasterRung", raster_ ? std::string(to_string(raster_->rung())) : "none"},
              {"computeRasterAreaPx", fmt::format("{:g}", clusters_->compute_raster_area())},
              {"materialBackend", std::string(to_string(scene_.materials().backend()))},
              {"textureArrays", arrays},
              {"movedBy", scene_.animated_on_gpu() ? "GPU (the article's animation)"
                                                   : "application"}};
    return {{"clusterPath", "off"},
            {"drawPath", std::string(to_string(gpu_->draws().path()))},
            {"occlusion", occlusion_ ? "two-phase depth pyramid" : "off"},
            {"materialBackend", std::string(to_string(scene_.materials().backend()))},
            {"textureArrays", arrays},
            {"movedBy", scene_.animated_on_gpu() ? "GPU (the article's animation)" : "application"}};
  }

 private:
  // The frame without the cluster path: GpuDrivenScene's passes, each a GPU span of its name (the
  // spans opened in the order the passes run), the animation in the cull pass.
  void record_scene_passes(FrameContext& ctx) {
    const FrameTarget& t = ctx.target;
    const TargetPasses target(t.color, t.depth,
                              {t.clear_color.r, t.clear_color.g, t.clear_color.b, t.clear_color.a});
    ScenePasses passes = target.passes();
    auto timed = [&](std::string_view name) { return ctx.timer.writes(ctx.timer.open(name), true, true); };
    passes.cull.timestampWrites = timed("cull");
    passes.phase1.timestampWrites = timed("phase1");
    if (occlusion_) {
      passes.pyramid.timestampWrites = timed("pyramid");
      passes.cull2.timestampWrites = timed("cull2");
      passes.phase2.timestampWrites = timed("phase2");
    }
    gpu_->record_passes(
        ctx.encoder, passes,
        [&](WGPURenderPassEncoder pass, ScenePhase) {
          encode(pass, 0, 1, ctx.counters);
          ctx.passes++;
        },
        [&](WGPUComputePassEncoder pass) { scene_.animate(pass); });
  }

  void render_pass(FrameContext& ctx, std::string_view name, bool clear) {
    const uint32_t span = ctx.timer.open(name);
    gpu::RenderPassEncoder pass =
        ctx.target.begin_pass(ctx.encoder, clear, ctx.timer.writes(span, true, true));
    encode(pass.get(), 0, 1, ctx.counters);
    wgpuRenderPassEncoderEnd(pass.get());
    ctx.passes++;
  }

  // The cluster path (--clusters on): hierarchies of every mesh, the cluster stage, its pipeline.
  void create_clusters(const Device& device, const Scene& scene, const StrategyOptions& options,
                       const char* label) {
    if (std::optional<std::string> why = cluster_culling_unavailable(device))
      throw Error(ErrorKind::StrategyUnavailable, fmt::format("{} --clusters on: {}", label, *why));
    geometry_ = std::make_unique<ClusterGeometry>(device, scene_.meshes(),
                                                  std::string(label) + " clusters");
    hierarchy_build_ms_ = build_hierarchies(scene, *geometry_, cluster_levels_);
    geometry_->prepare();
    ClusterCullingDesc cd;
    cd.label = std::string(label) + " cluster culling";
    cd.lod_error_px = options.lod_error_px;
    cd.occlusion = occlusion_;
    clusters_ = std::make_unique<ClusterCulling>(device, scene_.objects(), *geometry_,
                                                 gpu_->draws(), cd, gpu_->pyramid());
    scene_.create_cluster_pipeline(clusters_->draw_layout());
    viewport_ = glm::uvec2(options.width, options.height);
    create_raster(device, scene, options, label);
    pixels_per_unit_ = float(options.height) * 0.5f /
                       std::tan(0.5f * float(options.fov_y_degrees) * 3.14159265358979f / 180.0f);
    z_near_ = options.z_near;
  }

  // The compute rasterizer (--rasterizer compute or auto where it wins): the split's area per
  // triangle, the materials that stay on hardware (alpha-masked and blended), the resolve.
  void create_raster(const Device& device, const Scene& scene, const StrategyOptions& options,
                     const char* label) {
    rasterizer_ = options.rasterizer;
    const float area = compute_raster_area_px(device, options.rasterizer);
    if (area <= 0.0f) return;
    // auto: where the visibility buffer does not fit the device (a target of more than
    // maxStorageBufferBindingSize / 8 pixels), the hardware path alone, as auto's own choice.
    if (options.rasterizer == "auto" &&
        raster_target_unavailable(device, options.width, options.height)) {
      raster_fallback_ = true;
      return;
    }
    ClusterRasterDesc rd;
    rd.label = std::string(label) + " cluster raster";
    if (!options.raster_rung.empty()) rd.rung = parse_raster_rung(options.raster_rung);
    raster_ = std::make_unique<ClusterRaster>(device, scene_.objects(), *geometry_, *clusters_, rd);
    std::vector<uint32_t> flags(std::max<size_t>(scene.materials.size(), 1), 0u);
    for (size_t m = 0; m < scene.materials.size(); ++m)
      flags[m] = scene.materials[m].alpha_mode == AlphaMode::opaque ? 0u : 1u;
    clusters_->set_compute_raster(area, flags);
    scene_.create_resolve_pipeline(clusters_->draw_layout(), raster_->resolve_layout());
  }

  std::string rasterizer_name() const {
    if (raster_fallback_) return "auto: hardware (the visibility buffer does not fit)";
    if (!raster_) return "hardware";
    return rasterizer_ == "auto" ? "auto: compute for small clusters" : "compute";
  }

  bool occlusion_;
  GpuObjectScene scene_;
  std::unique_ptr<GpuDrivenScene> gpu_;  // the stages and the object group
  std::unique_ptr<ClusterGeometry> geometry_;
  std::unique_ptr<ClusterCulling> clusters_;
  std::unique_ptr<ClusterRaster> raster_;
  std::string rasterizer_;
  bool raster_fallback_ = false;
  uint32_t debug_colors_ = 0;  // the last frame's (FrameInputs::debug_colors)
  glm::uvec2 viewport_{1, 1};
  uint32_t cluster_levels_ = 0;
  double hierarchy_build_ms_ = 0;
  float pixels_per_unit_ = 1, z_near_ = 1;
};

}  // namespace

extern const StrategyRow gpu_driven_row{
    {"gpu-driven",
     "meshes in one pool, objects in a GPU table, materials indexed, textures in 2D arrays by "
     "size; the GPU frustum- and occlusion-culls (depth pyramid, two phases) into (pipeline, "
     "mesh) bins and draws them with multi-draw-indirect where the device has it",
     "003: further ideas (GPU-driven culling, indirect draws, double buffering)"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions& options) -> std::unique_ptr<Strategy> {
      return std::make_unique<CulledStrategy>(
          device, scene, gpu, options,
          CulledComposition{"gpu-driven", TransformProducer::gpu_when_animated, true});
    },
    unavailable,
    /*parallel_encode=*/false,
    /*own_textures=*/true};

extern const StrategyRow gpu_culling_row{
    {"gpu-culling",
     "gpu-driven's parts with every matrix computed on the CPU (as storage-instancing) and "
     "uploaded to the object table; the GPU frustum-culls (no occlusion) into indirect draws",
     "003: further ideas (GPU frustum culling, indirect draws)"},
    [](const Device& device, const Scene& scene, const GpuScene& gpu,
       const StrategyOptions& options) -> std::unique_ptr<Strategy> {
      return std::make_unique<CulledStrategy>(
          device, scene, gpu, options,
          CulledComposition{"gpu-culling", TransformProducer::cpu, false});
    },
    unavailable,
    /*parallel_encode=*/false,
    /*own_textures=*/true};

}  // namespace bindery::strategies
