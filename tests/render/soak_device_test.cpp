// SPDX-License-Identifier: MIT
// Long runs on the device (issue 9, part 3): gpu::live_handles counts creates minus releases per
// type; soak() samples where it should, finds a real strategy flat, and catches a leak planted
// in the frame loop (one buffer kept per frame) both in bindery's count and in wgpu-native's.
#include <bindery/core/device.hpp>
#include <bindery/core/gpu.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/soak.hpp>

#include "support/device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace bindery {
namespace {

using test::shared_device;

constexpr size_t kBuffer = 4;  // gpu::Buffer's index in handle_type_names()

int64_t count_of(const ObjectCounts& counts, const std::string& type) {
  for (const auto& [name, n] : counts)
    if (name == type) return n;
  return 0;
}

TEST(LiveHandles, CountCreatesMinusReleasesPerType) {
  ASSERT_EQ(gpu::handle_type_names()[kBuffer], "Buffer");
  const Device& device = shared_device();
  const int64_t before = gpu::live_handles()[kBuffer];
  gpu::Buffer a = device.create_buffer("a", 256, WGPUBufferUsage_CopyDst);
  gpu::Buffer b = device.create_buffer("b", 256, WGPUBufferUsage_CopyDst);
  EXPECT_EQ(gpu::live_handles()[kBuffer], before + 2);
  gpu::Buffer shared = gpu::Buffer::share(a.get());  // a second reference is a second owner
  EXPECT_EQ(gpu::live_handles()[kBuffer], before + 3);
  gpu::Buffer moved = std::move(b);  // moving transfers, it does not count
  EXPECT_EQ(gpu::live_handles()[kBuffer], before + 3);
  a.reset();
  shared.reset();
  moved.reset();
  b.reset();  // moved-from: null, nothing to release
  EXPECT_EQ(gpu::live_handles()[kBuffer], before);
}

SoakOptions short_soak(const std::string& strategy) {
  SoakOptions o;
  o.render.strategy = strategy;
  o.render.width = 32;
  o.render.height = 24;
  o.render.frames = 60;
  o.check_every = 10;
  o.warmup = 20;
  return o;
}

TEST(Soak, SamplesEveryCheckAndFindsDynamicOffsetsFlat) {
  const Scene scene = make_cube_scene({.objects = 40});
  const SoakReport r = soak(shared_device(), scene, short_soak("dynamic-offsets"));
  // 60 frames, one sample after every 10: frames 10, 20, ..., 60.
  ASSERT_EQ(r.samples.size(), 6u);
  for (size_t i = 0; i < r.samples.size(); ++i) {
    EXPECT_EQ(r.samples[i].frames_done, 10 * (i + 1));
    EXPECT_EQ(r.samples[i].calls.draws, 40u);  // one draw per cube, every frame
    EXPECT_GT(r.samples[i].resident_bytes, 0u);
    EXPECT_GT(count_of(r.samples[i].live_objects, "Buffer"), 0);
    // wgpu-native reports its live objects (wgpuGenerateReport); Dawn has no such report.
    if (shared_device().adapter().implementation == "dawn") {
      EXPECT_FALSE(r.samples[i].implementation_objects.has_value());
    } else {
      ASSERT_TRUE(r.samples[i].implementation_objects.has_value());
      EXPECT_GT(count_of(*r.samples[i].implementation_objects, "buffers"), 0);
    }
  }
  // Objects and per-frame work must be exactly flat. Memory is not asserted: 60 frames are too
  // few for the allocator to settle (under ASan its quarantine holds every freed block), so
  // memory flatness is measured by `bindery soak` runs (docs/BENCHMARKS.md), like timings.
  for (const SoakDrift& d : r.drifts)
    if (d.quantity != "resident bytes (floor)")
      ADD_FAILURE() << d.quantity << ": " << d.baseline << " -> " << d.value;
}

TEST(Soak, APlantedLeakIsADriftInBinderysAndTheImplementationsCount) {
  const Scene scene = make_cube_scene({.objects = 20});
  const Device& device = shared_device();
  std::vector<gpu::Buffer> leaked;
  SoakOptions o = short_soak("naive");
  // One 4 KiB buffer created and kept after every frame: 40 more buffers over the 40 frames
  // after the baseline, far beyond 5% of the few dozen the strategy holds.
  o.render.on_frame_done = [&](uint32_t, const FrameTiming&, const Counters&) {
    leaked.push_back(device.create_buffer("leak", 4096, WGPUBufferUsage_CopyDst));
  };
  const SoakReport r = soak(device, scene, o);
  EXPECT_EQ(leaked.size(), 60u);
  ASSERT_FALSE(r.flat());
  auto drift = [&](const std::string& q) {
    return std::find_if(r.drifts.begin(), r.drifts.end(),
                        [&](const SoakDrift& d) { return d.quantity == q; });
  };
  const auto live = drift("live Buffer");
  ASSERT_NE(live, r.drifts.end());
  // The baseline is sampled after 20 frames, the worst at the last sample (60 frames): 40 more.
  EXPECT_EQ(live->baseline_frames_done, 20u);
  EXPECT_EQ(live->frames_done, 60u);
  EXPECT_EQ(live->value - live->baseline, 40);
  // The implementation's own count sees the same 40 buffers where it reports one (wgpu-native);
  // Dawn reports none, so no implementation quantity can drift there.
  const auto implementation = drift("implementation buffers");
  if (device.adapter().implementation == "dawn") {
    EXPECT_EQ(implementation, r.drifts.end());
    for (const SoakSample& s : r.samples) EXPECT_FALSE(s.implementation_objects.has_value());
  } else {
    ASSERT_NE(implementation, r.drifts.end());
    EXPECT_EQ(implementation->value - implementation->baseline, 40);
  }
}

TEST(Soak, TheReportKeepsOneTimingPerFrameInFlightWhenAsked) {
  const Scene scene = make_cube_scene({.objects = 8});
  RenderOptions o;
  o.strategy = "dynamic-offsets";
  o.width = o.height = 16;
  o.frames = 10;
  o.frames_in_flight = 3;
  o.keep_last_frame = false;
  std::vector<double> intervals;  // every frame's interval, as on_frame_done saw it
  o.on_frame_done = [&](uint32_t, const FrameTiming& t, const Counters&) {
    intervals.push_back(t.interval_ms);
  };
  o.keep_frame_timings = false;
  const RenderReport ring = render(shared_device(), scene, o);
  ASSERT_EQ(ring.frames.size(), 3u);  // frames 7, 8, 9
  EXPECT_EQ(ring.frames_rendered, 10u);
  ASSERT_EQ(intervals.size(), 10u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(ring.frames[i].interval_ms, intervals[7 + i]);
  double steady = 0;
  for (size_t i = 1; i < intervals.size(); ++i) steady += intervals[i];
  EXPECT_DOUBLE_EQ(ring.throughput_fps(), 9 * 1000.0 / steady);  // every frame after the first
  // Three frames with three in flight: no completion is waited for before the end, so the
  // throughput is the frames over the loop's wall time, not over the drain's intervals.
  o.frames = 3;
  const RenderReport short_run = render(shared_device(), scene, o);
  ASSERT_GT(short_run.wall_ms, 0.0);
  EXPECT_DOUBLE_EQ(short_run.throughput_fps(), 3 * 1000.0 / short_run.wall_ms);
  o.frames = 10;
  intervals.clear();
  o.keep_frame_timings = true;
  const RenderReport all = render(shared_device(), scene, o);
  ASSERT_EQ(all.frames.size(), 10u);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(all.frames[i].interval_ms, intervals[i]);
}

TEST(Soak, RefusesTooFewFramesBeforeRendering) {
  const Scene scene = make_cube_scene({.objects = 4});
  SoakOptions o = short_soak("naive");
  o.render.frames = 39;  // warm-up 20 + 2 x 10 = 40 frames needed
  try {
    soak(shared_device(), scene, o);
    ADD_FAILURE() << "39 frames accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace bindery
