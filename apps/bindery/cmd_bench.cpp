// SPDX-License-Identifier: MIT
// `bindery bench`: for each strategy, the most cubes drawn within a frame budget (bench.hpp),
// searched --repeat times with the strategies interleaved round-robin (issue 31), with a progress
// line per probe, a table of medians and ranges, and one JSON object (every repeat) as the last
// line.
#include "command.hpp"
#include "options.hpp"

#include <bindery/core/limits.hpp>
#include <bindery/render/bench.hpp>
#include <bindery/render/scene.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

namespace bindery::cli {
namespace {

constexpr RunCliRules kRules{"bench", 1000,
                             "measured frames per probe at least (after the warm-up; more until "
                             "they add up to --probe-ms)"};

// The most frames a probe measures when --probe-ms asks for more than --frames.
constexpr uint32_t kMaxProbeFrames = 1000;
// A probe whose CPU work (math + cpu) exceeds its frame interval by more than this was not steady:
// its row says so.
constexpr double kCpuIntervalFactor = 1.25;

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
  std::string search = "guided";  ///< BudgetSearchMode: guided or geometric
  int64_t repeat = 5;         ///< searches per strategy, interleaved (1..kMaxBenchRepeats)
  int64_t warmup_frames = 3;  ///< frames before each probe's measured ones (1..1000)
  double probe_ms = 200;      ///< measured time per probe at least (0..60000; 0: --frames frames)
  bool quiet = false;         ///< no header or progress lines on stderr
  double moving = 0.1;        ///< --scene city: share of cars
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

// --repeat, --warmup-frames and --probe-ms against their ranges (InvalidArgument naming the flag).
void check_repeat_options(const BenchCli& o) {
  if (o.repeat < 1 || o.repeat > int64_t(kMaxBenchRepeats))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --repeat {} is outside 1..{} (searches per strategy)", o.repeat,
                            kMaxBenchRepeats));
  if (o.warmup_frames < 1 || o.warmup_frames > 1000)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --warmup-frames {} is outside 1..1000 (the first frame of a "
                            "probe uploads everything, so at least 1)",
                            o.warmup_frames));
  if (!(o.probe_ms >= 0 && o.probe_ms <= 60000))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --probe-ms {} is outside 0..60000", o.probe_ms));
}

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
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --start {} / --max {} must satisfy 1 <= start <= max <= {}",
                            o.start, o.max, kMaxObjects));
  check_repeat_options(o);
  // --encode-threads: a strategy named in --strategies that does not encode its draws on the CPU
  // is refused, one that came with "all" is skipped (a row says so).
  if (o.strategies != "all")
    for (const std::string& name : names) check_encode_threads(name, o.run.encode_threads, "bench");
  MeasureOptions mo;
  mo.render = ro;
  mo.spread = static_cast<float>(o.run.spread);
  mo.seed = o.run.scene.seed;
  mo.warmup_frames = static_cast<uint32_t>(o.warmup_frames);
  mo.probe_ms = o.probe_ms;
  mo.max_frames = kMaxProbeFrames;
  BudgetSearchOptions so;
  so.budget_ms = o.budget_ms;
  so.start_objects = static_cast<uint32_t>(o.start);
  so.max_objects = static_cast<uint32_t>(o.max);
  so.precision = o.precision;
  so.mode = o.search == "geometric" ? BudgetSearchMode::geometric : BudgetSearchMode::guided;
  find_max_within_budget([](uint32_t n) { return BudgetProbe{n}; },
                         BudgetSearchOptions{so.budget_ms, so.start_objects, so.start_objects,
                                             so.precision, 0, 2.0,
                                             BudgetSearchMode::geometric});  // validates only
  return {names, mo, so};
}

// One budget search of one strategy (one repeat).
struct RepeatMeasurement {
  uint32_t order = 0;  ///< position of this search in the run (interleaved_schedule)
  BudgetSearchResult search;
  std::optional<BudgetProbe> best;  ///< the probe at search.max_objects (none: none within)
};

