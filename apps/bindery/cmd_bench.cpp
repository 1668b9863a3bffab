// SPDX-License-Identifier: MIT
// `bindery bench`: for each strategy, the most cubes drawn within a frame budget (bench.hpp),
// with a progress line per probe, a table, and one JSON object as the last line.
#include "command.hpp"
#include "options.hpp"

#include <bindery/core/limits.hpp>
#include <bindery/render/bench.hpp>
#include <bindery/render/scene.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <limits>

namespace bindery::cli {
namespace {

constexpr RunCliRules kRules{"bench", 1000, "measured frames per probe (after one warm-up)"};

struct BenchCli {
  RunCliOptions run = [] {  // --size, --frames, --scene, --seed, ... (options.hpp)
    RunCliOptions r;
    r.frames = 5;
    return r;
  }();
  std::string strategies = "all";
  double budget_ms = 1000.0 / 60.0;
  int64_t start = 250;
  int64_t max = 1'000'000;
  double precision = 0.05;
  bool raw_floor = false;
  double moving = 0.1;             ///< --scene city: share of cars
  std::vector<std::string> given;  ///< the scene options on the command line
};

// The scene of a probe of n objects: the cube scene (nullptr: measure_cubes), the city with n
// objects, or ceil(n / primitives) copies of the glTF model. Refuses (SceneInput, one line) an
// option of another scene; loads the model once to check it before the device is created.
std::function<Scene(uint32_t)> bench_scenes(const BenchCli& o) {
  auto given = [&](const char* name) {
    return std::find(o.given.begin(), o.given.end(), name) != o.given.end();
  };
  const SceneCliOptions& s = o.run.scene;
  for (const char* name : {"--meshes", "--materials", "--textures", "--moving"})
    if (s.scene != "city" && given(name))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("bench: {} sets the generated city (--scene city); the {} scene has "
                              "none",
                              name, s.scene));
  if (s.scene != "gltf" && given("--model"))
    throw Error(ErrorKind::SceneInput,
                fmt::format("bench: --model needs --scene gltf (not {})", s.scene));
  if (s.scene != "cubes" && given("--spread"))
    throw Error(ErrorKind::SceneInput,
                fmt::format("bench: --spread places the cubes; the {} scene has none", s.scene));
  if (s.scene == "city") {
    const CitySceneOptions base = city_scene_options(s.city, 1, o.moving, s.seed, "bench");
    return [base](uint32_t n) {
      CitySceneOptions c = base;
      c.objects = n;
      return make_city_scene(c);
    };
  }
  if (s.scene == "gltf") {
    if (s.model.empty())
      throw Error(ErrorKind::SceneInput, "bench: --scene gltf needs --model PATH (.gltf or .glb)");
    const uint64_t per_copy = load_gltf_scene(s.model, 1).objects.size();
    return [model = s.model, per_copy](uint32_t n) {
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

// What the checked options make: the strategies to measure, how, and the search's bounds.
struct BenchPlan {
  std::vector<std::string> names;
  MeasureOptions mo;
  BudgetSearchOptions so;
};

// Every option is checked before the device is created.
BenchPlan check_bench_options(const BenchCli& o) {
  const std::vector<std::string> names = parse_strategy_list(o.strategies, "bench");
  check_gpu_driven_options(names, o.run, "bench");
  if (o.raw_floor && std::find(names.begin(), names.end(), "dynamic-offsets") == names.end())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --raw-floor measures dynamic-offsets against the same calls on "
                            "raw webgpu.h; --strategies '{}' does not include dynamic-offsets",
                            o.strategies));
  const RenderOptions ro = to_render_options(o.run, kRules);
  if (o.start < 1 || o.max > kMaxObjects || o.max < o.start)
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("bench: --start {} / --max {} must satisfy 1 <= start <= max <= {}", o.start,
                    o.max, kMaxObjects));
  if (o.run.frames_in_flight > 1 && o.run.frames < o.run.frames_in_flight + 1)
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("bench: --frames {} with --frames-in-flight {}: the last {} frames "
                    "finish with no CPU work between them, so their intervals undercount "
                    "the frame; measure at least --frames-in-flight + 1 = {} frames",
                    o.run.frames, o.run.frames_in_flight, o.run.frames_in_flight,
                    o.run.frames_in_flight + 1));
  // --encode-threads: a strategy named in --strategies that does not encode its draws on the CPU
  // is refused, one that came with "all" is skipped (a row says so).
  if (o.strategies != "all")
    for (const std::string& name : names) check_encode_threads(name, o.run.encode_threads, "bench");
  MeasureOptions mo;
  mo.render = ro;
  mo.spread = static_cast<float>(o.run.spread);
  mo.seed = o.run.scene.seed;
  BudgetSearchOptions so;
  so.budget_ms = o.budget_ms;
  so.start_objects = static_cast<uint32_t>(o.start);
  so.max_objects = static_cast<uint32_t>(o.max);
  so.precision = o.precision;
  find_max_within_budget([](uint32_t n) { return BudgetProbe{n}; },
                         BudgetSearchOptions{so.budget_ms, so.start_objects, so.start_objects,
                                             so.precision});  // validates the options only
  return {names, mo, so};
}

