// SPDX-License-Identifier: MIT
// `bindery render`: the main job. Renders the article's cube scene, a glTF model or the generated
// city headless with one per-draw-data strategy, prints progress, a timing table (min / median /
// max per frame) and, as the last line, one JSON object with the adapter, the limits used and
// the per-frame counters.
#include "command.hpp"
#include "options.hpp"

#include <bindery/core/io.hpp>
#include <bindery/core/limits.hpp>
#include <bindery/render/bench.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include <fmt/format.h>

#include <regex>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <unistd.h>

namespace bindery::cli {
namespace {

constexpr RunCliRules kRules{"render", 1'000'000, "frames to render"};

struct RenderCli {
  RunCliOptions run;  ///< --size, --frames, --scene, --seed, ... (options.hpp)
  int64_t instances = 1;
  int64_t objects = 1000;
  std::string strategy = "dynamic-offsets";
  std::optional<double> time;  // float after the range check
  double moving = 1.0;
  std::string png;
  int64_t image_budget_mib = 1024;     ///< GltfLoadOptions::image_budget_bytes in MiB
  int64_t geometry_budget_mib = 1024;  ///< GltfLoadOptions::geometry_budget_bytes in MiB
  bool quiet = false;
  bool png_given = false;          ///< --png was on the command line (an empty name is an error)
  std::vector<std::string> given;  ///< the scene options on the command line (given_options)
  bool was_given(std::string_view name) const {
    return std::find(given.begin(), given.end(), name) != given.end();
  }
};

struct Summary {
  double min = 0, median = 0, max = 0;
};
Summary summarize(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

// Every option checked before a device exists; the RenderOptions they make.
RenderOptions check_render_options(const RenderCli& o) {
  check_objects_instances_time(o.objects, o.instances, o.time, o.run.scene.scene, "render");
  check_moving(o.moving, "render");
  RenderOptions ro = to_render_options(o.run, kRules);
  ro.strategy = find_strategy(o.strategy).name;
  check_encode_threads(ro.strategy, o.run.encode_threads, "render");
  check_gpu_driven_options({ro.strategy}, o.run, "render");
  if (o.time) ro.time_s = float(*o.time);
  ro.moving = o.moving;
  ro.keep_last_frame = !o.png.empty();
  return ro;
}

// Refuses (SceneInput) an option that belongs to another scene than the one chosen.
void check_scene_options(const RenderCli& o, bool gltf, bool city) {
  const SceneCliOptions& s = o.run.scene;
  if (!gltf && !s.model.empty())
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: --model needs --scene gltf (not {})", s.scene));
  for (const char* name : {"--meshes", "--materials", "--textures"})
    if (!city && o.was_given(name))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("render: {} sets the generated city (--scene city); the {} scene "
                              "has none",
                              name, gltf ? "gltf" : "cubes"));
  if (city && o.run.spread != 1.0)
    throw Error(ErrorKind::SceneInput, "render: --spread places the cubes; the city has none");
  if (city && o.was_given("--instances"))
    throw Error(ErrorKind::SceneInput,
                "render: --instances copies a glTF model; the city takes --objects");
  if (gltf && o.run.spread != 1.0)
    throw Error(ErrorKind::SceneInput, "render: --spread places the cubes; a glTF scene has none");
  if (!gltf && o.was_given("--instances"))
    throw Error(ErrorKind::SceneInput,
                "render: --instances sets the copies of a glTF model; the cube scene takes "
                "--objects");
  if (gltf && o.was_given("--seed"))
    throw Error(ErrorKind::SceneInput, "render: --seed places the cubes; a glTF scene has none");
  if (gltf && o.was_given("--objects"))
    throw Error(ErrorKind::SceneInput,
                "render: --objects sets the cube count; a glTF scene takes --instances");
  if (gltf && o.was_given("--moving"))
    throw Error(ErrorKind::SceneInput,
                "render: --moving moves the cubes or the city's cars; a glTF scene's objects stay "
                "where the model places them");
  for (const char* budget : {"--image-budget-mib", "--geometry-budget-mib"})
    if (!gltf && o.was_given(budget))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("render: {} limits what a glTF model decodes; the {} scene has none",
                              budget, city ? "city" : "cubes"));
}

// The glTF model of --scene gltf (or --model alone), its warnings on stderr.
Scene load_model(const RenderCli& o) {
  const std::string& model = o.run.scene.model;
  if (model.empty())
    throw Error(ErrorKind::SceneInput, "render: --scene gltf needs --model PATH (.gltf or .glb)");
  if (o.image_budget_mib < 1 || o.image_budget_mib > 1'048'576)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("render: --image-budget-mib {} is outside 1..1048576",
                            o.image_budget_mib));
  if (o.geometry_budget_mib < 1 || o.geometry_budget_mib > 1'048'576)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("render: --geometry-budget-mib {} is outside 1..1048576",
                            o.geometry_budget_mib));
  const GltfLoadOptions lo{.image_budget_bytes = uint64_t(o.image_budget_mib) << 20,
                           .geometry_budget_bytes = uint64_t(o.geometry_budget_mib) << 20};
  Scene scene = load_gltf_scene(model, static_cast<uint32_t>(o.instances), lo);
  for (const std::string& w : scene.warnings)
    fmt::print(stderr, "bindery: warning: glTF '{}': {}\n", escape_for_message(model),
               escape_for_message(w));
  return scene;
}

