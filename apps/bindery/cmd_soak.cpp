// SPDX-License-Identifier: MIT
// `bindery soak`: every strategy for thousands of frames; resident memory, live WebGPU objects and
// per-frame work must stay flat after the warm-up (soak.hpp). A progress line per sample, a table,
// one JSON object as the last line; exit 1 with a [SoakDrift] error when anything drifted.
#include "command.hpp"
#include "options.hpp"

#include <bindery/core/limits.hpp>
#include <bindery/render/scene.hpp>
#include <bindery/render/soak.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace bindery::cli {
namespace {

constexpr RunCliRules kRules{"soak", 10'000'000, "frames per strategy"};

struct SoakCli {
  RunCliOptions run = [] {  // --size, --frames, --scene, --seed, ... (options.hpp)
    RunCliOptions r;
    r.size = "64x48";
    r.frames = 2000;
    return r;
  }();
  std::string strategies = "all";
  int64_t objects = 1000;
  int64_t check_every = 100;  ///< when not given: --frames / 20, at least 1
  int64_t warmup = 200;       ///< when not given: --frames / 10, at least frames in flight + 1
  double tolerance = 0.05;
  int64_t memory_window = 4;
  int64_t instances = 1;           ///< --scene gltf: copies of the model
  double moving = 0.1;             ///< --scene city: share of cars
  bool quiet = false;              ///< --quiet: no header or sample lines on stderr
  std::vector<std::string> given;  ///< the scene options on the command line
};

// The scene soaked; refuses (SceneInput, one line) an option of another scene.
Scene soak_scene(const SoakCli& o) {
  auto given = [&](const char* name) {
    return std::find(o.given.begin(), o.given.end(), name) != o.given.end();
  };
  const SceneCliOptions& s = o.run.scene;
  for (const char* name : {"--meshes", "--materials", "--textures", "--moving"})
    if (s.scene != "city" && given(name))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("soak: {} sets the generated city (--scene city); the {} scene has "
                              "none",
                              name, s.scene));
  for (const char* name : {"--model", "--instances"})
    if (s.scene != "gltf" && given(name))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("soak: {} needs --scene gltf (not {})", name, s.scene));
  if (s.scene != "cubes" && given("--spread"))
    throw Error(ErrorKind::SceneInput,
                fmt::format("soak: --spread places the cubes; the {} scene has none", s.scene));
  if (s.scene == "gltf" && given("--objects"))
    throw Error(ErrorKind::SceneInput,
                "soak: --objects sets the cube or city object count; a glTF scene takes "
                "--instances");
  if (s.scene == "city") {
    const int64_t objects = given("--objects") ? o.objects : CitySceneOptions{}.objects;
    return make_city_scene(city_scene_options(s.city, objects, o.moving, s.seed, "soak"));
  }
  if (s.scene == "gltf") {
    if (s.model.empty())
      throw Error(ErrorKind::SceneInput, "soak: --scene gltf needs --model PATH (.gltf or .glb)");
    if (o.instances < 1 || o.instances > 1'000'000)
      throw Error(ErrorKind::SceneInput,
                  fmt::format("soak: --instances {} is outside 1..1000000", o.instances));
    return load_gltf_scene(s.model, static_cast<uint32_t>(o.instances));
  }
  CubeSceneOptions co;
  co.objects = static_cast<uint32_t>(o.objects);
  co.seed = s.seed;
  co.spread = static_cast<float>(o.run.spread);
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

// Every option checked before the device exists (one line, nothing printed yet): the
// SoakOptions they make; the strategy is set per run.
// --check-every and --warmup, where not given, scale with --frames (2000 frames: a sample every
// 100 after a warm-up of 200), so that --frames alone gives a soak of the same shape.
void scale_sampling_with_frames(SoakCli& o) {
  auto given = [&](const char* name) {
    return std::find(o.given.begin(), o.given.end(), name) != o.given.end();
  };
  if (!given("--check-every")) o.check_every = std::max<int64_t>(1, o.run.frames / 20);
  if (!given("--warmup"))
    o.warmup = std::max<int64_t>(
        std::clamp<int64_t>(o.run.frames_in_flight, 1, kMaxFramesInFlight) + 1,
        o.run.frames / 10);
}

