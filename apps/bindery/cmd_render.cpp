// SPDX-License-Identifier: MIT
// `bindery render`: the main job. Renders the article's cube scene, a glTF model or the generated
// city headless with one per-draw-data strategy, prints progress, a timing table (min / median /
// max per frame) and, as the last line, one JSON object with the adapter, the limits used and
// the per-frame counters.
#include "command.hpp"
#include "options.hpp"

#include <bindery/core/io.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <unistd.h>

namespace bindery::cli {
namespace {

struct RenderCli {
  DeviceCliOptions device;
  std::string scene = "cubes";
  std::string model;
  int64_t instances = 1;
  int64_t objects = 1000;
  std::string strategy = "dynamic-offsets";
  std::string size = "640x480";
  int64_t frames = 60;
  std::optional<float> time;
  uint64_t seed = 1;
  double moving = 1.0;
  double spread = 1.0;
  int64_t frames_in_flight = 2;
  std::string occlusion = "on";
  std::string draw_path;  ///< --draw-path (empty: the device's best)
  int64_t threads = 0;
  int64_t encode_threads = 1;
  std::string png;
  int64_t image_budget_mib = 1024;  ///< GltfLoadOptions::image_budget_bytes in MiB
  bool quiet = false;
  bool scene_given = false;    ///< --scene was on the command line (else --model implies gltf)
  bool png_given = false;      ///< --png was on the command line (an empty name is an error)
  bool objects_given = false;  ///< --objects was on the command line
  CityCliOptions city;         ///< --meshes, --materials, --textures (--scene city)
  std::optional<std::string> city_option_given;  ///< the first of those on the command line
  bool instances_given = false;                  ///< --instances was on the command line
  bool moving_given = false;                     ///< --moving was on the command line
  bool seed_given = false;                       ///< --seed was on the command line
};

struct Summary {
  double min = 0, median = 0, max = 0;
};
Summary summarize(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

int run_render(const RenderCli& o) {
  if (o.objects < 0 || o.objects > 10'000'000)
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: --objects {} is outside 0..10000000", o.objects));
  if (o.instances < 1 || o.instances > 1'000'000)
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: --instances {} is outside 1..1000000", o.instances));
  if (o.frames < 1 || o.frames > 1'000'000)
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: --frames {} is outside 1..1000000", o.frames));
  if (o.time && !std::isfinite(*o.time))
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: --time {} is not a finite number", *o.time));
  if (o.frames_in_flight < 1 || o.frames_in_flight > 8)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("render: --frames-in-flight {} is outside 1..8", o.frames_in_flight));
  if (o.threads < 0 || o.threads > 1024)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("render: --threads {} is outside 0..1024", o.threads));
  const auto size = parse_size(o.size, "render");
  const uint32_t width = size.first, height = size.second;
  RenderOptions ro;
  ro.strategy = find_strategy(o.strategy).name;
  check_encode_threads(ro.strategy, o.encode_threads, "render");
  ro.encode_threads = static_cast<uint32_t>(o.encode_threads);
  ro.frames_in_flight = static_cast<uint32_t>(o.frames_in_flight);
  ro.occlusion = o.occlusion == "on";
  ro.draw_path = o.draw_path;
  ro.threads = static_cast<uint32_t>(o.threads);
  ro.width = width;
  ro.height = height;
  ro.frames = static_cast<uint32_t>(o.frames);
  ro.time_s = o.time;
  ro.moving = o.moving;
  ro.keep_last_frame = !o.png.empty();

