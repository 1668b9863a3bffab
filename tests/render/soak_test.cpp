// SPDX-License-Identifier: MIT
// find_drifts (soak.hpp) on samples made by hand: what counts as flat at the 5% tolerance of
// issue 9, what is a drift, which sample is the baseline, and what is refused.
#include <bindery/core/error.hpp>
#include <bindery/render/soak.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace bindery {
namespace {

// A sample after `frames_done` frames with 100 MiB resident, 10 buffers, 4 bind groups, 1000
// draws and 64,000 bytes uploaded.
SoakSample sample(uint32_t frames_done) {
  SoakSample s;
  s.frames_done = frames_done;
  s.resident_bytes = 100u << 20;
  s.live_objects = {{"Buffer", 10}, {"BindGroup", 4}};
  s.implementation_objects = ObjectCounts{{"buffers", 10}};
  s.calls.draws = 1000;
  s.calls.bytes_uploaded = 64000;
  return s;
}

std::vector<SoakSample> series(uint32_t n, uint32_t every) {
  std::vector<SoakSample> v;
  for (uint32_t i = 1; i <= n; ++i) v.push_back(sample(i * every));
  return v;
}

TEST(SoakDrifts, IdenticalSamplesAreFlat) {
  EXPECT_TRUE(find_drifts(series(5, 100), 200, 0.05).empty());
}

TEST(SoakDrifts, ChangesWithinFivePercentAreFlat) {
  auto v = series(4, 100);
  // 5% of 100 MiB is 5 MiB: +5 MiB exactly is still flat; 1000 -> 1050 draws likewise.
  v[3].resident_bytes += 5u << 20;
  v[3].calls.draws = 1050;
  v[2].calls.bytes_uploaded = 64000 - 3200;  // -5%
  EXPECT_TRUE(find_drifts(v, 100, 0.05).empty());
}

TEST(SoakDrifts, ResidentMemoryGrowthBeyondTheToleranceIsADrift) {
  auto v = series(4, 100);
  v[3].resident_bytes = (100u << 20) + (6u << 20);  // +6%
  // A window of one sample: every sample's own value against the baseline's.
  const auto d = find_drifts(v, 100, 0.05, 1);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].quantity, "resident bytes (floor)");
  EXPECT_EQ(d[0].baseline, double(100u << 20));
  EXPECT_EQ(d[0].value, double(106u << 20));
  EXPECT_EQ(d[0].baseline_frames_done, 100u);
  EXPECT_EQ(d[0].frames_done, 400u);
}

TEST(SoakDrifts, MemorySpikesDoNotDriftButARisingFloorDoes) {
  // Every third sample 15% above a flat 100 MiB: a burst the driver gives back.
  auto spikes = series(12, 100);
  for (size_t i = 2; i < spikes.size(); i += 3) spikes[i].resident_bytes = 115u << 20;
  EXPECT_FALSE(find_drifts(spikes, 100, 0.05, 1).empty());  // sample by sample: a drift
  EXPECT_TRUE(find_drifts(spikes, 100, 0.05, 4).empty());   // the floor of 4 stays at 100
  // 1 MiB more every sample: floors of 4 samples are 100 (baseline: samples 0..3), then
  // 101, 102, ... 106 for the window ending at sample 9; 106 - 100 > 5% of 100, 105 is not.
  auto leak = series(10, 100);
  for (size_t i = 0; i < leak.size(); ++i) leak[i].resident_bytes = (100u + i) << 20;
  const auto d = find_drifts(leak, 100, 0.05, 4);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].baseline, double(100u << 20));
  EXPECT_EQ(d[0].value, double(106u << 20));
  EXPECT_EQ(d[0].baseline_frames_done, 400u);  // the sample that ends the baseline window
  EXPECT_EQ(d[0].frames_done, 1000u);
  // Memory given back is not a drift.
  auto shrink = series(10, 100);
  for (size_t i = 5; i < shrink.size(); ++i) shrink[i].resident_bytes = 50u << 20;
  EXPECT_TRUE(find_drifts(shrink, 100, 0.05, 4).empty());
}

TEST(SoakDrifts, OneLeakedBufferInTenIsADriftAndTheWorstSampleIsReported) {
  auto v = series(5, 100);
  v[2].live_objects[0].second = 11;  // +10%
  v[3].live_objects[0].second = 13;  // +30%: the worst
  v[4].live_objects[0].second = 12;
  const auto d = find_drifts(v, 100, 0.05);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].quantity, "live Buffer");
  EXPECT_EQ(d[0].value, 13);
  EXPECT_EQ(d[0].frames_done, 400u);
}