// A measured strategy: its repeats (in repeat order), the serial figure at the median repeat's
// count and, with --raw-floor, the floor.
struct StrategyMeasurement {
  std::vector<RepeatMeasurement> repeats;
  std::optional<BudgetProbe> serial;
  std::optional<RawFloorResult> floor;
  /// The spread of the repeats' max objects; median_index is the repeat the row prints.
  Spread spread() const {
    std::vector<double> v;
    for (const RepeatMeasurement& r : repeats) v.push_back(r.search.max_objects);
    return spread_of(v);
  }
  const RepeatMeasurement& median() const { return repeats[spread().median_index]; }
};

// Measures n objects of the scene `scene_for` makes (nullptr: the cube scene).
BudgetProbe probe_scene(const Device& device, const MeasureOptions& options,
                        const std::function<Scene(uint32_t)>& scene_for, uint32_t n) {
  return scene_for ? measure_scene(device, options, scene_for(n))
                   : measure_cubes(device, options, n);
}

// One search of mo.render.strategy (a progress line per probe unless --quiet).
RepeatMeasurement search_once(const BenchCli& o, const Device& device, const MeasureOptions& mo,
                              const BudgetSearchOptions& so,
                              const std::function<Scene(uint32_t)>& scene_for) {
  const std::string& name = mo.render.strategy;
  auto measure = [&](uint32_t n) {
    try {
      BudgetProbe p = probe_scene(device, mo, scene_for, n);
      if (!o.quiet)
        fmt::print(stderr, "  {}: {} objects -> {:.2f} ms per frame ({}, {} frames)\n", name, n,
                   p.frame_ms, p.frame_ms <= o.budget_ms ? "within budget" : "over budget",
                   p.frames);
      return p;
    } catch (const Error& e) {
      if (!is_capacity_limit(e.kind()) && e.kind() != ErrorKind::StrategyUnavailable) throw;
      if (!o.quiet)
        fmt::print(stderr, "  {}: {} objects -> not possible here ({}): counted as over budget\n",
                   name, n, e.what());
      return BudgetProbe{n, std::numeric_limits<double>::infinity()};
    }
  };
  RepeatMeasurement m{0, find_max_within_budget(measure, so)};
  for (const BudgetProbe& p : m.search.probes)
    if (p.objects == m.search.max_objects) m.best = p;
  return m;
}

// With more than one frame in flight, the serial figure: the median repeat's count with one frame
// in flight (CPU and GPU one after another), measured once after the repeats (not per search: a
// probe fewer each).
std::optional<BudgetProbe> serial_figure(const Device& device, MeasureOptions mo,
                                         const std::function<Scene(uint32_t)>& scene_for,
                                         const StrategyMeasurement& m) {
  const RepeatMeasurement& r = m.median();
  if (!r.best || mo.render.frames_in_flight <= 1) return std::nullopt;
  mo.render.frames_in_flight = 1;
  return probe_scene(device, mo, scene_for, r.best->objects);
}

// --raw-floor: dynamic-offsets at the median repeat's largest count within budget (or --start
// when even that was over) against the raw webgpu.h loop, alternating rounds.
RawFloorResult raw_floor(const BenchCli& o, const Device& device, MeasureOptions mo,
                         const StrategyMeasurement& m) {
  const RepeatMeasurement& r = m.median();
  const uint32_t n = r.best ? r.best->objects : static_cast<uint32_t>(o.start);
  if (!o.quiet)
    fmt::print(stderr,
               "  raw floor: {} objects, {} alternating rounds of bindery and raw webgpu.h\n", n,
               kRawFloorRounds);
  mo.render.strategy = "dynamic-offsets";
  return compare_raw_floor(device, mo, n, kRawFloorRounds);
}

// The spread of the floor's rounds' ratios.
Spread ratio_spread(const RawFloorResult& floor) {
  std::vector<double> v;
  for (const RawFloorRound& round : floor.rounds) v.push_back(round.ratio());
  return spread_of(v);
}