SoakOptions check_soak_options(const SoakCli& o, const std::vector<std::string>& names) {
  if (o.objects < 1 || o.objects > kMaxObjects)
    throw Error(ErrorKind::SceneInput,
                fmt::format("soak: --objects {} is outside 1..{}", o.objects, kMaxObjects));
  check_gpu_driven_options(names, o.run, "soak");
  SoakOptions so;
  so.render = to_render_options(o.run, kRules);
  if (o.check_every < 1 || o.check_every > o.run.frames)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --check-every {} is outside 1..--frames ({})", o.check_every,
                            o.run.frames));
  if (o.warmup < 0 || o.warmup > o.run.frames)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --warmup {} is outside 0..--frames ({})", o.warmup,
                            o.run.frames));
  if (!(o.tolerance >= 0 && o.tolerance <= 1))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --tolerance {} is outside 0..1", o.tolerance));
  if (o.memory_window < 1 || o.memory_window > 1000)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: --memory-window {} is outside 1..1000", o.memory_window));
  // --encode-threads: a strategy named in --strategies that does not encode its draws on the CPU
  // is refused, one that came with "all" is skipped (a row says so).
  if (o.strategies != "all")
    for (const std::string& name : names) check_encode_threads(name, o.run.encode_threads, "soak");
  so.check_every = static_cast<uint32_t>(o.check_every);
  so.warmup = static_cast<uint32_t>(o.warmup);
  so.tolerance = o.tolerance;
  so.memory_window = static_cast<uint32_t>(o.memory_window);
  validate_soak_options(so);  // before the device: one line, nothing printed yet
  return so;
}

// The strategy's row of the table (the baseline, first sample after the warm-up, against the last
// sample) and its drift lines.
void print_soak_row(const std::string& name, const SoakReport& r, const SoakOptions& so) {
  const auto base = std::find_if(r.samples.begin(), r.samples.end(),
                                 [&](const SoakSample& s) { return s.frames_done >= so.warmup; });
  const SoakSample& last = r.samples.back();
  const double rss_change =
      double(r.memory_floor_end) / double(std::max<uint64_t>(1, r.memory_floor_baseline)) - 1.0;
  auto objects_cell = [](const ObjectCounts& a, const ObjectCounts& b) {
    return fmt::format("{} -> {}", total(a), total(b));
  };
  out("{:<22}{:>8}{:>14}{:>13.2f}%{:>16}{:>18}{:>10.1f}{:>8}\n", name, r.frames,
      fmt::format("{:.1f}", mib(double(r.memory_floor_end))), rss_change * 100,
      objects_cell(base->live_objects, last.live_objects),
      base->implementation_objects
          ? objects_cell(*base->implementation_objects, *last.implementation_objects)
          : std::string("n/a"),
      r.throughput_fps, r.flat() ? "yes" : "NO");
  for (const SoakDrift& d : r.drifts)
    out("    drift: {} {} at frame {} -> {} at frame {}\n", d.quantity, d.baseline,
        d.baseline_frames_done, d.value, d.frames_done);
}

// The strategy's entry of the JSON line's "results".
nlohmann::ordered_json soak_result_json(const std::string& name, const SoakReport& r) {
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
  const nlohmann::ordered_json moved_cost =
      r.cpu_ns_per_moved_object ? nlohmann::ordered_json(*r.cpu_ns_per_moved_object) : nullptr;
  return {{"strategy", name},
          {"objects", r.objects},
          {"moving_objects", r.moving_objects},
          {"cpu_ns_per_moved_object", moved_cost},
          {"frames", r.frames},
          {"throughput_fps", r.throughput_fps},
          {"memory_floor_baseline", r.memory_floor_baseline},
          {"memory_floor_end", r.memory_floor_end},
          {"flat", r.flat()},
          {"drifts", drifts},
          {"samples", samples}};
}

// Soaks so.render.strategy with a progress line per sample; nullopt (a result row says why)
// when this device's capacity is reached at this object count.
std::optional<SoakReport> soak_strategy(const SoakCli& o, const Device& device, const Scene& scene,
                                        SoakOptions& so, nlohmann::ordered_json& results) {
  const std::string& name = so.render.strategy;
  so.on_sample = [&](const SoakSample& s) {
    if (o.quiet) return;
    fmt::print(stderr, "  {}: frame {}/{}: RSS {:.1f} MiB, {} bindery objects{}, {} draws\n", name,
               s.frames_done, o.run.frames, mib(double(s.resident_bytes)), total(s.live_objects),
               s.implementation_objects
                   ? fmt::format(", {} in the implementation", total(*s.implementation_objects))
                   : std::string(),
               s.calls.draws);
  };
  try {
    return soak(device, scene, so);
  } catch (const Error& e) {
    // A capacity of this device reached at this object count (lavapipe's bind groups, buffer
    // sizes): this strategy cannot be soaked here; the others still are.
    if (!is_capacity_limit(e.kind())) throw;
    out("{:<22}  not possible here: {}\n", name, e.what());
    results.push_back({{"strategy", name}, {"not_possible", e.what()}});
    return std::nullopt;
  }
}