// The cube scene, the glTF model or the city the options name; for the city, `ro.moving`
// becomes its share of cars.
Scene build_scene(const RenderCli& o, RenderOptions& ro) {
  const SceneCliOptions& s = o.run.scene;
  // --model alone implies --scene gltf; an explicit --scene cubes with --model is a mistake.
  const bool gltf = s.scene == "gltf" || (!o.was_given("--scene") && !s.model.empty());
  const bool city = s.scene == "city";
  check_scene_options(o, gltf, city);
  if (city) {
    const CitySceneOptions defaults;
    Scene scene = make_city_scene(city_scene_options(
        s.city, o.was_given("--objects") ? o.objects : int64_t(defaults.objects),
        o.was_given("--moving") ? o.moving : defaults.moving, s.seed, "render"));
    ro.moving = scene.moving_share();  // recompute exactly the cars each frame
    return scene;
  }
  if (gltf) return load_model(o);
  CubeSceneOptions co;
  co.objects = static_cast<uint32_t>(o.objects);
  co.seed = s.seed;
  co.spread = static_cast<float>(o.run.spread);
  return make_cube_scene(co);
}

// The progress header on stderr and the per-frame progress callback.
void add_progress(const RenderCli& o, const Device& device, const Scene& scene,
                  RenderOptions& ro) {
  if (o.quiet) return;
  const bool tty = isatty(fileno(stderr));
  fmt::print(stderr,
             "bindery render: {} scene, {} objects, strategy {}, {}x{}, {} frame{} on {} ({}, {})\n",
             scene.name, scene.objects.size(), o.strategy, ro.width, ro.height, ro.frames,
             ro.frames == 1 ? "" : "s", device.adapter().name, device.adapter().backend,
             device.adapter().implementation);
  ro.on_frame = [tty](uint32_t f, uint32_t n) {
    if (tty)
      fmt::print(stderr, "\rframe {}/{}", f + 1, n);
    else if ((f + 1) % std::max(1u, n / 10) == 0 || f + 1 == n)
      fmt::print(stderr, "frame {}/{}\n", f + 1, n);
    if (tty && f + 1 == n) fmt::print(stderr, "\n");
  };
}

// The stated factor (issue 31): a run whose steady frames' intervals or CPU times differ by more
// than this, slowest over fastest, is marked in the table.
constexpr double kVaryFactor = 2.0;

// How much the steady frames differ: frames 1 .. n - k (not the first, which uploads everything;
// not the last frames_in_flight, drained with no CPU work between them).
struct Variation {
  size_t first = 0, frames = 0;  ///< the frames judged: first .. first + frames - 1
  double interval = 0, cpu = 0;  ///< max / min of their interval_ms and cpu_ms
  bool varies() const { return frames >= 2 && (interval > kVaryFactor || cpu > kVaryFactor); }
};

Variation frame_variation(const RenderReport& r) {
  const size_t n = r.frames.size(), k = r.frames_in_flight;
  if (n < k + 3) return {};  // fewer than 2 steady frames: nothing to judge
  std::vector<double> interval, cpu;
  for (size_t i = 1; i < n - k; ++i) {
    interval.push_back(r.frames[i].interval_ms);
    cpu.push_back(r.frames[i].cpu_ms);
  }
  return {1, interval.size(), max_over_min(interval), max_over_min(cpu)};
}