// How many of the strategy's searches reached --max within budget.
uint32_t capped_repeats(const StrategyMeasurement& m) {
  return static_cast<uint32_t>(std::count_if(m.repeats.begin(), m.repeats.end(),
                                             [](const RepeatMeasurement& r) {
                                               return r.search.capped;
                                             }));
}

// Why a probe's CPU time and frame interval disagree (empty: they agree).
std::string steadiness_note(const BudgetProbe& p) {
  if (cpu_fits_interval(p, kCpuIntervalFactor)) return "";
  return fmt::format(
      "  (cpu + math {:.2f} ms > {:g} x frame {:.2f} ms over {} frames{}: not "
      "steady, the host or the driver held it up)",
      p.cpu_ms + p.math_ms, kCpuIntervalFactor, p.frame_ms, p.frames,
      p.frames >= kMaxProbeFrames ? ", the most a probe takes" : "");
}

void print_table_header(const BenchCli& o) {
  out(
      "{:<20}{:>12}{:>18}{:>10}{:>10}{:>9}{:>9}{:>9}{:>12}{:>10}{}\n", "strategy", "max objects",
      "range", "frame ms", "serial ms", "cpu ms", "math ms", "gpu ms", "cpu ns/obj", "drawn",
      o.raw_floor
          ? fmt::format("{:>12}{:>10}{:>7}{:>13}", "bindery ns", "raw ns", "ratio", "ratio range")
          : "");
}

// The strategy's row of the table: the median of the repeats' max objects with their range, the
// other figures those of the median repeat's probe at its max.
void print_strategy_row(const BenchCli& o, const std::string& name, const StrategyMeasurement& m) {
  const Spread spread = m.spread();
  const RepeatMeasurement& med = m.median();
  const BudgetSearchResult& r = med.search;
  const BudgetProbe* best = med.best ? &*med.best : nullptr;
  const std::optional<RawFloorResult>& floor = m.floor;
  const double ns_per_object = best && best->objects ? best->cpu_ms * 1e6 / best->objects : 0.0;
  const std::string range = fmt::format("{:.0f}..{:.0f}", spread.min, spread.max);
  std::string floor_columns;
  if (o.raw_floor && floor) {
    const Spread ratios = ratio_spread(*floor);
    floor_columns = fmt::format("{:>12.0f}{:>10.0f}{:>7.2f}{:>13}", floor->bindery_ns_per_draw,
                                floor->raw_ns_per_draw, floor->ratio,
                                fmt::format("{:.2f}..{:.2f}", ratios.min, ratios.max));
  } else if (o.raw_floor) {
    floor_columns = fmt::format("{:>12}{:>10}{:>7}{:>13}", "-", "-", "-", "-");
  }
  if (!best) {
    // The median search went down to --start and found even that over budget (a later search
    // starts elsewhere and ends there): say so with what --start measured.
    const auto at_start = std::find_if(r.probes.begin(), r.probes.end(), [&](const BudgetProbe& p) {
      return p.objects == uint64_t(o.start);
    });
    const BudgetProbe& first = at_start != r.probes.end() ? *at_start : r.probes.back();
    out(
        "{:<20}{:>12}{:>18}{:>10.2f}{:>10}{:>9.2f}{:>9.2f}{:>9.2f}{:>12}{:>10}{}  (over budget "
        "at --start {}: lower it){}\n",
        name, fmt::format("< {}", o.start), range, first.frame_ms, "-", first.cpu_ms,
        first.math_ms, first.gpu_ms, "-", "-", floor_columns, o.start, steadiness_note(first));
    return;
  }
  const uint32_t capped = capped_repeats(m);
  // No serial probe at one frame in flight (the frames are serial already): "-", as in the JSON.
  const std::string serial = m.serial ? fmt::format("{:.2f}", m.serial->frame_ms) : "-";
  out("{:<20}{:>12}{:>18}{:>10.2f}{:>10}{:>9.2f}{:>9.2f}{:>9.2f}{:>12.0f}{:>10}{}{}{}\n",
             name, r.max_objects, range, best->frame_ms, serial, best->cpu_ms, best->math_ms,
             best->gpu_ms, ns_per_object,
             best->culling ? fmt::format("{}", best->culling->drawn) : "all", floor_columns,
             capped ? fmt::format("  (capped by --max in {} of {} searches)", capped,
                                  m.repeats.size())
                    : "",
             steadiness_note(*best));
}

