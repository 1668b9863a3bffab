// SPDX-License-Identifier: MIT
#include "bindery/render/bench.hpp"

#include "bindery/render/scene.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace bindery {

namespace {

// The options a search can run (the rules of BudgetSearchOptions).
void check_search_options(const BudgetSearchOptions& o) {
  if (!(o.budget_ms > 0) || !std::isfinite(o.budget_ms))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: the frame budget (--budget-ms) {} ms must be a positive, "
                            "finite number",
                            o.budget_ms));
  if (o.start_objects == 0 || o.max_objects < o.start_objects)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: object range {}..{} must start at 1 or more and not be empty",
                            o.start_objects, o.max_objects));
  if (!(o.precision > 0 && o.precision < 1))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: the search's precision (--precision) {} must be in (0, 1)",
                            o.precision));
  if (!(o.growth >= kMinSearchGrowth && o.growth <= kMaxSearchGrowth))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: the search's growth factor {} must be in {}..{} (a step of "
                            "less than 10% makes a search of thousands of probes)",
                            o.growth, kMinSearchGrowth, kMaxSearchGrowth));
}

// The smallest count a search goes down to: min_objects where set and below start_objects, else
// start_objects (no downward search).
uint32_t search_floor(const BudgetSearchOptions& o) {
  return o.min_objects == 0 ? o.start_objects : std::min(o.min_objects, o.start_objects);
}

// Steps of `growth` from start_objects until the budget is crossed, then bisection
// (BudgetSearchMode::geometric).
BudgetSearchResult geometric_search(const std::function<BudgetProbe(uint32_t)>& measure,
                                    const BudgetSearchOptions& o) {
  BudgetSearchResult r;
  auto probe = [&](uint32_t n) {
    r.probes.push_back(measure(n));
    return r.probes.back().frame_ms <= o.budget_ms;
  };

  // From start_objects: steps up by `growth` while within budget (`good` within, `bad` over);
  // from an over-budget start, down by `growth` to min_objects until a count is within. A step
  // moves by at least one object.
  const auto up = [&](uint32_t n) {
    const double next = std::min(double(n) * o.growth, double(o.max_objects));
    return uint32_t(std::min<uint64_t>(std::max<uint64_t>(uint64_t(n) + 1, uint64_t(next)),
                                       o.max_objects));
  };
  const auto down = [&](uint32_t n, uint32_t floor) {
    return std::max(floor, std::min(n - 1, uint32_t(double(n) / o.growth)));
  };
  uint32_t good = 0, bad = 0;
  const uint32_t floor = search_floor(o);
  uint32_t n = o.start_objects;
  if (probe(n)) {
    good = n;
    while (bad == 0) {
      if (n == o.max_objects) {
        r.capped = true;
        break;
      }
      n = up(n);
      if (probe(n))
        good = n;
      else
        bad = n;
    }
  } else {
    bad = n;
    while (good == 0 && n > floor) {
      n = down(n, floor);
      if (probe(n))
        good = n;
      else
        bad = n;
    }
  }
  // Bisection between good and bad.
  while (good > 0 && bad > good && double(bad - good) / good > o.precision) {
    const uint32_t mid = good + (bad - good) / 2;
    if (mid == good) break;
    if (probe(mid))
      good = mid;
    else
      bad = mid;
  }
  r.max_objects = good;
  return r;
}

// What a guided search expects of the count it measures next.
enum class Expect { within, over, nothing };

// The bracket of a guided search: the largest count within budget (0: none yet) and the smallest
// over it (0: none yet), and the counts the next probe may take, [lowest, highest].
struct Bracket {
  uint32_t good = 0, bad = 0;
  uint32_t lowest(uint32_t floor) const { return good ? good + 1 : floor; }
  uint32_t highest(uint32_t max) const { return bad ? bad - 1 : max; }
};

