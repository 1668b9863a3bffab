// `bindery render`: the main job. Renders the article's cube scene or a glTF model headless with
// one per-draw-data strategy, prints progress, a timing table (min / median / max per frame) and,
// as the last line, one JSON object with the adapter, the limits used and the per-frame counters.
#include "command.hpp"
#include "options.hpp"

#include <bindery/io.hpp>
#include <bindery/renderer.hpp>
#include <bindery/scene.hpp>

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
  std::string png;
  bool quiet = false;
  bool scene_given = false;    ///< --scene was on the command line (else --model implies gltf)
  bool png_given = false;      ///< --png was on the command line (an empty name is an error)
  bool objects_given = false;  ///< --objects was on the command line
};

struct Summary {
  double min = 0, median = 0, max = 0;
};
Summary summarize(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
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
          {"bindGroupsCreated", c.bind_groups_created},
          {"buffersCreated", c.buffers_created},
          {"bufferBytesCreated", c.buffer_bytes_created}};
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
  const auto [width, height] = parse_size(o.size, "render");
  RenderOptions ro;
  ro.strategy = parse_strategy(o.strategy);
  ro.width = width;
  ro.height = height;
  ro.frames = static_cast<uint32_t>(o.frames);
  ro.time_s = o.time;
  ro.moving = o.moving;
  ro.keep_last_frame = !o.png.empty();

  Scene scene;
  // --model alone implies --scene gltf; an explicit --scene cubes with --model is a mistake.
  const bool gltf = o.scene == "gltf" || (!o.scene_given && !o.model.empty());
  if (!gltf && !o.model.empty())
    throw Error(ErrorKind::SceneInput, "render: --model needs --scene gltf (not cubes)");
  if (gltf && o.objects_given)
    throw Error(ErrorKind::SceneInput,
                "render: --objects sets the cube count; a glTF scene takes --instances");
  if (!gltf) {
    CubeSceneOptions co;
    co.objects = static_cast<uint32_t>(o.objects);
    co.seed = o.seed;
    scene = make_cube_scene(co);
  } else {
    if (o.model.empty())
      throw Error(ErrorKind::SceneInput, "render: --scene gltf needs --model PATH (.gltf or .glb)");
    scene = load_gltf_scene(o.model, static_cast<uint32_t>(o.instances));
    for (const std::string& w : scene.warnings)
      fmt::print(stderr, "bindery: warning: glTF '{}': {}\n", o.model, w);
  }

  // Fail before rendering, not after, when the PNG cannot be written (the file is not touched).
  if (o.png_given) check_output_file(o.png, "render: --png");

  Device device = Device::create(to_device_options(o.device));
  const bool tty = isatty(fileno(stderr));
  if (!o.quiet) {
    fmt::print(stderr,
               "bindery render: {} scene, {} objects, strategy {}, {}x{}, {} frame{} on {} ({})\n",
               scene.name, scene.objects.size(), o.strategy, width, height, ro.frames,
               ro.frames == 1 ? "" : "s", device.adapter().name, device.adapter().backend);
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

  std::vector<double> math, cpu, gpu, frame;
  for (const FrameTiming& t : r.frames) {
    math.push_back(t.math_ms);
    cpu.push_back(t.cpu_ms);
    frame.push_back(t.frame_ms);
    if (t.gpu_ms) gpu.push_back(*t.gpu_ms);
  }
  const Summary sm = summarize(math), sc = summarize(cpu), sf = summarize(frame);
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
  fmt::print("{:<14}{:10.3f}{:10.3f}{:10.3f}\n", "frame ms", sf.min, sf.median, sf.max);
  fmt::print("{:<14}{:10.1f}{:10.1f}{:10.1f}\n", "fps", 1000.0 / sf.max, 1000.0 / sf.median,
             1000.0 / sf.min);
  if (!o.png.empty()) fmt::print("wrote {}\n", o.png);

  nlohmann::ordered_json j;
  j["scene"] = r.scene;
  j["strategy"] = std::string(to_string(r.strategy));
  j["objects"] = r.objects;
  j["materials"] = r.materials;
  j["size"] = {r.width, r.height};
  j["frames"] = r.frames.size();
  j["adapter"] = adapter_json(device.adapter());
  j["limits"] = limits_json(device.limits());
  j["objectStrideBytes"] = r.object_stride_bytes;
  j["passesPerFrame"] = r.passes_per_frame;
  if (r.visible_objects) j["visibleObjects"] = *r.visible_objects;
  nlohmann::ordered_json timing;
  timing["cpu_median"] = sc.median;
  timing["math_median"] = sm.median;
  if (has_gpu)
    timing["gpu_median"] = sg.median;
  else
    timing["gpu_median"] = nullptr;
  timing["frame_median"] = sf.median;
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
      sub.add_option("--scene", o->scene, "cubes (the article's scene) or gltf")
          ->check(CLI::IsMember({"cubes", "gltf"}))
          ->capture_default_str();
      sub.add_option("--model", o->model, "glTF 2.0 file (.gltf/.glb) for --scene gltf");
      sub.add_option("--instances", o->instances, "copies of the glTF model on a grid")
          ->capture_default_str();
      sub.add_option("--objects", o->objects, "number of cubes (0..10000000)")
          ->capture_default_str();
      sub.add_option("--strategy", o->strategy,
                     "per-draw data strategy: naive, dynamic-offsets, mapped-staging, "
                     "render-bundles, storage-instancing, gpu-culling")
          ->capture_default_str();
      sub.add_option("--size", o->size, "target size WIDTHxHEIGHT (1x1 = render off)")
          ->capture_default_str();
      sub.add_option("--frames", o->frames, "frames to render")->capture_default_str();
      sub.add_option("--time", o->time, "freeze the animation at T seconds (reproducible frames)");
      sub.add_option("--seed", o->seed, "random seed of the cube scene")->capture_default_str();
      sub.add_option("--moving", o->moving, "share of objects that move each frame, 0..1")
          ->capture_default_str();
      sub.add_option("--png", o->png, "write the last frame to this PNG file");
      sub.add_flag("--quiet", o->quiet, "no progress output");
      add_device_options(sub, o->device);
      CLI::Option* scene_opt = sub.get_option("--scene");
      CLI::Option* png_opt = sub.get_option("--png");
      CLI::Option* objects_opt = sub.get_option("--objects");
      return [o, scene_opt, png_opt, objects_opt] {
        o->scene_given = scene_opt->count() > 0;
        o->png_given = png_opt->count() > 0;
        o->objects_given = objects_opt->count() > 0;
        return run_render(*o);
      };
    }};

}  // namespace
}  // namespace bindery::cli