nlohmann::ordered_json probes_json(const BudgetSearchResult& r) {
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (const BudgetProbe& p : r.probes) {
    nlohmann::ordered_json pj = {
        {"objects", p.objects},
        {"frame_ms", std::isfinite(p.frame_ms) ? nlohmann::ordered_json(p.frame_ms)
                                               : nlohmann::ordered_json(nullptr)},
        {"cpu_ms", p.cpu_ms},
        {"math_ms", p.math_ms},
        {"gpu_ms", p.gpu_ms},
        {"latency_ms", p.latency_ms},
        {"frames", p.frames},
        {"measured_ms", p.measured_ms},
        {"cpu_fits_interval", cpu_fits_interval(p, kCpuIntervalFactor)},
        {"moving_objects", p.moving_objects}};
    if (p.cpu_ns_per_moved_object) pj["cpu_ns_per_moved_object"] = *p.cpu_ns_per_moved_object;
    if (p.culling)
      pj["culling"] = {{"afterFrustum", p.culling->after_frustum},
                       {"afterOcclusion", p.culling->after_occlusion},
                       {"drawn", p.culling->drawn}};
    probes.push_back(pj);
  }
  return probes;
}

nlohmann::ordered_json raw_floor_json(const RawFloorResult& floor) {
  nlohmann::ordered_json rounds = nlohmann::ordered_json::array();
  for (const RawFloorRound& round : floor.rounds)
    rounds.push_back({{"bindery_ns_per_draw", round.bindery_ns_per_draw},
                      {"raw_ns_per_draw", round.raw_ns_per_draw},
                      {"ratio", round.ratio()}});
  const Spread ratios = ratio_spread(floor);
  return {{"objects", floor.objects},
          {"frames_per_round", floor.frames},
          {"bindery_ns_per_draw", floor.bindery_ns_per_draw},
          {"raw_ns_per_draw", floor.raw_ns_per_draw},
          {"ratio", floor.ratio},
          {"ratio_min", ratios.min},
          {"ratio_max", ratios.max},
          {"rounds", rounds},
          {"bindery_calls_per_frame", calls_json(floor.bindery_per_frame)},
          {"raw_calls_per_frame", calls_json(floor.raw_per_frame)}};
}

// The strategy's entry of the JSON line's "results": the median and range of max objects, the
// median repeat's figures and probes (as before --repeat), and every repeat.
nlohmann::ordered_json strategy_json(const std::string& name, const StrategyMeasurement& m) {
  const Spread spread = m.spread();
  const RepeatMeasurement& med = m.median();
  nlohmann::ordered_json repeats = nlohmann::ordered_json::array();
  for (size_t i = 0; i < m.repeats.size(); ++i) {
    const RepeatMeasurement& r = m.repeats[i];
    nlohmann::ordered_json rj = {{"repeat", i},
                                 {"order", r.order},
                                 {"max_objects", r.search.max_objects},
                                 {"capped", r.search.capped}};
    rj["probes"] = probes_json(r.search);
    repeats.push_back(rj);
  }
  nlohmann::ordered_json rj = {{"strategy", name},
                               {"max_objects", med.search.max_objects},
                               {"max_objects_min", static_cast<uint32_t>(spread.min)},
                               {"max_objects_max", static_cast<uint32_t>(spread.max)},
                               {"median_repeat", spread.median_index},
                               {"capped", med.search.capped},
                               {"capped_repeats", capped_repeats(m)}};
  if (m.serial) rj["serial_frame_ms"] = m.serial->frame_ms;
  rj["probes"] = probes_json(med.search);
  rj["repeats"] = repeats;
  if (m.floor) rj["raw_floor"] = raw_floor_json(*m.floor);
  return rj;
}