// Where the frame time reaches the budget, from the probes measured so far: the line through the
// last two (when it rises with the count), else frame time proportional to the last probe's
// count. nullopt when the last frame time is not a positive finite number.
std::optional<double> predicted_count(const std::vector<BudgetProbe>& probes, double budget_ms) {
  const BudgetProbe& b = probes.back();
  if (!(b.frame_ms > 0) || !std::isfinite(b.frame_ms)) return std::nullopt;
  if (probes.size() >= 2) {
    const BudgetProbe& a = probes[probes.size() - 2];
    const double dn = double(b.objects) - double(a.objects);
    const double df = b.frame_ms - a.frame_ms;
    if (std::isfinite(a.frame_ms) && dn != 0 && df / dn > 0)
      return double(b.objects) + (budget_ms - b.frame_ms) * dn / df;
  }
  return double(b.objects) * budget_ms / b.frame_ms;
}

// Each next count predicted from the measured frame times (BudgetSearchMode::guided; the rules
// are in bench.hpp).
BudgetSearchResult guided_search(const std::function<BudgetProbe(uint32_t)>& measure,
                                 const BudgetSearchOptions& o) {
  BudgetSearchResult r;
  const uint32_t floor = search_floor(o);
  Bracket k;
  uint32_t n = o.start_objects;
  Expect expect = Expect::nothing;
  bool stepping = false;  // a prediction failed while one side was open: steps of growth
  for (;;) {
    r.probes.push_back(measure(n));
    const bool within = r.probes.back().frame_ms <= o.budget_ms;
    (within ? k.good : k.bad) = n;
    if (within && n == o.max_objects) {
      r.capped = true;
      break;
    }
    if (k.good && k.bad && double(k.bad - k.good) / k.good <= o.precision) break;
    const uint32_t lowest = k.lowest(floor), highest = k.highest(o.max_objects);
    if (lowest > highest) break;  // nothing left between (or below the floor, none within)

    const bool contradicted = (expect == Expect::within && !within) ||
                              (expect == Expect::over && within);
    const bool bracketed = k.good && k.bad;
    stepping = !bracketed && (stepping || contradicted);
    const std::optional<double> t = predicted_count(r.probes, o.budget_ms);
    const double closing = std::floor(k.good * (1.0 + o.precision));
    double next = 0;
    Expect next_expect = Expect::nothing;
    if (bracketed && (contradicted || !t)) {
      next = k.good + (k.bad - k.good) / 2.0;  // a bisection of the gap
    } else if (stepping || !t) {
      next = within ? double(n) * o.growth : double(n) / o.growth;
    } else if (expect == Expect::within) {
      next = closing;  // the count within was where predicted: close the gap above it
      next_expect = Expect::over;
    } else {
      const double low = std::floor(*t * (1.0 - o.precision / 2));
      next = low > k.good ? low : closing;
      next_expect = low > k.good ? Expect::within : Expect::over;
      // A step cut to kMaxGuidedStep lands away from the prediction: it expects nothing.
      const double step = std::clamp(next, double(n) / kMaxGuidedStep, double(n) * kMaxGuidedStep);
      if (step != next) next_expect = Expect::nothing;
      next = step;
    }
    n = uint32_t(std::clamp(next, double(lowest), double(highest)));
    expect = next_expect;
  }
  r.max_objects = k.good;
  return r;
}

}  // namespace

BudgetSearchResult find_max_within_budget(const std::function<BudgetProbe(uint32_t)>& measure,
                                          const BudgetSearchOptions& o) {
  check_search_options(o);
  return o.mode == BudgetSearchMode::guided ? guided_search(measure, o)
                                            : geometric_search(measure, o);
}

BudgetSearchOptions repeat_search_options(const BudgetSearchOptions& options, uint32_t previous) {
  check_search_options(options);
  BudgetSearchOptions o = options;
  if (previous == 0) return o;
  // The first search's floor stays the floor: start_objects, or the caller's lower min_objects
  // (a first result below start_objects then starts the next search below it too).
  const uint32_t floor = search_floor(options);
  o.min_objects = floor;
  o.growth = 1.25;
  o.start_objects =
      std::clamp(uint32_t(uint64_t(previous) * 9 / 10), floor, options.max_objects);
  return o;
}

BudgetProbe measure_cubes(const Device& device, const MeasureOptions& o, uint32_t objects) {
  return measure_scene(device, o,
                       make_cube_scene({.objects = objects, .seed = o.seed, .spread = o.spread}));
}

bool probe_long_enough(const ProbeLength& length, uint32_t frames, double measured_ms) {
  if (frames >= length.max_frames) return true;
  return frames >= length.min_frames && measured_ms >= length.min_ms;
}

