// SPDX-License-Identifier: MIT
// `bindery soak`: every strategy for thousands of frames; resident memory, live WebGPU objects and
// per-frame work must stay flat after the warm-up (soak.hpp). A progress line per sample, a table,
// one JSON object as the last line; exit 1 with a [SoakDrift] error when anything drifted.
#include "command.hpp"
#include "options.hpp"

#include <bindery/render/scene.hpp>
#include <bindery/render/soak.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace bindery::cli {
namespace {

struct SoakCli {
  DeviceCliOptions device;
  std::string strategies = "all";
  int64_t objects = 1000;
  std::string size = "64x48";
  int64_t frames = 2000;
  int64_t check_every = 100;
  int64_t warmup = 200;
  double tolerance = 0.05;
  int64_t memory_window = 4;
  int64_t frames_in_flight = 2;
  int64_t encode_threads = 1;
  uint64_t seed = 1;
  std::string scene = "cubes";  ///< cubes | city | gltf
  std::string model;            ///< --scene gltf
  int64_t instances = 1;        ///< --scene gltf: copies of the model
  CityCliOptions city;          ///< --meshes, --materials, --textures (--scene city)
  double moving = 0.1;          ///< --scene city: share of cars
  std::vector<std::string> given;  ///< the scene options on the command line
};

// The scene soaked; refuses (SceneInput, one line) an option of another scene.
Scene soak_scene(const SoakCli& o) {
  auto given = [&](const char* name) {
    return std::find(o.given.begin(), o.given.end(), name) != o.given.end();
  };
  for (const char* name : {"--meshes", "--materials", "--textures", "--moving"})
    if (o.scene != "city" && given(name))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("soak: {} sets the generated city (--scene city); the {} scene has "
                              "none",
                              name, o.scene));
  for (const char* name : {"--model", "--instances"})
    if (o.scene != "gltf" && given(name))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("soak: {} needs --scene gltf (not {})", name, o.scene));
  if (o.scene == "gltf" && given("--objects"))
    throw Error(ErrorKind::SceneInput,
                "soak: --objects sets the cube or city object count; a glTF scene takes "
                "--instances");
  if (o.scene == "city") {
    const int64_t objects = given("--objects") ? o.objects : CitySceneOptions{}.objects;
    return make_city_scene(city_scene_options(o.city, objects, o.moving, o.seed, "soak"));
  }
  if (o.scene == "gltf") {
    if (o.model.empty())
      throw Error(ErrorKind::SceneInput, "soak: --scene gltf needs --model PATH (.gltf or .glb)");
    if (o.instances < 1 || o.instances > 1'000'000)
      throw Error(ErrorKind::SceneInput,
                  fmt::format("soak: --instances {} is outside 1..1000000", o.instances));
    return load_gltf_scene(o.model, static_cast<uint32_t>(o.instances));
  }
  CubeSceneOptions co;
  co.objects = static_cast<uint32_t>(o.objects);
  co.seed = o.seed;
  return make_cube_scene(co);
}

double mib(double bytes) {
  return bytes / (1024.0 * 1024.0);
}

int64_t total(const ObjectCounts& counts) {
  int64_t n = 0;
  for (const auto& [type, count] : counts) n += count;
  return n;
}

nlohmann::ordered_json counts_json(const ObjectCounts& counts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [type, count] : counts) j[type] = count;
  return j;
}