// Why `name` is not measured here (skipped or unavailable; the row and JSON say which), or
// nullopt.
std::optional<std::pair<std::string, std::string>> not_measured(const Device& device,
                                                                const Scene& probe_scene,
                                                                const RenderOptions& ro,
                                                                const std::string& name) {
  if (ro.encode_threads > 1 && !strategy_encodes_in_parallel(name))
    return std::pair<std::string, std::string>{
        "skipped",
        fmt::format("--encode-threads {} does not apply (draws not encoded on the CPU each frame)",
                    ro.encode_threads)};
  if (std::optional<std::string> why = strategy_unavailable(device, probe_scene, name))
    return std::pair<std::string, std::string>{"unavailable", *why};
  return std::nullopt;
}

// Every repeat of every measured strategy, in the interleaved order; `measured` indexes `names`.
std::vector<StrategyMeasurement> measure_interleaved(
    const BenchCli& o, const Device& device, BenchPlan& plan,
    const std::function<Scene(uint32_t)>& scene_for, const std::vector<size_t>& measured) {
  const uint32_t repeats = static_cast<uint32_t>(o.repeat);
  std::vector<StrategyMeasurement> out(measured.size());
  for (StrategyMeasurement& m : out) m.repeats.resize(repeats);
  const std::vector<BenchSlot> schedule =
      interleaved_schedule(static_cast<uint32_t>(measured.size()), repeats);
  for (size_t step = 0; step < schedule.size(); ++step) {
    const BenchSlot& slot = schedule[step];
    plan.mo.render.strategy = plan.names[measured[slot.strategy]];
    if (!o.quiet)
      fmt::print(stderr, "repeat {}/{}: {}\n", slot.repeat + 1, repeats, plan.mo.render.strategy);
    // A later repeat starts next to the strategy's last result (repeat_search_options).
    const uint32_t previous =
        slot.repeat == 0 ? 0 : out[slot.strategy].repeats[slot.repeat - 1].search.max_objects;
    RepeatMeasurement r = search_once(o, device, plan.mo,
                                      slot.repeat == 0 ? plan.so
                                                       : repeat_search_options(plan.so, previous),
                                      scene_for);
    r.order = static_cast<uint32_t>(step);
    out[slot.strategy].repeats[slot.repeat] = std::move(r);
  }
  for (size_t i = 0; i < measured.size(); ++i) {
    plan.mo.render.strategy = plan.names[measured[i]];
    out[i].serial = serial_figure(device, plan.mo, scene_for, out[i]);
    if (o.raw_floor && plan.names[measured[i]] == "dynamic-offsets")
      out[i].floor = raw_floor(o, device, plan.mo, out[i]);
  }
  return out;
}