int run_soak(const SoakCli& o) {
  const std::vector<std::string> names = parse_strategy_list(o.strategies, "soak");
  SoakOptions so = check_soak_options(o, names);
  const std::pair<uint32_t, uint32_t> size{so.render.width, so.render.height};

  const Scene scene = soak_scene(o);
  so.render.moving = scene.moving_share();  // every cube, the city's cars, no glTF object
  Device device = Device::create(to_device_options(o.run.device));
  const uint32_t max_dim = device.limits().maxTextureDimension2D;
  if (size.first > max_dim || size.second > max_dim)
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("soak: --size {} is outside 1..{} (maxTextureDimension2D) in each "
                            "dimension",
                            o.run.size, max_dim));
  if (!o.quiet)
    fmt::print(stderr,
               "bindery soak: {} objects ({} scene), {}x{}, {} frames per strategy, a sample "
               "every {} after {} warm-up frames, tolerance {:g}%, on {} ({}, {})\n",
               scene.objects.size(), scene.name, size.first, size.second, o.run.frames,
               o.check_every, o.warmup, o.tolerance * 100, device.adapter().name,
               device.adapter().backend, device.adapter().implementation);

  out("{:<22}{:>8}{:>14}{:>14}{:>16}{:>18}{:>10}{:>8}\n", "strategy", "frames", "floor MiB",
      "floor change", "objects", "implementation", "fps", "flat");
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::vector<std::string> drifted;
  size_t soaked = 0;
  for (const std::string& name : names) {
    if (so.render.encode_threads > 1 && !strategy_encodes_in_parallel(name)) {
      const std::string why = fmt::format(
          "--encode-threads {} does not apply (draws not encoded on the CPU each frame)",
          so.render.encode_threads);
      out("{:<22}  skipped: {}\n", name, why);
      results.push_back({{"strategy", name}, {"skipped", why}});
      continue;
    }
    if (std::optional<std::string> why = strategy_unavailable(device, scene, name)) {
      out("{:<22}  unavailable: {}\n", name, *why);
      results.push_back({{"strategy", name}, {"unavailable", *why}});
      continue;
    }
    so.render.strategy = name;
    std::optional<SoakReport> r = soak_strategy(o, device, scene, so, results);
    if (!r) continue;
    ++soaked;
    print_soak_row(name, *r, so);
    if (!r->flat()) drifted.push_back(name);
    results.push_back(soak_result_json(name, *r));
  }
  nlohmann::ordered_json j;
  j["scene"] = scene.name;
  j["objects"] = scene.objects.size();
  j["meshes"] = scene.meshes.size();
  j["materials"] = scene.materials.size();
  j["textures"] = scene.textures.size();
  j["size"] = {size.first, size.second};
  j["frames"] = o.run.frames;
  j["check_every"] = o.check_every;
  j["warmup"] = o.warmup;
  j["tolerance"] = o.tolerance;
  j["memory_window"] = o.memory_window;
  j["frames_in_flight"] = o.run.frames_in_flight;
  j["encode_threads"] = o.run.encode_threads;
  j["implementation"] = implementation_json(device.adapter());
  j["adapter"] = adapter_json(device.adapter());
  j["results"] = results;
  out("{}\n", j.dump());
  std::fflush(stdout);  // the JSON line whole before the error line on stderr
  if (soaked == 0)
    throw Error(ErrorKind::StrategyUnavailable,
                fmt::format("soak: none of {} could be soaked on this device (the rows above say "
                            "why); nothing was measured",
                            o.strategies));
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
      sub.add_option("--check-every", o->check_every,
                     "frames between samples (default: --frames / 20, at least 1)");
      sub.add_option("--warmup", o->warmup,
                     "frames before the baseline sample (default: --frames / 10, at least "
                     "--frames-in-flight + 1)");
      sub.add_option("--tolerance", o->tolerance,
                     "largest relative change from the baseline (0.05 = 5%)")
          ->capture_default_str();
      sub.add_option("--memory-window", o->memory_window,
                     "samples per resident-memory floor (transient bursts are not growth)")
          ->capture_default_str();
      sub.add_option("--instances", o->instances, "--scene gltf: copies of the model on a grid")
          ->capture_default_str();
      sub.add_option("--moving", o->moving, "--scene city: share of objects that are moving cars")
          ->capture_default_str();
      add_quiet_flag(sub, o->quiet);
      add_run_options(sub, o->run, kRules);
      CLI::App* app = &sub;
      return [o, app] {
        o->given = given_options(
            *app, {"--moving", "--instances", "--objects", "--check-every", "--warmup"});
        scale_sampling_with_frames(*o);
        model_implies_gltf(o->run.scene, o->given);
        return with_flag_names([&] { return run_soak(*o); });
      };
    }};

}  // namespace
}  // namespace bindery::cli