namespace {

double median_of(std::vector<double> v) {
  return spread_of(v).median;
}

}  // namespace

BudgetProbe measure_scene(const Device& device, const MeasureOptions& o, const Scene& scene) {
  const uint32_t objects = static_cast<uint32_t>(scene.objects.size());
  const uint32_t warmup = std::max(1u, o.warmup_frames);
  ProbeLength length;
  length.min_frames = std::max(1u, o.render.frames);
  length.max_frames =
      o.probe_ms > 0 ? std::max(length.min_frames, o.max_frames) : length.min_frames;
  length.min_ms = o.probe_ms;
  RenderOptions ro;
  ro.moving = scene.moving_share();
  ro.strategy = o.render.strategy;
  ro.width = o.render.width;
  ro.height = o.render.height;
  // Enough frames for the warm-up, the most measured and the frames in flight drained after them.
  ro.frames_in_flight = o.render.frames_in_flight;
  ro.frames = warmup + length.max_frames + ro.frames_in_flight;
  ro.keep_last_frame = false;
  ro.keep_frame_timings = false;
  ro.occlusion = o.render.occlusion;
  ro.threads = o.render.threads;
  ro.encode_threads = o.render.encode_threads;
  ro.draw_path = o.render.draw_path;
  ro.material_backend = o.render.material_backend;
  ro.clusters = o.render.clusters;
  ro.vertex_order = o.render.vertex_order;
  ro.lod_error_px = o.render.lod_error_px;
  ro.rasterizer = o.render.rasterizer;
  ro.raster_rung = o.render.raster_rung;
  // A frame is measured when it is done on the GPU before the probe has enough: frame f is done
  // before frame f + frames_in_flight is recorded, so each measured interval holds CPU work.
  std::vector<FrameTiming> measured;
  double measured_ms = 0;
  bool enough = false;
  ro.on_frame_done = [&](uint32_t f, const FrameTiming& t, const Counters&) {
    if (enough || f < warmup) return;
    measured.push_back(t);
    measured_ms += t.interval_ms;
  };
  ro.after_submit = [&](uint32_t f, WGPUTexture) {
    if (!enough)
      enough = probe_long_enough(length, static_cast<uint32_t>(measured.size()), measured_ms) ||
               f + 1 == ro.frames;
    return !enough;
  };
  const RenderReport report = render(device, scene, ro);
  std::vector<double> interval, cpu, gpu, math, latency;
  for (const FrameTiming& t : measured) {
    interval.push_back(t.interval_ms);
    cpu.push_back(t.cpu_ms);
    gpu.push_back(t.gpu_ms.value_or(0.0));
    math.push_back(t.math_ms);
    latency.push_back(t.frame_ms);
  }
  BudgetProbe p{objects,         median_of(interval), median_of(cpu), median_of(gpu),
                median_of(math), median_of(latency),  std::nullopt};
  if (!measured.empty()) p.culling = measured.back().culling;
  p.moving_objects = report.moving_objects;
  p.cpu_ns_per_moved_object = report.cpu_ns_per_moved_object;
  p.frames = static_cast<uint32_t>(measured.size());
  p.measured_ms = measured_ms;
  return p;
}

bool cpu_fits_interval(const BudgetProbe& p, double factor) {
  return p.math_ms + p.cpu_ms <= p.frame_ms * factor;
}

Spread spread_of(const std::vector<double>& values) {
  if (values.empty()) return {};
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  const double median = values[order[(order.size() - 1) / 2]];
  const size_t first =
      static_cast<size_t>(std::find(values.begin(), values.end(), median) - values.begin());
  return {median, values[order.front()], values[order.back()], first};
}

double max_over_min(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo > 0 ? *hi / *lo : 0;
}

std::vector<BenchSlot> interleaved_schedule(uint32_t strategies, uint32_t repeats) {
  if (repeats < 1 || repeats > kMaxBenchRepeats)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: repeat {} is outside 1..{}", repeats, kMaxBenchRepeats));
  std::vector<BenchSlot> slots;
  slots.reserve(size_t(strategies) * repeats);
  for (uint32_t r = 0; r < repeats; ++r)
    for (uint32_t i = 0; i < strategies; ++i) slots.push_back({r, (r + i) % strategies});
  return slots;
}

}  // namespace bindery
