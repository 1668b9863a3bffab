// `bindery bench`: for each strategy, the most cubes drawn within a frame budget (bench.hpp),
// with a progress line per probe, a table, and one JSON object as the last line.
#include "command.hpp"
#include "options.hpp"

#include <bindery/bench.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace bindery::cli {
namespace {

struct BenchCli {
  DeviceCliOptions device;
  std::string strategies =
      "naive,dynamic-offsets,mapped-staging,render-bundles,storage-instancing,gpu-culling";
  double budget_ms = 1000.0 / 60.0;
  std::string size = "640x480";
  int64_t frames = 5;
  int64_t start = 250;
  int64_t max = 1'000'000;
  double precision = 0.05;
};

// Parses --strategies: comma-separated names, each once, none empty.
std::vector<StrategyKind> parse_strategy_list(const std::string& list) {
  std::vector<StrategyKind> kinds;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string name =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("bench: --strategies '{}' has an empty name (names are separated "
                              "by single commas)",
                              list));
    const StrategyKind kind =
        with_context("reading --strategies", [&] { return parse_strategy(name); });
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("bench: --strategies lists '{}' twice", name));
    kinds.push_back(kind);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return kinds;
}

// An implementation limit reached at some object count (bind groups lavapipe can hold, buffer
// sizes) ends the search for that strategy like an over-budget frame, with the reason printed.
bool is_capacity_limit(ErrorKind kind) {
  return kind == ErrorKind::ImplementationLimit || kind == ErrorKind::BufferTooLarge ||
         kind == ErrorKind::OutOfMemory || kind == ErrorKind::StorageBindingTooLarge ||
         kind == ErrorKind::UniformBindingTooLarge;
}

int run_bench(const BenchCli& o) {
  // Every option is checked before the device is created.
  const std::vector<StrategyKind> kinds = parse_strategy_list(o.strategies);
  if (o.frames < 1 || o.frames > 1000)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: --frames {} is outside 1..1000", o.frames));
  if (o.start < 1 || o.max > 10'000'000 || o.max < o.start)
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("bench: --start {} / --max {} must satisfy 1 <= start <= max <= 10000000",
                    o.start, o.max));
  const auto size = parse_size(o.size, "bench");
  const uint32_t width = size.first, height = size.second;
  BudgetSearchOptions so;
  so.budget_ms = o.budget_ms;
  so.start_objects = static_cast<uint32_t>(o.start);
  so.max_objects = static_cast<uint32_t>(o.max);
  so.precision = o.precision;
  find_max_within_budget(
      [](uint32_t n) {
        return BudgetProbe{n, 0, 0, 0};
      },
      BudgetSearchOptions{so.budget_ms, so.start_objects, so.start_objects,
                          so.precision});  // validates the options only

  Device device = Device::create(to_device_options(o.device));
  fmt::print(stderr, "bindery bench: budget {:.2f} ms, {}x{}, {} frame{} per probe, on {} ({})\n",
             o.budget_ms, width, height, o.frames, o.frames == 1 ? "" : "s",
             device.adapter().name, device.adapter().backend);

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  fmt::print("{:<20}{:>12}{:>12}{:>10}{:>10}{:>12}\n", "strategy", "max objects", "frame ms",
             "cpu ms", "gpu ms", "cpu ns/draw");
  for (StrategyKind kind : kinds) {
    auto measure = [&](uint32_t n) {
      try {
        BudgetProbe p =
            measure_cubes(device, kind, n, width, height, static_cast<uint32_t>(o.frames));
        fmt::print(stderr, "  {}: {} objects -> {:.2f} ms per frame ({})\n", to_string(kind), n,
                   p.frame_ms, p.frame_ms <= o.budget_ms ? "within budget" : "over budget");
        return p;
      } catch (const Error& e) {
        if (!is_capacity_limit(e.kind())) throw;
        fmt::print(stderr, "  {}: {} objects -> not possible here ({}): counted as over budget\n",
                   to_string(kind), n, e.what());
        return BudgetProbe{n, std::numeric_limits<double>::infinity(), 0, 0};
      }
    };
    const BudgetSearchResult r = find_max_within_budget(measure, so);
    const BudgetProbe* best = nullptr;
    for (const BudgetProbe& p : r.probes)
      if (p.objects == r.max_objects) best = &p;
    const double ns_per_draw = best && best->objects ? best->cpu_ms * 1e6 / best->objects : 0.0;
    if (!best) {
      // Even the first count was over budget: say so with what it measured.
      const BudgetProbe& first = r.probes.front();
      fmt::print("{:<20}{:>12}{:>12.2f}{:>10.2f}{:>10.2f}{:>12}  (over budget at --start {}: "
                 "lower it)\n",
                 to_string(kind), fmt::format("< {}", first.objects), first.frame_ms,
                 first.cpu_ms, first.gpu_ms, "-", first.objects);
    } else {
      fmt::print("{:<20}{:>12}{:>12.2f}{:>10.2f}{:>10.2f}{:>12.0f}{}\n", to_string(kind),
                 r.max_objects, best->frame_ms, best->cpu_ms, best->gpu_ms, ns_per_draw,
                 r.capped ? "  (capped by --max)" : "");
    }
    nlohmann::ordered_json probes = nlohmann::ordered_json::array();
    for (const BudgetProbe& p : r.probes)
      probes.push_back({{"objects", p.objects},
                        {"frame_ms", p.frame_ms},
                        {"cpu_ms", p.cpu_ms},
                        {"gpu_ms", p.gpu_ms}});
    results.push_back({{"strategy", std::string(to_string(kind))},
                       {"max_objects", r.max_objects},
                       {"capped", r.capped},
                       {"probes", probes}});
  }
  nlohmann::ordered_json j;
  j["budget_ms"] = o.budget_ms;
  j["size"] = {width, height};
  j["frames_per_probe"] = o.frames;
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
      sub.add_option("--strategies", o->strategies, "comma-separated strategies")
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
      add_device_options(sub, o->device);
      return [o] { return run_bench(*o); };
    }};

}  // namespace
}  // namespace bindery::cli