// One strategy's budget search, its serial figure and (--raw-floor) the raw-floor comparison.
struct StrategyMeasurement {
  BudgetSearchResult search;
  std::optional<BudgetProbe> best;  ///< the probe at search.max_objects (none: none within)
  std::optional<BudgetProbe> serial;
  std::optional<RawFloorResult> floor;
};

StrategyMeasurement measure_strategy(const BenchCli& o, const Device& device,
                                     const MeasureOptions& mo, const BudgetSearchOptions& so,
                                     const std::function<Scene(uint32_t)>& scene_for) {
  const std::string& name = mo.render.strategy;
  // The cube scene through measure_cubes, any other through measure_scene.
  auto probe = [&](const MeasureOptions& options, uint32_t n) {
    return scene_for ? measure_scene(device, options, scene_for(n))
                     : measure_cubes(device, options, n);
  };
  auto measure = [&](uint32_t n) {
    try {
      BudgetProbe p = probe(mo, n);
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
  StrategyMeasurement m{find_max_within_budget(measure, so)};
  for (const BudgetProbe& p : m.search.probes)
    if (p.objects == m.search.max_objects) m.best = p;
  // The serial figure: the same count with one frame in flight (CPU and GPU one after another).
  if (m.best && mo.render.frames_in_flight > 1) {
    MeasureOptions serial_options = mo;
    serial_options.render.frames_in_flight = 1;
    m.serial = probe(serial_options, m.best->objects);
  }
  // --raw-floor: dynamic-offsets at its largest count within budget (or --start when even that
  // was over) against the raw webgpu.h loop, alternating rounds.
  if (o.raw_floor && name == "dynamic-offsets") {
    const uint32_t n = m.best ? m.best->objects : m.search.probes.front().objects;
    fmt::print(stderr,
               "  raw floor: {} objects, {} alternating rounds of bindery and raw webgpu.h\n", n,
               kRawFloorRounds);
    m.floor = compare_raw_floor(device, mo, n, kRawFloorRounds);
  }
  return m;
}

// The strategy's row of the table.
void print_strategy_row(const BenchCli& o, const std::string& name,
                        const StrategyMeasurement& m) {
  const BudgetSearchResult& r = m.search;
  const BudgetProbe* best = m.best ? &*m.best : nullptr;
  const std::optional<RawFloorResult>& floor = m.floor;
  const double ns_per_object = best && best->objects ? best->cpu_ms * 1e6 / best->objects : 0.0;
  const std::string floor_columns =
      !o.raw_floor ? ""
      : floor      ? fmt::format("{:>12.0f}{:>10.0f}{:>7.2f}", floor->bindery_ns_per_draw,
                                 floor->raw_ns_per_draw, floor->ratio)
                   : fmt::format("{:>12}{:>10}{:>7}", "-", "-", "-");
  if (!best) {
    // Even the first count was over budget: say so with what it measured.
    const BudgetProbe& first = r.probes.front();
    out("{:<20}{:>12}{:>10.2f}{:>10}{:>9.2f}{:>9.2f}{:>9.2f}{:>12}{:>10}{}  (over budget "
        "at --start {}: lower it)\n",
        name, fmt::format("< {}", first.objects), first.frame_ms, "-", first.cpu_ms, first.math_ms,
        first.gpu_ms, "-", "-", floor_columns, first.objects);
  } else {
    out("{:<20}{:>12}{:>10.2f}{:>10.2f}{:>9.2f}{:>9.2f}{:>9.2f}{:>12.0f}{:>10}{}{}\n", name,
        r.max_objects, best->frame_ms, m.serial ? m.serial->frame_ms : best->frame_ms, best->cpu_ms,
        best->math_ms, best->gpu_ms, ns_per_object,
        best->culling ? fmt::format("{}", best->culling->drawn) : "all", floor_columns,
        r.capped ? "  (capped by --max)" : "");
  }
}

// The strategy's entry of the JSON line's "results".
nlohmann::ordered_json strategy_json(const std::string& name, const StrategyMeasurement& m) {
  const BudgetSearchResult& r = m.search;
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (const BudgetProbe& p : r.probes) {
    nlohmann::ordered_json pj = {{"objects", p.objects}, {"frame_ms", p.frame_ms},
                                 {"cpu_ms", p.cpu_ms},   {"math_ms", p.math_ms},
                                 {"gpu_ms", p.gpu_ms},   {"latency_ms", p.latency_ms},
                                 {"moving_objects", p.moving_objects}};
    if (p.cpu_ns_per_moved_object) pj["cpu_ns_per_moved_object"] = *p.cpu_ns_per_moved_object;
    if (p.culling)
      pj["culling"] = {{"afterFrustum", p.culling->after_frustum},
                       {"afterOcclusion", p.culling->after_occlusion},
                       {"drawn", p.culling->drawn}};
    probes.push_back(pj);
  }
  nlohmann::ordered_json rj = {
      {"strategy", name}, {"max_objects", r.max_objects}, {"capped", r.capped}};
  if (m.serial) rj["serial_frame_ms"] = m.serial->frame_ms;
  rj["probes"] = probes;
  if (const std::optional<RawFloorResult>& floor = m.floor) {
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
  return rj;
}

int run_bench(const BenchCli& o) {
  BenchPlan plan = check_bench_options(o);
  const std::function<Scene(uint32_t)> scene_for = bench_scenes(o);
  MeasureOptions& mo = plan.mo;
  const RenderOptions& ro = mo.render;
  Device device = Device::create(to_device_options(o.run.device));
  fmt::print(stderr,
             "bindery bench: budget {:.2f} ms (throughput, {} frame{} in flight), {}x{}, spread "
             "{}, {} frame{} per probe, {} encoding thread{}, on {} ({}, {})\n",
             o.budget_ms, ro.frames_in_flight, ro.frames_in_flight == 1 ? "" : "s", ro.width,
             ro.height, o.run.spread, ro.frames, ro.frames == 1 ? "" : "s", ro.encode_threads,
             ro.encode_threads == 1 ? "" : "s", device.adapter().name, device.adapter().backend,
             device.adapter().implementation);

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  out("{:<20}{:>12}{:>10}{:>10}{:>9}{:>9}{:>9}{:>12}{:>10}{}\n", "strategy", "max objects",
      "frame ms", "serial ms", "cpu ms", "math ms", "gpu ms", "cpu ns/obj", "drawn",
      o.raw_floor ? fmt::format("{:>12}{:>10}{:>7}", "bindery ns", "raw ns", "ratio") : "");
  const Scene probe_scene = scene_for ? scene_for(1) : make_cube_scene({.objects = 1});
  for (const std::string& name : plan.names) {
    mo.render.strategy = name;
    if (ro.encode_threads > 1 && !strategy_encodes_in_parallel(name)) {
      const std::string why = fmt::format(
          "--encode-threads {} does not apply (draws not encoded on the CPU each frame)",
          ro.encode_threads);
      out("{:<20}  skipped: {}\n", name, why);
      results.push_back({{"strategy", name}, {"skipped", why}});
      continue;
    }
    if (std::optional<std::string> why = strategy_unavailable(device, probe_scene, name)) {
      out("{:<20}  unavailable: {}\n", name, *why);
      results.push_back({{"strategy", name}, {"unavailable", *why}});
      continue;
    }
    const StrategyMeasurement m = measure_strategy(o, device, mo, plan.so, scene_for);
    print_strategy_row(o, name, m);
    results.push_back(strategy_json(name, m));
  }
  nlohmann::ordered_json j;
  j["budget_ms"] = o.budget_ms;
  j["scene"] = probe_scene.name;
  j["meshes"] = probe_scene.meshes.size();
  j["materials"] = probe_scene.materials.size();
  j["textures"] = probe_scene.textures.size();
  j["size"] = {ro.width, ro.height};
  j["spread"] = o.run.spread;
  j["frames_in_flight"] = ro.frames_in_flight;
  j["encode_threads"] = ro.encode_threads;
  j["occlusion"] = ro.occlusion;
  j["frames_per_probe"] = o.run.frames;
  j["implementation"] = implementation_json(device.adapter());
  j["adapter"] = adapter_json(device.adapter());
  j["limits"] = limits_json(device.limits());
  j["results"] = results;
  out("{}\n", j.dump());
  return 0;
}

Registration reg{
    "bench",
    "find the most objects (cubes, city objects or glTF copies) each strategy draws within a "
    "frame budget",
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<BenchCli>();
      sub.add_option("--strategies", o->strategies,
                     "comma-separated strategies, or all (" + strategy_names() + ")")
          ->capture_default_str();
      sub.add_option("--budget-ms", o->budget_ms, "frame budget in ms (16.67 = 60 fps)")
          ->capture_default_str();
      sub.add_option("--start", o->start, "first object count")->capture_default_str();
      sub.add_option("--max", o->max, "largest object count to try")->capture_default_str();
      sub.add_option("--precision", o->precision, "stop bisecting at this relative gap")
          ->capture_default_str();
      sub.add_flag("--raw-floor", o->raw_floor,
                   "also time dynamic-offsets' calls issued straight on webgpu.h (5 alternating "
                   "rounds at its max objects): bindery and raw CPU ns per draw, their ratio");
      sub.add_option("--moving", o->moving, "--scene city: share of objects that are moving cars")
          ->capture_default_str();
      add_run_options(sub, o->run, kRules);
      CLI::App* app = &sub;
      return [o, app] {
        o->given = given_options(*app, {"--moving"});
        model_implies_gltf(o->run.scene, o->given);
        return with_flag_names([&] { return run_bench(*o); });
      };
    }};

}  // namespace
}  // namespace bindery::cli