// The timing summaries the table prints and the JSON reports.
struct TimingTable {
  Summary math, cpu, frame, interval, gpu;
  bool has_gpu = false;  ///< timestamp queries available
  nlohmann::ordered_json spans;  ///< median per named GPU span (when there is more than "render")
  Variation variation;           ///< how much the steady frames differ
};

// Prints the timing table (min / median / max per frame) and the throughput and culling lines.
TimingTable print_timing_table(const RenderReport& r) {
  std::vector<double> math, cpu, gpu, frame, interval;
  for (const FrameTiming& t : r.frames) {
    math.push_back(t.math_ms);
    cpu.push_back(t.cpu_ms);
    frame.push_back(t.frame_ms);
    interval.push_back(t.interval_ms);
    if (t.gpu_ms) gpu.push_back(*t.gpu_ms);
  }
  TimingTable tt{summarize(math), summarize(cpu), summarize(frame), summarize(interval),
                 summarize(gpu),  !gpu.empty(),   {},               frame_variation(r)};
  auto fmt_gpu = [&](double Summary::*field) {
    return tt.has_gpu ? fmt::format("{:10.3f}", tt.gpu.*field) : fmt::format("{:>10}", "n/a");
  };
  out("{:<16}{:>10}{:>10}{:>10}\n", "per frame", "min", "median", "max");
  out("{:<16}{:10.3f}{:10.3f}{:10.3f}\n", "cpu ms", tt.cpu.min, tt.cpu.median, tt.cpu.max);
  out("{:<16}{:10.3f}{:10.3f}{:10.3f}\n", "math ms", tt.math.min, tt.math.median,
             tt.math.max);
  out("{:<16}{}{}{}\n", "gpu ms", fmt_gpu(&Summary::min), fmt_gpu(&Summary::median),
             fmt_gpu(&Summary::max));
  // Per-pass GPU time (median of each named span over the frames that have it).
  std::vector<std::string> span_names;
  for (const FrameTiming& t : r.frames)
    for (const GpuSpan& span : t.gpu_spans)
      if (std::find(span_names.begin(), span_names.end(), span.name) == span_names.end())
        span_names.push_back(span.name);
  if (span_names.size() > 1 || (span_names.size() == 1 && span_names[0] != "render"))
    for (const std::string& name : span_names) {
      std::vector<double> v;
      for (const FrameTiming& t : r.frames)
        for (const GpuSpan& span : t.gpu_spans)
          if (span.name == name) v.push_back(span.ms);
      const Summary ss = summarize(v);
      out("{:<16}{:10.3f}{:10.3f}{:10.3f}\n", fmt::format("  gpu {}", name), ss.min,
                 ss.median, ss.max);
      tt.spans[name] = ss.median;
    }
  out("{:<16}{:10.3f}{:10.3f}{:10.3f}\n", "latency ms", tt.frame.min, tt.frame.median,
             tt.frame.max);
  out("{:<16}{:10.3f}{:10.3f}{:10.3f}\n", "interval ms", tt.interval.min,
             tt.interval.median, tt.interval.max);
  if (tt.variation.varies())
    out(
        "frames vary: interval max/min {:.1f}, cpu max/min {:.1f} over frames {}..{} (more "
        "than {:g}x): the medians of one run may not hold for the next\n",
        tt.variation.interval, tt.variation.cpu, tt.variation.first,
        tt.variation.first + tt.variation.frames - 1, kVaryFactor);
  out(
      "throughput {:.1f} fps ({} frame{} in flight, {} thread{} for matrices, {} encoding)\n",
      r.throughput_fps(), r.frames_in_flight, r.frames_in_flight == 1 ? "" : "s", r.threads,
      r.threads == 1 ? "" : "s", r.encode_threads);
  const bool two_phases = std::any_of(r.notes.begin(), r.notes.end(), [](const auto& note) {
    return note.first == "occlusion" && note.second != "off";
  });
  if (const std::optional<CullingCounts> culling = r.frames.back().culling; culling && two_phases)
    out(
        "culling: {} objects, {} after frustum, {} after occlusion, {} drawn over both phases "
        "(phase 1: those visible last frame; phase 2: the newly visible), {} sub-draws\n",
        culling->objects, culling->after_frustum, culling->after_occlusion, culling->drawn,
        culling->sub_draws);
  else if (culling)
    out("culling: {} objects, {} after frustum (no occlusion culling), {} drawn, {} sub-draws\n",
        culling->objects, culling->after_frustum, culling->drawn, culling->sub_draws);
  if (const std::optional<CullingCounts> culling = r.frames.back().culling;
      culling && culling->has_clusters) {
    out("clusters: {} tested, {} drawn, {} triangles submitted, {} rasterized in compute\n",
        culling->clusters_tested, culling->clusters_visible, culling->triangles_submitted,
        culling->triangles_rasterized);
    if (culling->clusters_dropped > 0)
      fmt::print(stderr,
                 "bindery: warning: {} cluster-instances did not fit the cluster output "
                 "(clusterTriangleCapacity) and were not drawn: the picture misses them\n",
                 culling->clusters_dropped);
  }
  return tt;
}