  Scene scene;
  // --model alone implies --scene gltf; an explicit --scene cubes with --model is a mistake.
  const bool gltf = o.scene == "gltf" || (!o.scene_given && !o.model.empty());
  const bool city = o.scene == "city";
  if (!gltf && !o.model.empty())
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: --model needs --scene gltf (not {})", o.scene));
  if (!city && o.city_option_given)
    throw Error(ErrorKind::SceneInput,
                fmt::format("render: {} sets the generated city (--scene city); the {} scene has "
                            "none",
                            *o.city_option_given, gltf ? "gltf" : "cubes"));
  if (city && o.spread != 1.0)
    throw Error(ErrorKind::SceneInput, "render: --spread places the cubes; the city has none");
  if (city && o.instances_given)
    throw Error(ErrorKind::SceneInput,
                "render: --instances copies a glTF model; the city takes --objects");
  if (gltf && o.spread != 1.0)
    throw Error(ErrorKind::SceneInput, "render: --spread places the cubes; a glTF scene has none");
  if (!gltf && o.instances_given)
    throw Error(ErrorKind::SceneInput,
                "render: --instances sets the copies of a glTF model; the cube scene takes "
                "--objects");
  if (gltf && o.seed_given)
    throw Error(ErrorKind::SceneInput,
                "render: --seed places the cubes; a glTF scene has none");
  if (gltf && o.objects_given)
    throw Error(ErrorKind::SceneInput,
                "render: --objects sets the cube count; a glTF scene takes --instances");
  if (city) {
    const CitySceneOptions defaults;
    scene = make_city_scene(city_scene_options(
        o.city, o.objects_given ? o.objects : int64_t(defaults.objects),
        o.moving_given ? o.moving : defaults.moving, o.seed, "render"));
    ro.moving = scene.moving_share();  // recompute exactly the cars each frame
  } else if (!gltf) {
    CubeSceneOptions co;
    co.objects = static_cast<uint32_t>(o.objects);
    co.seed = o.seed;
    co.spread = static_cast<float>(o.spread);
    scene = make_cube_scene(co);
  } else {
    if (o.model.empty())
      throw Error(ErrorKind::SceneInput, "render: --scene gltf needs --model PATH (.gltf or .glb)");
    if (o.image_budget_mib < 1 || o.image_budget_mib > 1'048'576)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("render: --image-budget-mib {} is outside 1..1048576",
                              o.image_budget_mib));
    const GltfLoadOptions lo{.image_budget_bytes = uint64_t(o.image_budget_mib) << 20};
    scene = load_gltf_scene(o.model, static_cast<uint32_t>(o.instances), lo);
    for (const std::string& w : scene.warnings)
      fmt::print(stderr, "bindery: warning: glTF '{}': {}\n", escape_for_message(o.model),
                 escape_for_message(w));
  }

  // Fail before rendering, not after, when the PNG cannot be written (the file is not touched).
  if (o.png_given) check_output_file(o.png, "render: --png");