int run_soak(const SoakCli& o) {
  const std::vector<std::string> names = parse_strategy_list(o.strategies, "soak");
  if (o.objects < 1 || o.objects > 10'000'000)
    throw Error(ErrorKind::SceneInput,
                fmt::format("soak: --objects {} is outside 1..10000000", o.objects));
  if (o.frames < 1 || o.frames > 10'000'000)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --frames {} is outside 1..10000000", o.frames));
  if (o.check_every < 1 || o.check_every > o.frames)
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("soak: --check-every {} is outside 1..--frames ({})", o.check_every, o.frames));
  if (o.warmup < 0 || o.warmup > o.frames)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --warmup {} is outside 0..--frames ({})", o.warmup, o.frames));
  if (!(o.tolerance >= 0 && o.tolerance <= 1))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --tolerance {} is outside 0..1", o.tolerance));
  if (o.memory_window < 1 || o.memory_window > 1000)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --memory-window {} is outside 1..1000", o.memory_window));
  if (o.frames_in_flight < 1 || o.frames_in_flight > 8)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --frames-in-flight {} is outside 1..8", o.frames_in_flight));
  // --encode-threads: its range for every strategy; a strategy named in --strategies that does not
  // encode its draws on the CPU is refused, one that came with "all" is skipped (a row says so).
  check_encode_threads("dynamic-offsets", o.encode_threads, "soak");
  if (o.strategies != "all")
    for (const std::string& name : names) check_encode_threads(name, o.encode_threads, "soak");
  SoakOptions so;
  so.render.frames = static_cast<uint32_t>(o.frames);
  so.render.frames_in_flight = static_cast<uint32_t>(o.frames_in_flight);
  so.render.encode_threads = static_cast<uint32_t>(o.encode_threads);
  so.check_every = static_cast<uint32_t>(o.check_every);
  so.warmup = static_cast<uint32_t>(o.warmup);
  so.tolerance = o.tolerance;
  so.memory_window = static_cast<uint32_t>(o.memory_window);
  validate_soak_options(so);  // before the device: one line, nothing printed yet
  const auto size = parse_size(o.size, "soak");

  const Scene scene = soak_scene(o);
  so.render.moving = scene.moving_share();  // every cube, the city's cars, no glTF object
  Device device = Device::create(to_device_options(o.device));
  const uint32_t max_dim = device.limits().maxTextureDimension2D;
  if (size.first > max_dim || size.second > max_dim)
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("soak: --size {} is outside 1..{} (maxTextureDimension2D) in each "
                            "dimension",
                            o.size, max_dim));
  fmt::print(stderr,
             "bindery soak: {} objects ({} scene), {}x{}, {} frames per strategy, a sample every {} after {} "
             "warm-up frames, tolerance {:g}%, on {} ({}, {})\n",
             scene.objects.size(), scene.name, size.first, size.second, o.frames, o.check_every, o.warmup,
             o.tolerance * 100, device.adapter().name, device.adapter().backend,
             device.adapter().implementation);

  fmt::print("{:<22}{:>8}{:>14}{:>14}{:>16}{:>18}{:>10}{:>8}\n", "strategy", "frames", "floor MiB",
             "floor change", "objects", "implementation", "fps", "flat");
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::vector<std::string> drifted;
  for (const std::string& name : names) {
    if (so.render.encode_threads > 1 && !strategy_encodes_in_parallel(name)) {
      const std::string why = fmt::format(
          "--encode-threads {} does not apply (draws not encoded on the CPU each frame)",
          so.render.encode_threads);
      fmt::print("{:<22}  skipped: {}\n", name, why);
      results.push_back({{"strategy", name}, {"skipped", why}});
      continue;
    }
    if (std::optional<std::string> why = strategy_unavailable(device, scene, name)) {
      fmt::print("{:<22}  unavailable: {}\n", name, *why);
      results.push_back({{"strategy", name}, {"unavailable", *why}});
      continue;
    }
    so.render.strategy = name;
    so.render.width = size.first;
    so.render.height = size.second;
    so.on_sample = [&](const SoakSample& s) {
      fmt::print(stderr, "  {}: frame {}/{}: RSS {:.1f} MiB, {} bindery objects{}, {} draws\n",
                 name, s.frames_done, o.frames, mib(double(s.resident_bytes)),
                 total(s.live_objects),
                 s.implementation_objects
                     ? fmt::format(", {} in the implementation", total(*s.implementation_objects))
                     : std::string(),
                 s.calls.draws);
    };
    SoakReport r;
    try {
      r = soak(device, scene, so);
    } catch (const Error& e) {
      // A capacity of this device reached at this object count (lavapipe's bind groups, buffer
      // sizes): this strategy cannot be soaked here; the others still are.
      if (!is_capacity_limit(e.kind())) throw;
      fmt::print("{:<22}  not possible here: {}\n", name, e.what());
      results.push_back({{"strategy", name}, {"not_possible", e.what()}});
      continue;
    }

    // The table compares the baseline (first sample after the warm-up) with the last sample.
    const auto base = std::find_if(r.samples.begin(), r.samples.end(),
                                   [&](const SoakSample& s) { return s.frames_done >= so.warmup; });
    const SoakSample& last = r.samples.back();
    const double rss_change =
        double(r.memory_floor_end) / double(std::max<uint64_t>(1, r.memory_floor_baseline)) - 1.0;
    auto objects_cell = [](const ObjectCounts& a, const ObjectCounts& b) {
      return fmt::format("{} -> {}", total(a), total(b));
    };
    fmt::print("{:<22}{:>8}{:>14}{:>13.2f}%{:>16}{:>18}{:>10.1f}{:>8}\n", name, r.frames,
               fmt::format("{:.1f}", mib(double(r.memory_floor_end))), rss_change * 100,
               objects_cell(base->live_objects, last.live_objects),
               base->implementation_objects
                   ? objects_cell(*base->implementation_objects, *last.implementation_objects)
                   : std::string("n/a"),
               r.throughput_fps, r.flat() ? "yes" : "NO");
    for (const SoakDrift& d : r.drifts)
      fmt::print("    drift: {} {} at frame {} -> {} at frame {}\n", d.quantity, d.baseline,
                 d.baseline_frames_done, d.value, d.frames_done);
    if (!r.flat()) drifted.push_back(name);

    nlohmann::ordered_json samples = nlohmann::ordered_json::array();
    for (const SoakSample& s : r.samples) {
      nlohmann::ordered_json sj = {{"frames_done", s.frames_done},
                                   {"resident_bytes", s.resident_bytes},
                                   {"interval_ms", s.interval_ms},
                                   {"live_objects", counts_json(s.live_objects)}};
      if (s.implementation_objects)
        sj["implementation_objects"] = counts_json(*s.implementation_objects);
      sj["calls"] = counters_json(s.calls);
      samples.push_back(sj);
    }
    nlohmann::ordered_json drifts = nlohmann::ordered_json::array();
    for (const SoakDrift& d : r.drifts)
      drifts.push_back({{"quantity", d.quantity},
                        {"baseline", d.baseline},
                        {"baseline_frames_done", d.baseline_frames_done},
                        {"value", d.value},
                        {"frames_done", d.frames_done}});
    results.push_back({{"strategy", name},
                       {"objects", r.objects},
                       {"moving_objects", r.moving_objects},
                       {"frames", r.frames},
                       {"throughput_fps", r.throughput_fps},
                       {"memory_floor_baseline", r.memory_floor_baseline},
                       {"memory_floor_end", r.memory_floor_end},
                       {"flat", r.flat()},
                       {"drifts", drifts},
                       {"samples", samples}});
  }
  nlohmann::ordered_json j;
  j["scene"] = scene.name;
  j["objects"] = scene.objects.size();
  j["meshes"] = scene.meshes.size();
  j["materials"] = scene.materials.size();
  j["textures"] = scene.textures.size();
  j["size"] = {size.first, size.second};
  j["frames"] = o.frames;
  j["check_every"] = o.check_every;
  j["warmup"] = o.warmup;
  j["tolerance"] = o.tolerance;
  j["memory_window"] = o.memory_window;
  j["frames_in_flight"] = o.frames_in_flight;
  j["encode_threads"] = o.encode_threads;
  j["implementation"] = implementation_json(device.adapter());
  j["adapter"] = adapter_json(device.adapter());
  j["results"] = results;
  fmt::print("{}\n", j.dump());
  std::fflush(stdout);  // the JSON line whole before the error line on stderr
  if (!drifted.empty()) {
    std::string list;
    for (const std::string& n : drifted) list += (list.empty() ? "" : ", ") + n;
    throw Error(ErrorKind::SoakDrift,
                fmt::format("soak: {} drifted beyond {:g}% after the warm-up (see the drift "
                            "lines above)",
                            list, o.tolerance * 100));
  }
  return 0;
}