// The last line: one JSON object with the adapter, the limits used and the per-frame counters.
nlohmann::ordered_json report_json(const RenderReport& r, const Device& device,
                                   const TimingTable& tt) {
  nlohmann::ordered_json j;
  j["scene"] = r.scene;
  j["strategy"] = r.strategy;
  j["objects"] = r.objects;
  j["materials"] = r.materials;
  j["meshes"] = r.meshes;
  j["textures"] = r.textures;
  j["movingObjects"] = r.moving_objects;
  if (r.cpu_ns_per_moved_object) j["cpuNsPerMovedObject"] = *r.cpu_ns_per_moved_object;
  j["size"] = {r.width, r.height};
  j["frames"] = r.frames.size();
  j["implementation"] = implementation_json(device.adapter());
  j["adapter"] = adapter_json(device.adapter());
  j["limits"] = limits_json(device.limits());
  j["objectStrideBytes"] = r.object_stride_bytes;
  j["passesPerFrame"] = r.passes_per_frame;
  j["framesInFlight"] = r.frames_in_flight;
  j["threads"] = r.threads;
  j["encodeThreads"] = r.encode_threads;
  j["vertexOrder"] = r.vertex_order;
  j["throughputFps"] = r.throughput_fps();
  // A strategy's notes are text; the ones that are numbers (counts, bytes, ms) go out as JSON
  // numbers, so that a script compares them as such.
  for (const auto& [key, value] : r.notes) {
    static const std::regex number(R"(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)");
    if (std::regex_match(value, number))
      j[key] = value.find_first_of(".eE") == std::string::npos
                   ? nlohmann::ordered_json(std::stoll(value))
                   : nlohmann::ordered_json(std::stod(value));
    else
      j[key] = value;
  }
  if (const std::optional<CullingCounts> culling = r.frames.back().culling)
    j["culling"] = {{"objects", culling->objects},
                    {"afterFrustum", culling->after_frustum},
                    {"afterOcclusion", culling->after_occlusion},
                    {"drawn", culling->drawn},
                    {"subDraws", culling->sub_draws}};
  if (const std::optional<CullingCounts> culling = r.frames.back().culling;
      culling && culling->has_clusters) {
    j["culling"]["clustersTested"] = culling->clusters_tested;
    j["culling"]["visibleClusters"] = culling->clusters_visible;
    j["culling"]["clustersDropped"] = culling->clusters_dropped;
    j["trianglesSubmitted"] = culling->triangles_submitted;
    j["trianglesRasterized"] = culling->triangles_rasterized;
  }
  if (r.visible_objects) j["visibleObjects"] = *r.visible_objects;
  nlohmann::ordered_json timing;
  timing["cpu_median"] = tt.cpu.median;
  timing["math_median"] = tt.math.median;
  if (tt.has_gpu)
    timing["gpu_median"] = tt.gpu.median;
  else
    timing["gpu_median"] = nullptr;
  timing["frame_median"] = tt.frame.median;
  timing["interval_median"] = tt.interval.median;
  if (!tt.spans.empty()) timing["gpu_spans_median"] = tt.spans;
  j["timing_ms"] = timing;
  j["frameVariation"] = {{"factor", kVaryFactor},
                         {"frames", tt.variation.frames},
                         {"intervalMaxOverMin", tt.variation.interval},
                         {"cpuMaxOverMin", tt.variation.cpu},
                         {"varies", tt.variation.varies()}};
  j["init"] = counters_json(r.init);
  j["perFrame"] = counters_json(r.per_frame);
  return j;
}

