// SPDX-License-Identifier: MIT
// Long runs (soak.hpp): samples of memory, live objects and per-frame work, and their drifts.
#include "bindery/render/soak.hpp"

#include "bindery/core/error.hpp"
#include "bindery/core/gpu.hpp"

#include "internal/implementation.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace bindery {

uint64_t resident_bytes() {
  // /proc/self/statm: size resident shared text lib data dt, in pages.
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? resident * static_cast<uint64_t>(page) : 0;
}

std::optional<ObjectCounts> implementation_objects(const Device& device) {
  return implementation::live_objects(device.instance());
}

namespace {

ObjectCounts bindery_objects() {
  const auto names = gpu::handle_type_names();
  const auto live = gpu::live_handles();
  ObjectCounts counts;
  for (size_t i = 0; i < live.size(); ++i)
    if (live[i] != 0) counts.emplace_back(std::string(names[i]), live[i]);
  return counts;
}

// Every quantity of a sample by name: what find_drifts compares.
std::map<std::string, double> quantities(const SoakSample& s) {
  std::map<std::string, double> q;
  for (const auto& [type, n] : s.live_objects) q["live " + type] = double(n);
  if (s.implementation_objects)
    for (const auto& [type, n] : *s.implementation_objects)
      q["implementation " + type] = double(n);
  const Counters& c = s.calls;
  const std::pair<const char*, uint64_t> fields[] = {
      {"draws", c.draws},
      {"setPipeline calls", c.set_pipeline},
      {"setBindGroup calls", c.set_bind_group},
      {"setVertexBuffer calls", c.set_vertex_buffer},
      {"setIndexBuffer calls", c.set_index_buffer},
      {"writeBuffer calls", c.write_buffer_calls},
      {"bytes uploaded", c.bytes_uploaded},
      {"copyBufferToBuffer commands", c.copy_buffer_to_buffer},
      {"mapAsync calls", c.map_async},
      {"executeBundles calls", c.execute_bundles},
      {"setImmediates calls", c.set_immediates},
      {"immediate bytes", c.immediate_bytes},
      {"setBindGroup calls skipped", c.set_bind_group_skipped},
      {"setPipeline calls skipped", c.set_pipeline_skipped},
      {"bind groups created", c.bind_groups_created},
      {"buffers created", c.buffers_created},
      {"buffer bytes created", c.buffer_bytes_created}};
  for (const auto& [name, v] : fields) q[name] = double(v);
  return q;
}

// The smallest resident_bytes of samples [max(first, end + 1 - window), end].
uint64_t memory_floor(std::span<const SoakSample> samples, size_t first, size_t end,
                      size_t window) {
  const size_t lo = std::max(first, end + 1 > window ? end + 1 - window : size_t(0));
  uint64_t m = samples[end].resident_bytes;
  for (size_t j = lo; j < end; ++j) m = std::min(m, samples[j].resident_bytes);
  return m;
}

size_t first_after_warmup(std::span<const SoakSample> samples, uint32_t warmup) {
  size_t first = 0;
  while (first < samples.size() && samples[first].frames_done < warmup) ++first;
  return first;
}

}  // namespace

std::vector<SoakDrift> find_drifts(std::span<const SoakSample> samples, uint32_t warmup,
                                   double tolerance, uint32_t memory_window) {
  if (!(tolerance >= 0 && tolerance <= 1))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: tolerance {} is outside 0..1", tolerance));
  if (memory_window == 0)
    throw Error(ErrorKind::InvalidArgument, "soak: the memory window must be at least 1 sample");
  const size_t first = first_after_warmup(samples, warmup);
  if (first == samples.size())
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: no sample at or after the warm-up of {} frames", warmup));
  std::vector<SoakDrift> drifts;

  // Resident memory: its floor, the smallest value of `memory_window` consecutive samples
  // (drivers allocate and return command memory in bursts; a leak raises the floor). The
  // baseline is the floor of the first window after the warm-up; only growth drifts.
  auto floor_at = [&](size_t end) { return memory_floor(samples, first, end, memory_window); };
  const size_t base_end = std::min(samples.size() - 1, first + memory_window - 1);
  const double rss_base = double(floor_at(base_end));
  SoakDrift rss{"resident bytes (floor)", rss_base, rss_base, samples[base_end].frames_done, 0};
  for (size_t i = base_end + 1; i < samples.size(); ++i) {
    const double v = double(floor_at(i));
    if (v - rss_base > tolerance * rss_base && v > rss.value) {
      rss.value = v;
      rss.frames_done = samples[i].frames_done;
    }
  }
  if (rss.frames_done != 0) drifts.push_back(rss);

  // Live objects and per-frame work: every sample against the first after the warm-up, both
  // ways. Per quantity the sample farthest from the baseline among those outside the tolerance.
  const std::map<std::string, double> base = quantities(samples[first]);
  std::map<std::string, SoakDrift> worst;
  std::vector<std::string> order;
  for (size_t i = first + 1; i < samples.size(); ++i) {
    std::map<std::string, double> now = quantities(samples[i]);
    for (const auto& [name, b] : base) now.try_emplace(name, 0.0);  // gone: counted as 0
    for (const auto& [name, v] : now) {
      const auto it = base.find(name);
      const double b = it == base.end() ? 0.0 : it->second;
      if (std::abs(v - b) <= tolerance * std::abs(b)) continue;
      auto [w, added] = worst.try_emplace(name, SoakDrift{name, b, v, samples[first].frames_done,
                                                          samples[i].frames_done});
      if (added) order.push_back(name);
      else if (std::abs(v - b) > std::abs(w->second.value - b)) {
        w->second.value = v;
        w->second.frames_done = samples[i].frames_done;
      }
    }
  }
  for (const std::string& name : order) drifts.push_back(worst.at(name));
  return drifts;
}