Registration reg{
    "soak", "render every strategy for thousands of frames; memory and objects must stay flat",
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<SoakCli>();
      sub.add_option("--strategies", o->strategies,
                     "comma-separated strategies, or all (" + strategy_names() + ")")
          ->capture_default_str();
      sub.add_option("--objects", o->objects, "cubes in the scene, or the city's objects (default "
                                              "20000)")
          ->capture_default_str();
      sub.add_option("--size", o->size, "target size WIDTHxHEIGHT (1x1 = render off)")
          ->capture_default_str();
      sub.add_option("--frames", o->frames, "frames per strategy")->capture_default_str();
      sub.add_option("--check-every", o->check_every, "frames between samples")
          ->capture_default_str();
      sub.add_option("--warmup", o->warmup, "frames before the baseline sample")
          ->capture_default_str();
      sub.add_option("--tolerance", o->tolerance,
                     "largest relative change from the baseline (0.05 = 5%)")
          ->capture_default_str();
      sub.add_option("--memory-window", o->memory_window,
                     "samples per resident-memory floor (transient bursts are not growth)")
          ->capture_default_str();
      sub.add_option("--frames-in-flight", o->frames_in_flight,
                     "frames the CPU runs ahead of the GPU (1 = serial)")
          ->capture_default_str();
      sub.add_option("--encode-threads", o->encode_threads,
                     "threads encoding the draws, each its own command encoder (1..64; "
                     "strategies that encode draws on the CPU)")
          ->capture_default_str();
      sub.add_option("--seed", o->seed, "placement seed of the cube scene or the city")
          ->capture_default_str();
      sub.add_option("--scene", o->scene,
                     "cubes (the article's), city (generated) or gltf (copies of --model)")
          ->check(CLI::IsMember({"cubes", "city", "gltf"}))
          ->capture_default_str();
      sub.add_option("--model", o->model, "--scene gltf: the glTF 2.0 file (.gltf/.glb)");
      sub.add_option("--instances", o->instances, "--scene gltf: copies of the model on a grid")
          ->capture_default_str();
      add_city_options(sub, o->city);
      sub.add_option("--moving", o->moving, "--scene city: share of objects that are moving cars")
          ->capture_default_str();
      add_device_options(sub, o->device);
      CLI::App* app = &sub;
      return [o, app] {
        for (const char* name : {"--meshes", "--materials", "--textures", "--moving", "--model",
                                 "--instances", "--objects"})
          if (app->get_option(name)->count() > 0) o->given.push_back(name);
        return run_soak(*o);
      };
    }};

}  // namespace
}  // namespace bindery::cli