  Device device = Device::create(to_device_options(o.device));
  const bool tty = isatty(fileno(stderr));
  if (!o.quiet) {
    fmt::print(stderr,
               "bindery render: {} scene, {} objects, strategy {}, {}x{}, {} frame{} on {} ({}, {})\n",
               scene.name, scene.objects.size(), o.strategy, width, height, ro.frames,
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
  RenderReport r = render(device, scene, ro);

  if (!o.png.empty() && r.last_frame) write_png(o.png, *r.last_frame);

  std::vector<double> math, cpu, gpu, frame, interval;
  for (const FrameTiming& t : r.frames) {
    math.push_back(t.math_ms);
    cpu.push_back(t.cpu_ms);
    frame.push_back(t.frame_ms);
    interval.push_back(t.interval_ms);
    if (t.gpu_ms) gpu.push_back(*t.gpu_ms);
  }
  const Summary sm = summarize(math), sc = summarize(cpu), sf = summarize(frame),
                si = summarize(interval);
  const bool has_gpu = !gpu.empty();  // timestamp queries available
  const Summary sg = summarize(gpu);
  auto fmt_gpu = [&](double Summary::*field) {
    return has_gpu ? fmt::format("{:10.3f}", sg.*field) : fmt::format("{:>10}", "n/a");
  };
  fmt::print("{:<14}{:>10}{:>10}{:>10}\n", "per frame", "min", "median", "max");
  fmt::print("{:<14}{:10.3f}{:10.3f}{:10.3f}\n", "cpu ms", sc.min, sc.median, sc.max);
  fmt::print("{:<14}{:10.3f}{:10.3f}{:10.3f}\n", "math ms", sm.min, sm.median, sm.max);
  fmt::print("{:<14}{}{}{}\n", "gpu ms", fmt_gpu(&Summary::min), fmt_gpu(&Summary::median),
             fmt_gpu(&Summary::max));
  // Per-pass GPU time (median of each named span over the frames that have it).
  std::vector<std::string> span_names;
  for (const FrameTiming& t : r.frames)
    for (const GpuSpan& span : t.gpu_spans)
      if (std::find(span_names.begin(), span_names.end(), span.name) == span_names.end())
        span_names.push_back(span.name);
  nlohmann::ordered_json spans_json;
  if (span_names.size() > 1 || (span_names.size() == 1 && span_names[0] != "render"))
    for (const std::string& name : span_names) {
      std::vector<double> v;
      for (const FrameTiming& t : r.frames)
        for (const GpuSpan& span : t.gpu_spans)
          if (span.name == name) v.push_back(span.ms);
      const Summary ss = summarize(v);
      fmt::print("{:<14}{:10.3f}{:10.3f}{:10.3f}\n", fmt::format("  gpu {}", name), ss.min,
                 ss.median, ss.max);
      spans_json[name] = ss.median;
    }
  fmt::print("{:<14}{:10.3f}{:10.3f}{:10.3f}\n", "latency ms", sf.min, sf.median, sf.max);
  fmt::print("{:<14}{:10.3f}{:10.3f}{:10.3f}\n", "interval ms", si.min, si.median, si.max);
  fmt::print(
      "throughput {:.1f} fps ({} frame{} in flight, {} thread{} for matrices, {} encoding)\n",
      r.throughput_fps(), r.frames_in_flight, r.frames_in_flight == 1 ? "" : "s", r.threads,
      r.threads == 1 ? "" : "s", r.encode_threads);
  const std::optional<CullingCounts> culling = r.frames.back().culling;
  if (culling)
    fmt::print(
        "culling: {} objects, {} after frustum, {} after occlusion, {} drawn, {} sub-draws\n",
        culling->objects, culling->after_frustum, culling->after_occlusion,
               culling->drawn, culling->sub_draws);
  if (!o.png.empty()) fmt::print("wrote {}\n", escape_for_message(o.png));

  nlohmann::ordered_json j;
  j["scene"] = r.scene;
  j["strategy"] = r.strategy;
  j["objects"] = r.objects;
  j["materials"] = r.materials;
  j["meshes"] = r.meshes;
  j["textures"] = r.textures;
  j["movingObjects"] = r.moving_objects;
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
  j["throughputFps"] = r.throughput_fps();
  for (const auto& [key, value] : r.notes) j[key] = value;
  if (culling)
    j["culling"] = {{"objects", culling->objects},
                    {"afterFrustum", culling->after_frustum},
                    {"afterOcclusion", culling->after_occlusion},
                    {"drawn", culling->drawn},
                    {"subDraws", culling->sub_draws}};
  if (r.visible_objects) j["visibleObjects"] = *r.visible_objects;
  nlohmann::ordered_json timing;
  timing["cpu_median"] = sc.median;
  timing["math_median"] = sm.median;
  if (has_gpu)
    timing["gpu_median"] = sg.median;
  else
    timing["gpu_median"] = nullptr;
  timing["frame_median"] = sf.median;
  timing["interval_median"] = si.median;
  if (!spans_json.empty()) timing["gpu_spans_median"] = spans_json;
  j["timing_ms"] = timing;
  j["init"] = counters_json(r.init);
  j["perFrame"] = counters_json(r.per_frame);
  fmt::print("{}\n", j.dump());
  return 0;
}

Registration reg{
    "render", "render the cube scene or a glTF model headless, time it and count WebGPU calls",
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<RenderCli>();
      sub.add_option("--scene", o->scene,
                     "cubes (the article's scene), gltf or city (generated, for benchmarks)")
          ->check(CLI::IsMember({"cubes", "gltf", "city"}))
          ->capture_default_str();
      sub.add_option("--model", o->model, "glTF 2.0 file (.gltf/.glb) for --scene gltf");
      sub.add_option("--instances", o->instances, "copies of the glTF model on a grid")
          ->capture_default_str();
      sub.add_option("--objects", o->objects,
                     "number of cubes (0..10000000), or the city's objects (default 20000)")
          ->capture_default_str();
      sub.add_option("--strategy", o->strategy, "per-draw data strategy: " + strategy_names())
          ->capture_default_str();
      sub.add_option("--spread", o->spread,
                     "scale of the cubes' placement radius (8: most outside the view)")
          ->capture_default_str();
      sub.add_option("--frames-in-flight", o->frames_in_flight,
                     "frames the CPU runs ahead of the GPU (1 = serial)")
          ->capture_default_str();
      sub.add_option("--occlusion", o->occlusion,
                     "occlusion culling with a depth pyramid (gpu-driven): on or off")
          ->check(CLI::IsMember({"on", "off"}))
          ->capture_default_str();
      sub.add_option("--draw-path", o->draw_path,
                     "gpu-driven's indirect draws: multi-draw-indirect-count, multi-draw-indirect, "
                     "bundle or loop (default: the best the device offers)")
          ->check(CLI::IsMember({"multi-draw-indirect-count", "multi-draw-indirect", "bundle",
                                 "loop"}));
      sub.add_option("--threads", o->threads, "CPU threads for per-object maths (0 = all cores)")
          ->capture_default_str();
      sub.add_option("--encode-threads", o->encode_threads,
                     "threads encoding the draws, each its own command encoder (1..64)")
          ->capture_default_str();
      sub.add_option("--size", o->size, "target size WIDTHxHEIGHT (1x1 = render off)")
          ->capture_default_str();
      sub.add_option("--frames", o->frames, "frames to render")->capture_default_str();
      sub.add_option("--time", o->time, "freeze the animation at T seconds (reproducible frames)");
      sub.add_option("--seed", o->seed, "random seed of the cube scene or the city")
          ->capture_default_str();
      sub.add_option("--moving", o->moving,
                     "share of objects that move each frame, 0..1 (the city: its cars, "
                     "default 0.1)")
          ->capture_default_str();
      add_city_options(sub, o->city);
      sub.add_option("--png", o->png, "write the last frame to this PNG file");
      sub.add_option("--image-budget-mib", o->image_budget_mib,
                     "decoded bytes (RGBA8 with mips) a glTF model's images may take, MiB")
          ->capture_default_str();
      sub.add_flag("--quiet", o->quiet, "no progress output");
      add_device_options(sub, o->device);
      CLI::Option* scene_opt = sub.get_option("--scene");
      CLI::Option* png_opt = sub.get_option("--png");
      CLI::Option* objects_opt = sub.get_option("--objects");
      CLI::App* app = &sub;
      return [o, scene_opt, png_opt, objects_opt, app] {
        o->seed_given = app->get_option("--seed")->count() > 0;
        o->scene_given = scene_opt->count() > 0;
        o->png_given = png_opt->count() > 0;
        o->objects_given = objects_opt->count() > 0;
        o->city_option_given = given_city_option(*app);
        o->instances_given = app->get_option("--instances")->count() > 0;
        o->moving_given = app->get_option("--moving")->count() > 0;
        return run_render(*o);
      };
    }};

}  // namespace
}  // namespace bindery::cli
