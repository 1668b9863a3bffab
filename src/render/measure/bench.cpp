// SPDX-License-Identifier: MIT
#include "bindery/render/bench.hpp"

#include "bindery/render/scene.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace bindery {

BudgetSearchResult find_max_within_budget(const std::function<BudgetProbe(uint32_t)>& measure,
                                          const BudgetSearchOptions& o) {
  if (!(o.budget_ms > 0) || !std::isfinite(o.budget_ms))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: budget {} ms must be a positive number", o.budget_ms));
  if (o.start_objects == 0 || o.max_objects < o.start_objects)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: object range {}..{} must start at 1 or more and not be empty",
                            o.start_objects, o.max_objects));
  if (!(o.precision > 0 && o.precision < 1))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("bench: precision {} must be in (0, 1)", o.precision));

  BudgetSearchResult r;
  auto probe = [&](uint32_t n) {
    r.probes.push_back(measure(n));
    return r.probes.back().frame_ms <= o.budget_ms;
  };

  // Doubling phase: `good` is within budget, `bad` over it (0 = not found yet).
  uint32_t good = 0, bad = 0;
  for (uint32_t n = o.start_objects;;) {
    if (probe(n)) {
      good = n;
      if (n == o.max_objects) {
        r.capped = true;
        break;
      }
      n = static_cast<uint32_t>(std::min<uint64_t>(uint64_t(n) * 2, o.max_objects));
    } else {
      bad = n;
      break;
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

BudgetProbe measure_cubes(const Device& device, const MeasureOptions& o, uint32_t objects) {
  return measure_scene(device, o,
                       make_cube_scene({.objects = objects, .seed = o.seed, .spread = o.spread}));
}

BudgetProbe measure_scene(const Device& device, const MeasureOptions& o, const Scene& scene) {
  const uint32_t objects = static_cast<uint32_t>(scene.objects.size());
  RenderOptions ro;
  ro.moving = scene.moving_share();
  ro.strategy = o.render.strategy;
  ro.width = o.render.width;
  ro.height = o.render.height;
  ro.frames = o.render.frames + 1;  // the first frame uploads everything and warms caches
  ro.keep_last_frame = false;
  ro.frames_in_flight = o.render.frames_in_flight;
  ro.occlusion = o.render.occlusion;
  ro.threads = o.render.threads;
  ro.encode_threads = o.render.encode_threads;
  ro.draw_path = o.render.draw_path;
  const RenderReport report = render(device, scene, ro);
  std::vector<double> interval, cpu, gpu, math, latency;
  for (size_t i = 1; i < report.frames.size(); ++i) {
    interval.push_back(report.frames[i].interval_ms);
    cpu.push_back(report.frames[i].cpu_ms);
    gpu.push_back(report.frames[i].gpu_ms.value_or(0.0));
    math.push_back(report.frames[i].math_ms);
    latency.push_back(report.frames[i].frame_ms);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  BudgetProbe p{objects,      median(interval), median(cpu), median(gpu),
                median(math), median(latency),  std::nullopt};
  if (!report.frames.empty()) p.culling = report.frames.back().culling;
  p.moving_objects = report.moving_objects;
  p.cpu_ns_per_moved_object = report.cpu_ns_per_moved_object;
  return p;
}

}  // namespace bindery
