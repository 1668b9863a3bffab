// SPDX-License-Identifier: MIT
// `bindery bench`: for each strategy, the most cubes drawn within a frame budget (bench.hpp),
// with a progress line per probe, a table, and one JSON object as the last line.
#include "command.hpp"
#include "options.hpp"

#include <bindery/render/bench.hpp>
#include <bindery/render/scene.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <limits>

namespace bindery::cli {
namespace {

struct BenchCli {
  DeviceCliOptions device;
  std::string strategies = "all";
  double budget_ms = 1000.0 / 60.0;
  std::string size = "640x480";
  int64_t frames = 5;
  int64_t start = 250;
  int64_t max = 1'000'000;
  double precision = 0.05;
  double spread = 1.0;
  int64_t frames_in_flight = 2;
  std::string occlusion = "on";
  int64_t threads = 0;
  int64_t encode_threads = 1;
  bool raw_floor = false;
  std::string scene = "cubes";  ///< cubes | city | gltf
  std::string model;            ///< --scene gltf: the model copied on a grid
  CityCliOptions city;          ///< --meshes, --materials, --textures (--scene city)
  double moving = 0.1;          ///< --scene city: share of cars
  uint64_t seed = 1;            ///< seed of the cube scene or the city
  std::vector<std::string> given;  ///< the scene options on the command line
};

// The scene of a probe of n objects: the cube scene (nullptr: measure_cubes), the city with n
// objects, or ceil(n / primitives) copies of the glTF model. Refuses (SceneInput, one line) an
// option of another scene; loads the model once to check it before the device is created.
std::function<Scene(uint32_t)> bench_scenes(const BenchCli& o) {
  auto given = [&](const char* name) {
    return std::find(o.given.begin(), o.given.end(), name) != o.given.end();
  };
  for (const char* name : {"--meshes", "--materials", "--textures", "--moving"})
    if (o.scene != "city" && given(name))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("bench: {} sets the generated city (--scene city); the {} scene has "
                              "none",
                              name, o.scene));
  if (o.scene != "gltf" && given("--model"))
    throw Error(ErrorKind::SceneInput,
                fmt::format("bench: --model needs --scene gltf (not {})", o.scene));
  if (o.scene != "cubes" && given("--spread"))
    throw Error(ErrorKind::SceneInput,
                fmt::format("bench: --spread places the cubes; the {} scene has none", o.scene));
  if (o.scene == "city") {
    const CitySceneOptions base = city_scene_options(o.city, 1, o.moving, o.seed, "bench");
    return [base](uint32_t n) {
      CitySceneOptions c = base;
      c.objects = n;
      return make_city_scene(c);
    };
  }
  if (o.scene == "gltf") {
    if (o.model.empty())
      throw Error(ErrorKind::SceneInput, "bench: --scene gltf needs --model PATH (.gltf or .glb)");
    const uint64_t per_copy = load_gltf_scene(o.model, 1).objects.size();
    return [model = o.model, per_copy](uint32_t n) {
      return load_gltf_scene(model, static_cast<uint32_t>((n + per_copy - 1) / per_copy));
    };
  }
  return nullptr;
}

// The rounds of --raw-floor (issue 10: the median of 5 alternating rounds).
constexpr uint32_t kRawFloorRounds = 5;

nlohmann::ordered_json calls_json(const Counters& c) {
  return {{"draws", c.draws},
          {"setPipeline", c.set_pipeline},
          {"setBindGroup", c.set_bind_group},
          {"setVertexBuffer", c.set_vertex_buffer},
          {"setIndexBuffer", c.set_index_buffer},
          {"writeBuffer", c.write_buffer_calls},
          {"bytesUploaded", c.bytes_uploaded}};
}

int run_bench(const BenchCli& o) {
  // Every option is checked before the device is created.
  const std::vector<std::string> names = parse_strategy_list(o.strategies, "bench");
  if (o.raw_floor && std::find(names.begin(), names.end(), "dynamic-offsets") == names.end())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --raw-floor measures dynamic-offsets against the same calls on "
                            "raw webgpu.h; --strategies '{}' does not include dynamic-offsets",
                            o.strategies));
  if (o.frames < 1 || o.frames > 1000)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --frames {} is outside 1..1000", o.frames));
  if (o.start < 1 || o.max > 10'000'000 || o.max < o.start)
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("bench: --start {} / --max {} must satisfy 1 <= start <= max <= 10000000",
                    o.start, o.max));
  if (o.frames_in_flight < 1 || o.frames_in_flight > 8)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --frames-in-flight {} is outside 1..8", o.frames_in_flight));
  if (o.frames_in_flight > 1 && o.frames < o.frames_in_flight + 1)
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("bench: --frames {} with --frames-in-flight {}: the last {} frames "
                    "finish with no CPU work between them, so their intervals undercount "
                    "the frame; measure at least --frames-in-flight + 1 = {} frames",
                    o.frames, o.frames_in_flight, o.frames_in_flight, o.frames_in_flight + 1));
  if (o.threads < 0 || o.threads > 1024)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --threads {} is outside 0..1024", o.threads));
  // --encode-threads: its range for every strategy; a strategy named in --strategies that does not
  // encode its draws on the CPU is refused, one that came with "all" is skipped (a row says so).
  check_encode_threads("dynamic-offsets", o.encode_threads, "bench");
  if (o.strategies != "all")
    for (const std::string& name : names) check_encode_threads(name, o.encode_threads, "bench");
  if (!(o.spread >= 0.01 && o.spread <= 1000))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --spread {} is outside 0.01..1000", o.spread));
  const auto size = parse_size(o.size, "bench");
  MeasureOptions mo;
  mo.width = size.first;
  mo.height = size.second;
  mo.frames = static_cast<uint32_t>(o.frames);
  mo.spread = static_cast<float>(o.spread);
  mo.frames_in_flight = static_cast<uint32_t>(o.frames_in_flight);
  mo.occlusion = o.occlusion == "on";
  mo.threads = static_cast<uint32_t>(o.threads);
  mo.encode_threads = static_cast<uint32_t>(o.encode_threads);
  BudgetSearchOptions so;
  so.budget_ms = o.budget_ms;
  so.start_objects = static_cast<uint32_t>(o.start);
  so.max_objects = static_cast<uint32_t>(o.max);
  so.precision = o.precision;
  find_max_within_budget([](uint32_t n) { return BudgetProbe{n}; },
                         BudgetSearchOptions{so.budget_ms, so.start_objects, so.start_objects,
                                             so.precision});  // validates the options only
  mo.seed = o.seed;
  const std::function<Scene(uint32_t)> scene_for = bench_scenes(o);

  Device device = Device::create(to_device_options(o.device));
  fmt::print(stderr,
             "bindery bench: budget {:.2f} ms (throughput, {} frame{} in flight), {}x{}, spread "
             "{}, {} frame{} per probe, {} encoding thread{}, on {} ({}, {})\n",
             o.budget_ms, mo.frames_in_flight, mo.frames_in_flight == 1 ? "" : "s", mo.width,
             mo.height, o.spread, o.frames, o.frames == 1 ? "" : "s", mo.encode_threads,
             mo.encode_threads == 1 ? "" : "s", device.adapter().name, device.adapter().backend,
             device.adapter().implementation);

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  fmt::print("{:<20}{:>12}{:>10}{:>10}{:>9}{:>9}{:>9}{:>12}{:>10}{}\n", "strategy", "max objects",
             "frame ms", "serial ms", "cpu ms", "math ms", "gpu ms", "cpu ns/obj", "drawn",
             o.raw_floor ? fmt::format("{:>12}{:>10}{:>7}", "bindery ns", "raw ns", "ratio") : "");
  const Scene probe_scene = scene_for ? scene_for(1) : make_cube_scene({.objects = 1});
  for (const std::string& name : names) {
    mo.strategy = name;
    if (mo.encode_threads > 1 && !strategy_encodes_in_parallel(name)) {
      const std::string why = fmt::format(
          "--encode-threads {} does not apply (draws not encoded on the CPU each frame)",
          mo.encode_threads);
      fmt::print("{:<20}  skipped: {}\n", name, why);
      results.push_back({{"strategy", name}, {"skipped", why}});
      continue;
    }
    if (std::optional<std::string> why = strategy_unavailable(device, probe_scene, name)) {
      fmt::print("{:<20}  unavailable: {}\n", name, *why);
      results.push_back({{"strategy", name}, {"unavailable", *why}});
      continue;
    }
    auto measure = [&](uint32_t n) {
      try {
        BudgetProbe p =
            scene_for ? measure_scene(device, mo, scene_for(n)) : measure_cubes(device, mo, n);
        fmt::print(stderr, "  {}: {} objects -> {:.2f} ms per frame ({})\n", name, n, p.frame_ms,
                   p.frame_ms <= o.budget_ms ? "within budget" : "over budget");
        return p;
      } catch (const Error& e) {
        if (!is_capacity_limit(e.kind()) && e.kind() != ErrorKind::StrategyUnavailable) throw;
        fmt::print(stderr, "  {}: {} objects -> not possible here ({}): counted as over budget\n",
                   name, n, e.what());
        return BudgetProbe{n, std::numeric_limits<double>::infinity()};
      }
    };
    const BudgetSearchResult r = find_max_within_budget(measure, so);
    const BudgetProbe* best = nullptr;
    for (const BudgetProbe& p : r.probes)
      if (p.objects == r.max_objects) best = &p;
    // The serial figure: the same count with one frame in flight (CPU and GPU one after another).
    std::optional<BudgetProbe> serial;
    if (best && mo.frames_in_flight > 1) {
      MeasureOptions serial_options = mo;
      serial_options.frames_in_flight = 1;
      serial = scene_for ? measure_scene(device, serial_options, scene_for(best->objects))
                         : measure_cubes(device, serial_options, best->objects);
    }
    const double ns_per_object = best && best->objects ? best->cpu_ms * 1e6 / best->objects : 0.0;
    // --raw-floor: dynamic-offsets at its largest count within budget (or --start when even that
    // was over) against the raw webgpu.h loop, alternating rounds.
    std::optional<RawFloorResult> floor;
    if (o.raw_floor && name == "dynamic-offsets") {
      const uint32_t n = best ? best->objects : r.probes.front().objects;
      fmt::print(stderr,
                 "  raw floor: {} objects, {} alternating rounds of bindery and raw webgpu.h\n", n,
                 kRawFloorRounds);
      floor = compare_raw_floor(device, mo, n, kRawFloorRounds);
    }
    const std::string floor_columns =
        !o.raw_floor ? ""
        : floor      ? fmt::format("{:>12.0f}{:>10.0f}{:>7.2f}", floor->bindery_ns_per_draw,
                                   floor->raw_ns_per_draw, floor->ratio)
                     : fmt::format("{:>12}{:>10}{:>7}", "-", "-", "-");
    if (!best) {
      // Even the first count was over budget: say so with what it measured.
      const BudgetProbe& first = r.probes.front();
      fmt::print(
          "{:<20}{:>12}{:>10.2f}{:>10}{:>9.2f}{:>9.2f}{:>9.2f}{:>12}{:>10}{}  (over budget "
          "at --start {}: lower it)\n",
          name, fmt::format("< {}", first.objects), first.frame_ms, "-", first.cpu_ms,
          first.math_ms, first.gpu_ms, "-", "-", floor_columns, first.objects);
    } else {
      fmt::print("{:<20}{:>12}{:>10.2f}{:>10.2f}{:>9.2f}{:>9.2f}{:>9.2f}{:>12.0f}{:>10}{}{}\n",
                 name, r.max_objects, best->frame_ms, serial ? serial->frame_ms : best->frame_ms,
                 best->cpu_ms, best->math_ms, best->gpu_ms, ns_per_object,
                 best->culling ? fmt::format("{}", best->culling->drawn) : "all", floor_columns,
                 r.capped ? "  (capped by --max)" : "");
    }
    nlohmann::ordered_json probes = nlohmann::ordered_json::array();
    for (const BudgetProbe& p : r.probes) {
      nlohmann::ordered_json pj = {{"objects", p.objects}, {"frame_ms", p.frame_ms},
                                   {"cpu_ms", p.cpu_ms},   {"math_ms", p.math_ms},
                                   {"gpu_ms", p.gpu_ms},   {"latency_ms", p.latency_ms},
                                   {"moving_objects", p.moving_objects}};
      if (p.culling)
        pj["culling"] = {{"afterFrustum", p.culling->after_frustum},
                         {"afterOcclusion", p.culling->after_occlusion},
                         {"drawn", p.culling->drawn}};
      probes.push_back(pj);
    }
    nlohmann::ordered_json rj = {
        {"strategy", name}, {"max_objects", r.max_objects}, {"capped", r.capped}};
    if (serial) rj["serial_frame_ms"] = serial->frame_ms;
    rj["probes"] = probes;
    if (floor) {
      nlohmann::ordered_json rounds = nlohmann::ordered_json::array();
      for (const RawFloorRound& round : floor->rounds)
        rounds.push_back({{"bindery_ns_per_draw", round.bindery_ns_per_draw},
                          {"raw_ns_per_draw", round.raw_ns_per_draw},
                          {"ratio", round.ratio()}});
      rj["raw_floor"] = {{"objects", floor->objects},
                         {"frames_per_round", floor->frames},
                         {"bindery_ns_per_draw", floor->bindery_ns_per_draw},
                         {"raw_ns_per_draw", floor->raw_ns_per_draw},
                         {"ratio", floor->ratio},
                         {"rounds", rounds},
                         {"bindery_calls_per_frame", calls_json(floor->bindery_per_frame)},
                         {"raw_calls_per_frame", calls_json(floor->raw_per_frame)}};
    }
    results.push_back(rj);
  }
  nlohmann::ordered_json j;
  j["budget_ms"] = o.budget_ms;
  j["scene"] = probe_scene.name;
  j["meshes"] = probe_scene.meshes.size();
  j["materials"] = probe_scene.materials.size();
  j["textures"] = probe_scene.textures.size();
  j["size"] = {mo.width, mo.height};
  j["spread"] = o.spread;
  j["frames_in_flight"] = mo.frames_in_flight;
  j["encode_threads"] = mo.encode_threads;
  j["occlusion"] = mo.occlusion;
  j["frames_per_probe"] = o.frames;
  j["implementation"] = implementation_json(device.adapter());
  j["adapter"] = adapter_json(device.adapter());
  j["limits"] = limits_json(device.limits());
  j["results"] = results;
  fmt::print("{}\n", j.dump());
  return 0;
}