int run_bench(const BenchCli& o) {
  BenchPlan plan = check_bench_options(o);
  const std::function<Scene(uint32_t)> scene_for = bench_scenes(o);
  const RenderOptions ro = plan.mo.render;
  Device device = Device::create(to_device_options(o.run.device));
  if (!o.quiet)
    fmt::print(stderr,
               "bindery bench: budget {:.2f} ms (throughput, {} frame{} in flight), {}x{}, spread "
               "{}, {} repeat{} interleaved, {} warm-up frame{} then at least {} frame{} and "
               "{:g} ms per probe, {} search, {} encoding thread{}, on {} ({}, {})\n",
               o.budget_ms, ro.frames_in_flight, ro.frames_in_flight == 1 ? "" : "s", ro.width,
               ro.height, o.run.spread, o.repeat, o.repeat == 1 ? "" : "s", o.warmup_frames,
               o.warmup_frames == 1 ? "" : "s", ro.frames, ro.frames == 1 ? "" : "s", o.probe_ms,
               o.search, ro.encode_threads, ro.encode_threads == 1 ? "" : "s", device.adapter().name,
               device.adapter().backend, device.adapter().implementation);

  const Scene probe_scene = scene_for ? scene_for(1) : make_cube_scene({.objects = 1});
  std::vector<std::optional<std::pair<std::string, std::string>>> why(plan.names.size());
  std::vector<size_t> measured;
  for (size_t i = 0; i < plan.names.size(); ++i) {
    why[i] = not_measured(device, probe_scene, ro, plan.names[i]);
    if (!why[i]) measured.push_back(i);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<StrategyMeasurement> ms =
      measure_interleaved(o, device, plan, scene_for, measured);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  print_table_header(o);
  for (size_t i = 0, next = 0; i < plan.names.size(); ++i) {
    const std::string& name = plan.names[i];
    if (why[i]) {
      out("{:<20}  {}: {}\n", name, why[i]->first, why[i]->second);
      results.push_back({{"strategy", name}, {why[i]->first, why[i]->second}});
      continue;
    }
    const StrategyMeasurement& m = ms[next++];
    print_strategy_row(o, name, m);
    results.push_back(strategy_json(name, m));
  }
  out(
      "max objects: the median of {} search{} per strategy (range: the smallest and "
      "largest), strategies interleaved round-robin; the other columns: the median "
      "search's probe at its max, serial ms {}{}\n",
      o.repeat, o.repeat == 1 ? "" : "es",
      o.run.frames_in_flight > 1
          ? "one probe after the repeats at that count with one frame in flight"
          : "none (--frames-in-flight 1: frame ms is serial already)",
      o.raw_floor ? fmt::format("; ratio: the median of {} rounds (range: theirs)", kRawFloorRounds)
                  : "");
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
  j["clusters"] = ro.clusters;  // what every probe was given (gpu-driven's cluster path)
  j["vertexOrder"] = ro.vertex_order;  // the mesh pool's triangle order every probe drew
  j["lodErrorPx"] = ro.lod_error_px;
  j["rasterizer"] = ro.rasterizer;
  j["repeat"] = o.repeat;
  j["search"] = o.search;
  j["warmup_frames"] = o.warmup_frames;
  j["frames_per_probe"] = o.run.frames;  // at least; each probe's "frames" says how many
  j["probe_ms"] = o.probe_ms;
  j["max_frames_per_probe"] =
      o.probe_ms > 0 ? std::max<int64_t>(o.run.frames, kMaxProbeFrames) : o.run.frames;
  j["wall_s"] = wall_s;  // the searches and the raw floor
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
    "frame budget, repeated and interleaved",
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
      sub.add_option("--repeat", o->repeat,
                     fmt::format("searches per strategy, 1..{}, the strategies interleaved "
                                 "round-robin, each after the first starting at 9/10 of the "
                                 "last result; the table prints the median and the range",
                                 kMaxBenchRepeats))
          ->capture_default_str();
      sub.add_option("--warmup-frames", o->warmup_frames,
                     "frames rendered before each probe's measured frames, 1..1000")
          ->capture_default_str();
      sub.add_option("--probe-ms", o->probe_ms,
                     fmt::format("measure each probe until its frames add up to this many ms "
                                 "(at least --frames, at most {} frames; 0: exactly --frames)",
                                 kMaxProbeFrames))
          ->capture_default_str();
      sub.add_option("--search", o->search,
                     "how a search picks its next count: guided (predicted from the frame times "
                     "measured so far: usually two to five probes a search) or geometric (steps of "
                     "2x, "
                     "1.25x in later repeats, then bisection)")
          ->check(CLI::IsMember({"guided", "geometric"}))
          ->capture_default_str();
      sub.add_flag("--raw-floor", o->raw_floor,
                   "also time dynamic-offsets' calls issued straight on webgpu.h (5 alternating "
                   "rounds at its median max objects): bindery and raw CPU ns per draw, their "
                   "ratio and its range");
      sub.add_option("--moving", o->moving, "--scene city: share of objects that are moving cars")
          ->capture_default_str();
      add_quiet_flag(sub, o->quiet);
      add_run_options(sub, o->run, kRules);
      add_vertex_order_option(sub, o->run);
      CLI::App* app = &sub;
      return [o, app] {
        o->given = given_options(*app, {"--moving"});
        model_implies_gltf(o->run.scene, o->given);
        return with_flag_names([&] { return run_bench(*o); });
      };
    }};

}  // namespace
}  // namespace bindery::cli