TEST(SoakDrifts, ATypeThatAppearsOrVanishesIsADrift) {
  auto v = series(3, 100);
  v[1].live_objects.push_back({"RenderBundle", 1});  // 0 in the baseline: any count drifts
  v[2].implementation_objects = ObjectCounts{};      // "buffers" gone: 10 -> 0
  const auto d = find_drifts(v, 100, 0.05);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].quantity, "live RenderBundle");
  EXPECT_EQ(d[0].baseline, 0);
  EXPECT_EQ(d[0].value, 1);
  EXPECT_EQ(d[1].quantity, "implementation buffers");
  EXPECT_EQ(d[1].value, 0);
}

TEST(SoakDrifts, ACounterThatIsZeroMustStayZero) {
  auto v = series(3, 100);
  v[2].calls.bind_groups_created = 1;  // a bind group created per frame after the warm-up
  const auto d = find_drifts(v, 100, 0.05);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].quantity, "bind groups created");
}

TEST(SoakDrifts, SamplesBeforeTheWarmupAreNotCompared) {
  auto v = series(5, 100);  // 100 .. 500 frames done
  v[0].resident_bytes = 10u << 20;  // the first frames: memory still growing
  v[0].calls.draws = 1;
  v[0].live_objects[0].second = 2;
  // warm-up 200: the baseline is the sample at 200 frames, the sample at 100 is ignored.
  EXPECT_TRUE(find_drifts(v, 200, 0.05).empty());
  // warm-up 0: the sample at 100 frames is the baseline, and everything after it drifted.
  EXPECT_FALSE(find_drifts(v, 0, 0.05).empty());
}

TEST(SoakDrifts, ZeroToleranceMeansExactlyEqual) {
  auto v = series(3, 100);
  v[2].calls.draws = 1001;
  EXPECT_EQ(find_drifts(v, 100, 0.0).size(), 1u);
  EXPECT_TRUE(find_drifts(v, 100, 0.001).empty());  // 1 in 1000 is within 0.1%
}

TEST(SoakDrifts, RefusesABadToleranceAndAWarmupNoSampleReaches) {
  const auto v = series(3, 100);
  for (double t : {-0.01, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    try {
      find_drifts(v, 100, t);
      ADD_FAILURE() << "tolerance " << t << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    }
  }
  try {
    find_drifts(v, 100, 0.05, 0);
    ADD_FAILURE() << "a memory window of 0 samples accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
  try {
    find_drifts(v, 301, 0.05);  // the last sample is at 300 frames
    ADD_FAILURE() << "a warm-up past every sample accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace bindery

namespace bindery {
namespace {

TEST(SoakOptions, SamplesAfterTheWarmupCountedByHand) {
  // 2000 frames, one sample every 100: after 100, 200, ..., 2000; 19 of them at >= 200.
  EXPECT_EQ(soak_samples_after_warmup(2000, 100, 200), 19u);
  // 250 frames every 100: after 100, 200 and the last frame (250); >= 150: 200 and 250.
  EXPECT_EQ(soak_samples_after_warmup(250, 100, 150), 2u);
  EXPECT_EQ(soak_samples_after_warmup(60, 10, 20), 5u);  // 20, 30, 40, 50, 60
  EXPECT_EQ(soak_samples_after_warmup(39, 10, 20), 3u);  // 20, 30, 39
  EXPECT_EQ(soak_samples_after_warmup(10, 10, 11), 0u);  // warm-up past the end
  EXPECT_EQ(soak_samples_after_warmup(10, 0, 1), 0u);
}

SoakOptions valid() {
  SoakOptions o;
  o.render.frames = 2000;
  o.render.frames_in_flight = 2;
  o.check_every = 100;
  o.warmup = 200;
  return o;
}

void expect_refused(const SoakOptions& o, const char* why) {
  try {
    validate_soak_options(o);
    ADD_FAILURE() << "accepted: " << why;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << why;
  }
}

TEST(SoakOptions, WhatSoakRefusesBeforeTouchingADevice) {
  EXPECT_NO_THROW(validate_soak_options(valid()));
  SoakOptions o = valid();
  o.warmup = 2;  // frames 0 and 1 of 2 in flight create and record; the baseline must follow
  expect_refused(o, "warm-up inside the first frames_in_flight + 1 frames");
  o.warmup = 3;
  EXPECT_NO_THROW(validate_soak_options(o));
  o = valid();
  o.check_every = 1;  // 2000 samples > kMaxSoakSamples
  expect_refused(o, "more than 1000 samples");
  o.check_every = 2;  // exactly 1000
  EXPECT_NO_THROW(validate_soak_options(o));
  o = valid();
  o.render.frames = 500;  // samples at >= 200: 200, 300, 400, 500 = 4 = memory_window: no 2nd floor
  expect_refused(o, "no second memory floor");
  o.render.frames = 600;  // 5 samples
  EXPECT_NO_THROW(validate_soak_options(o));
  o.memory_window = 0;
  expect_refused(o, "memory window 0");
  o = valid();
  o.check_every = 0;
  expect_refused(o, "check_every 0");
}

}  // namespace
}  // namespace bindery