Registration reg{
    "bench", "find the most cubes each strategy draws within a frame budget",
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<BenchCli>();
      sub.add_option("--strategies", o->strategies,
                     "comma-separated strategies, or all (" + strategy_names() + ")")
          ->capture_default_str();
      sub.add_option("--budget-ms", o->budget_ms, "frame budget in ms (16.67 = 60 fps)")
          ->capture_default_str();
      sub.add_option("--size", o->size, "target size WIDTHxHEIGHT (1x1 = render off)")
          ->capture_default_str();
      sub.add_option("--frames", o->frames, "measured frames per probe (after one warm-up)")
          ->capture_default_str();
      sub.add_option("--start", o->start, "first object count")->capture_default_str();
      sub.add_option("--max", o->max, "largest object count to try")->capture_default_str();
      sub.add_option("--precision", o->precision, "stop bisecting at this relative gap")
          ->capture_default_str();
      sub.add_option("--spread", o->spread,
                     "scale of the cubes' placement radius (8: most outside the view)")
          ->capture_default_str();
      sub.add_option("--frames-in-flight", o->frames_in_flight,
                     "frames the CPU runs ahead of the GPU (1 = serial)")
          ->capture_default_str();
      sub.add_option("--occlusion", o->occlusion, "occlusion culling of gpu-driven: on or off")
          ->check(CLI::IsMember({"on", "off"}))
          ->capture_default_str();
      sub.add_option("--threads", o->threads, "CPU threads for per-object maths (0 = all cores)")
          ->capture_default_str();
      sub.add_option("--encode-threads", o->encode_threads,
                     "threads encoding the draws, each its own command encoder (1..64; "
                     "strategies that encode draws on the CPU)")
          ->capture_default_str();
      sub.add_flag("--raw-floor", o->raw_floor,
                   "also time dynamic-offsets' calls issued straight on webgpu.h (5 alternating "
                   "rounds at its max objects): bindery and raw CPU ns per draw, their ratio");
      sub.add_option("--scene", o->scene,
                     "cubes (the article's), city (generated) or gltf (copies of --model)")
          ->check(CLI::IsMember({"cubes", "city", "gltf"}))
          ->capture_default_str();
      sub.add_option("--model", o->model, "--scene gltf: the glTF 2.0 file (.gltf/.glb)");
      add_city_options(sub, o->city);
      sub.add_option("--moving", o->moving, "--scene city: share of objects that are moving cars")
          ->capture_default_str();
      sub.add_option("--seed", o->seed, "random seed of the cube scene or the city")
          ->capture_default_str();
      add_device_options(sub, o->device);
      CLI::App* app = &sub;
      return [o, app] {
        for (const char* name :
             {"--meshes", "--materials", "--textures", "--moving", "--model", "--spread"})
          if (app->get_option(name)->count() > 0) o->given.push_back(name);
        return run_bench(*o);
      };
    }};

}  // namespace
}  // namespace bindery::cli