uint32_t soak_samples_after_warmup(uint32_t frames, uint32_t check_every, uint32_t warmup) {
  if (check_every == 0 || frames < warmup) return 0;
  // Samples after check_every, 2 check_every, ... frames, and after the last frame.
  const uint64_t last_multiple = frames / check_every;
  const uint64_t first_multiple = (uint64_t(warmup) + check_every - 1) / check_every;
  uint64_t n = last_multiple >= first_multiple ? last_multiple - first_multiple + 1 : 0;
  if (frames % check_every != 0) ++n;  // the last frame is sampled too
  return static_cast<uint32_t>(n);
}

void validate_soak_options(const SoakOptions& options) {
  const uint32_t frames = options.render.frames;
  if (options.check_every == 0)
    throw Error(ErrorKind::InvalidArgument, "soak: check_every must be at least 1 frame");
  if (!(options.tolerance >= 0 && options.tolerance <= 1))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: tolerance {} is outside 0..1", options.tolerance));
  if (options.memory_window == 0)
    throw Error(ErrorKind::InvalidArgument, "soak: the memory window must be at least 1 sample");
  const uint32_t k = options.render.frames_in_flight;
  if (uint64_t(options.warmup) < uint64_t(k) + 1)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: a warm-up of {} frame{} ends inside the first frames_in_flight "
                            "+ 1 = {} frames, which create and record what later frames reuse",
                            options.warmup, options.warmup == 1 ? "" : "s", uint64_t(k) + 1));
  if (frames / options.check_every > kMaxSoakSamples)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: {} frames at one sample every {} make more than {} samples "
                            "(the samples' own memory would count in the memory check); sample "
                            "less often",
                            frames, options.check_every, kMaxSoakSamples));
  const uint32_t after = soak_samples_after_warmup(frames, options.check_every, options.warmup);
  if (uint64_t(after) < uint64_t(options.memory_window) + 1)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("soak: {} frames give {} sample{} after a warm-up of {} frames at one "
                            "every {}; the memory check compares floors of {} samples and needs "
                            "at least {} (more frames, a shorter warm-up or a smaller window)",
                            frames, after, after == 1 ? "" : "s", options.warmup,
                            options.check_every, options.memory_window,
                            uint64_t(options.memory_window) + 1));
}

SoakReport soak(const Device& device, const Scene& scene, const SoakOptions& options) {
  validate_soak_options(options);
  const uint32_t frames = options.render.frames;
  if (std::optional<std::string> why =
          strategy_unavailable(device, scene, options.render.strategy))
    throw Error(ErrorKind::StrategyUnavailable,
                fmt::format("soak: {}: {}", options.render.strategy, *why));

  SoakReport out;
  out.strategy = options.render.strategy;
  out.objects = static_cast<uint32_t>(scene.objects.size());
  out.frames = frames;
  out.samples.reserve(frames / options.check_every + 1);
  RenderOptions ro = options.render;
  ro.keep_last_frame = false;
  ro.keep_frame_timings = false;  // the report must not grow with the frames being measured
  ro.on_frame_done = [&](uint32_t f, const FrameTiming& timing, const Counters& calls) {
    if (options.render.on_frame_done) options.render.on_frame_done(f, timing, calls);
    if ((f + 1) % options.check_every != 0 && f + 1 != frames) return;
    SoakSample s;
    s.frames_done = f + 1;
    s.resident_bytes = resident_bytes();
    s.live_objects = bindery_objects();
    s.implementation_objects = implementation_objects(device);
    s.calls = calls;
    s.interval_ms = timing.interval_ms;
    out.samples.push_back(std::move(s));
    if (options.on_sample) options.on_sample(out.samples.back());
  };
  const RenderReport report = render(device, scene, ro);
  out.throughput_fps = report.throughput_fps();
  out.moving_objects = report.moving_objects;
  out.cpu_ns_per_moved_object = report.cpu_ns_per_moved_object;
  out.drifts = find_drifts(out.samples, options.warmup, options.tolerance, options.memory_window);
  const size_t first = first_after_warmup(out.samples, options.warmup);
  const size_t last = out.samples.size() - 1;
  out.memory_floor_baseline = memory_floor(
      out.samples, first, std::min(last, first + options.memory_window - 1), options.memory_window);
  out.memory_floor_end = memory_floor(out.samples, first, last, options.memory_window);
  return out;
}

}  // namespace bindery