// Options the run took but did not use, said on stderr (the JSON's clusterPath, rasterRung say
// what was used): the cluster options when --clusters auto chose the per-object path,
// --draw-path when it chose the cluster path, --raster-rung when no compute rasterizer ran.
void warn_unused_cluster_options(const RunCliOptions& o, const RenderReport& r) {
  std::string path, rung;
  for (const auto& [key, value] : r.notes) {
    if (key == "clusterPath") path = value;
    if (key == "rasterRung") rung = value;
  }
  const auto warn = [](std::string_view what, std::string_view why) {
    fmt::print(stderr, "bindery: warning: {} had no effect: {}\n", what, why);
  };
  if (o.clusters == "auto" && path == "off" && (o.lod_error_given || o.raster_given))
    warn(o.lod_error_given && o.raster_given ? "--lod-error and --rasterizer/--raster-rung"
         : o.lod_error_given                 ? "--lod-error"
                                             : "--rasterizer/--raster-rung",
         fmt::format("--clusters auto chose the per-object path for this scene (below {} "
                     "full-detail triangles or 4 per pixel); --clusters on takes it",
                     kClusterAutoTriangles));
  if (o.clusters == "auto" && path == "on" && !o.draw_path.empty())
    warn("--draw-path", "--clusters auto chose the cluster path (one drawIndexedIndirect per "
                        "phase); --clusters off takes it");
  if (path == "on" && !o.raster_rung.empty() && rung == "none")
    warn("--raster-rung", "no compute rasterizer ran (auto kept the hardware path: the JSON's "
                          "rasterizer says why)");
}

int run_render(const RenderCli& o) {
  RenderOptions ro = check_render_options(o);
  const Scene scene = build_scene(o, ro);
  // Fail before rendering, not after, when the PNG cannot be written (the file is not touched).
  if (o.png_given) check_output_file(o.png, "render: --png");

  Device device = Device::create(to_device_options(o.run.device));
  add_progress(o, device, scene, ro);
  RenderReport r = render(device, scene, ro);
  warn_unused_cluster_options(o.run, r);
  if (!o.png.empty() && r.last_frame) write_png(o.png, *r.last_frame);
  const TimingTable tt = print_timing_table(r);
  if (!o.png.empty()) out("wrote {}\n", escape_for_message(o.png));
  out("{}\n", report_json(r, device, tt).dump());
  return 0;
}

Registration reg{
    "render", "render the cubes, the city or a glTF model headless, time it and count WebGPU calls",
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<RenderCli>();
      sub.add_option("--instances", o->instances, "copies of the glTF model on a grid")
          ->capture_default_str();
      sub.add_option("--objects", o->objects,
                     "number of cubes (0..10000000), or the city's objects (default 20000)")
          ->capture_default_str();
      sub.add_option("--strategy", o->strategy, "per-draw data strategy: " + strategy_names())
          ->capture_default_str();
      sub.add_option("--time", o->time,
                     fmt::format("freeze the animation at T seconds, |T| <= {:g} (reproducible "
                                 "frames)",
                                 double(kMaxAnimationTime)));
      sub.add_option("--moving", o->moving,
                     "share of objects that move each frame, 0..1 (the city: its cars, "
                     "default 0.1)")
          ->capture_default_str();
      sub.add_option("--png", o->png, "write the last frame to this PNG file");
      sub.add_option("--image-budget-mib", o->image_budget_mib,
                     "decoded bytes (RGBA8 with mips) a glTF model's images may take, MiB")
          ->capture_default_str();
      sub.add_option("--geometry-budget-mib", o->geometry_budget_mib,
                     "decoded bytes (accessors and meshes) a glTF model's geometry may take, MiB")
          ->capture_default_str();
      add_quiet_flag(sub, o->quiet);
      add_run_options(sub, o->run, kRules);
      add_debug_colors_option(sub, o->run);
      add_vertex_order_option(sub, o->run);
      CLI::App* app = &sub;
      return [o, app] {
        o->png_given = app->get_option("--png")->count() > 0;
        o->given =
            given_options(*app, {"--objects", "--instances", "--moving", "--image-budget-mib",
                                 "--geometry-budget-mib"});
        return with_flag_names([&] { return run_render(*o); });
      };
    }};

}  // namespace
}  // namespace bindery::cli
