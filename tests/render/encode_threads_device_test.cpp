// SPDX-License-Identifier: MIT
// Device tests of --encode-threads (issue 10 part 4; lavapipe on CPU-only machines):
//   - every strategy that encodes its draws on the CPU renders the same image with 1, 2 and 3
//     encoding threads, and the calls it asks for are the same (each extra range only turns
//     skipped calls into issued ones: the tracker starts afresh in each render pass);
//   - with the same ranges (1 thread with max_draws_per_pass = draws / N) the counters are equal
//     field by field: the per-thread counters are all added up;
//   - passes_per_frame is the split worked out by hand; bad values are refused (InvalidArgument)
//     before the device is touched; the CLI takes --encode-threads.
// No timing is asserted.
#include "support/cli_runner.hpp"
#include "support/device.hpp"
#include "support/expect_kind.hpp"
#include "support/render_options.hpp"

#include <bindery/core/device.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace bindery {
namespace {

using test::shared_device;

// The strategies that encode every draw on the CPU through the default frame (issue 10 part 4),
// and those that do not (render bundles; gpu-culling and gpu-driven record their own passes):
// by reading
// src/render/strategy_*.cpp, not from the registry.
const std::set<std::string> kParallel = {
    "naive",           "split-uniforms", "buffer-offsets",     "buffer-offsets-mapped",
    "dynamic-offsets", "mapped-staging", "storage-instancing", "immediates"};
const std::set<std::string> kNotParallel = {"render-bundles", "bundles-gpu", "gpu-culling",
                                            "gpu-driven"};

// Background of the cube scene: clear colour 0.3 in 8-bit unorm = round(76.5) (76 or 77).
constexpr uint8_t kBackground[3] = {77, 77, 77};

RenderOptions options(const std::string& strategy, uint32_t encode_threads) {
  // The second frame is the steady state (uploads only what moved).
  RenderOptions o = test::frozen(strategy, 128, 96, 2, 3.25f);
  o.encode_threads = encode_threads;
  return o;
}

// The strategies that upload through a StagingRing: its acquire() creates a block when the
// previous frame's mapAsync has not come back yet (it polls without waiting), so how many
// buffers a frame creates depends on how fast the device ran, not on the split
// (src/data/staging_ring.cpp). Seen: the sanitizer build on CI.
const std::set<std::string> kStagingRing = {"mapped-staging", "buffer-offsets-mapped"};

// Every field of two Counters, one EXPECT each (names in the failure message); with
// `timed_creation` the buffers created are left out (kStagingRing).
void expect_same_counters(const Counters& a, const Counters& b, const std::string& what,
                          bool timed_creation) {
#define BINDERY_SAME(field) EXPECT_EQ(a.field, b.field) << what << ": " #field
  BINDERY_SAME(draws);
  BINDERY_SAME(set_pipeline);
  BINDERY_SAME(set_pipeline_skipped);
  BINDERY_SAME(set_bind_group);
  BINDERY_SAME(set_bind_group_skipped);
  BINDERY_SAME(set_vertex_buffer);
  BINDERY_SAME(set_vertex_buffer_skipped);
  BINDERY_SAME(set_index_buffer);
  BINDERY_SAME(set_index_buffer_skipped);
  BINDERY_SAME(write_buffer_calls);
  BINDERY_SAME(bytes_uploaded);
  BINDERY_SAME(copy_buffer_to_buffer);
  BINDERY_SAME(map_async);
  BINDERY_SAME(execute_bundles);
  BINDERY_SAME(set_immediates);
  BINDERY_SAME(immediate_bytes);
  BINDERY_SAME(bind_groups_created);
  if (!timed_creation) {
    BINDERY_SAME(buffers_created);
    BINDERY_SAME(buffer_bytes_created);
  }
#undef BINDERY_SAME
}

TEST(EncodeThreads, TheRegistrySaysWhichStrategiesEncodeInParallel) {
  for (const std::string& name : kParallel) EXPECT_TRUE(strategy_encodes_in_parallel(name)) << name;
  for (const std::string& name : kNotParallel)
    EXPECT_FALSE(strategy_encodes_in_parallel(name)) << name;
  // Every catalogue row is in one of the two lists (a new strategy must be sorted in here).
  for (const StrategyInfo& info : strategy_catalog())
    EXPECT_TRUE(
        kParallel.count(std::string(info.name)) + kNotParallel.count(std::string(info.name)) == 1)
        << info.name;
}

TEST(EncodeThreads, SameImageAndSameCallsWithTwoAndThreeThreads) {
  // 600 cubes: divisible by 2 and 3, so the per-object strategies' ranges are equal.
  const Scene scene = make_cube_scene({.objects = 600, .seed = 7});
  const Device& device = shared_device();
  for (const std::string& name : kParallel) {
    if (std::optional<std::string> why = strategy_unavailable(device, scene, name)) {
      // lavapipe offers all of them on wgpu-native; on Dawn its maxImmediateSize (64) is below
      // the immediates strategy's 112 bytes per draw.
      const bool expected = name == "immediates" && device.adapter().implementation == "dawn" &&
                            device.limits().maxImmediateSize < 112;
      if (!expected) ADD_FAILURE() << name << " unavailable here: " << *why;
      continue;
    }
    const RenderReport one = render(device, scene, options(name, 1));
    ASSERT_TRUE(one.last_frame) << name;
    // The image must hold cubes, or equality would prove nothing.
    ASSERT_TRUE(foreground_box(*one.last_frame, kBackground, 2).has_value()) << name;
    // One pass: lavapipe's default max_draws_per_pass (50,000) is far above 600 draws.
    EXPECT_EQ(one.passes_per_frame, 1u) << name;
    const uint64_t draws = one.per_frame.draws;
    ASSERT_GT(draws, 0u) << name;
    // Passes at lavapipe's default limit (50,000 draws: one per range here) and with no limit,
    // the default on every other adapter (default_max_draws_per_pass); the second is what the
    // H200 ran, where a wrapped `first + max_draws` once dropped every range but the first.
    for (const auto& [n, per_pass] : {std::pair{2u, 0u}, std::pair{3u, 0u},
                                      std::pair{2u, UINT32_MAX}, std::pair{3u, UINT32_MAX}}) {
      const std::string what = name + " with " + std::to_string(n) + " threads" +
                               (per_pass ? ", no per-pass limit" : "");
      RenderOptions many_options = options(name, n);
      many_options.max_draws_per_pass = per_pass;
      const RenderReport many = render(device, scene, many_options);
      ASSERT_TRUE(many.last_frame) << what;
      EXPECT_EQ(many.encode_threads, n) << what;
      // The same draws, in the same order, with depth loaded between passes: the same pixels.
      EXPECT_EQ(max_channel_difference(*one.last_frame, *many.last_frame), 0u) << what;
      // One pass per range: min(n, draws) ranges (split_draw_ranges).
      EXPECT_EQ(many.passes_per_frame, std::min<uint64_t>(n, draws)) << what;
      // Uploads and draws do not depend on the split; each state call the strategy asks for is
      // issued or skipped, so issued + skipped does not either.
      const Counters& a = one.per_frame;
      const Counters& b = many.per_frame;
      EXPECT_EQ(b.draws, a.draws) << what;
      EXPECT_EQ(b.write_buffer_calls, a.write_buffer_calls) << what;
      EXPECT_EQ(b.bytes_uploaded, a.bytes_uploaded) << what;
      EXPECT_EQ(b.copy_buffer_to_buffer, a.copy_buffer_to_buffer) << what;
      EXPECT_EQ(b.set_immediates, a.set_immediates) << what;
      EXPECT_EQ(b.immediate_bytes, a.immediate_bytes) << what;
      EXPECT_EQ(b.set_pipeline + b.set_pipeline_skipped, a.set_pipeline + a.set_pipeline_skipped)
          << what;
      EXPECT_EQ(b.set_bind_group + b.set_bind_group_skipped,
                a.set_bind_group + a.set_bind_group_skipped)
          << what;
      EXPECT_EQ(b.set_vertex_buffer + b.set_vertex_buffer_skipped,
                a.set_vertex_buffer + a.set_vertex_buffer_skipped)
          << what;
      EXPECT_EQ(b.set_index_buffer + b.set_index_buffer_skipped,
                a.set_index_buffer + a.set_index_buffer_skipped)
          << what;
      // Every strategy here has one pipeline: it is set once per pass.
      EXPECT_EQ(b.set_pipeline, many.passes_per_frame) << what;
      // With the same ranges on one thread (passes of draws / n), every counter is equal: the
      // n threads' counters were all added up, none lost or counted twice.
      if (draws % n == 0) {
        RenderOptions same = options(name, 1);
        same.max_draws_per_pass = static_cast<uint32_t>(draws / n);
        const RenderReport serial = render(device, scene, same);
        EXPECT_EQ(serial.passes_per_frame, n) << what;
        expect_same_counters(serial.per_frame, many.per_frame, what + " vs 1 thread, same passes",
                             kStagingRing.count(name) > 0);
        ASSERT_TRUE(serial.last_frame);
        EXPECT_EQ(max_channel_difference(*serial.last_frame, *many.last_frame), 0u) << what;
      }
    }
  }
}

TEST(EncodeThreads, EachRangeIsStillSplitByMaxDrawsPerPass) {
  const Scene scene = make_cube_scene({.objects = 600, .seed = 3});
  RenderOptions o = options("dynamic-offsets", 1);
  o.max_draws_per_pass = 250;
  const RenderReport one = render(shared_device(), scene, o);
  // 600 draws in passes of 250: 250 + 250 + 100.
  EXPECT_EQ(one.passes_per_frame, 3u);
  o.encode_threads = 2;
  const RenderReport two = render(shared_device(), scene, o);
  // Two ranges of 300, each in passes of 250: 250 + 50 twice.
  EXPECT_EQ(two.passes_per_frame, 4u);
  o.encode_threads = 4;
  const RenderReport four = render(shared_device(), scene, o);
  // Four ranges of 150, each one pass.
  EXPECT_EQ(four.passes_per_frame, 4u);
  o.encode_threads = 5;
  const RenderReport five = render(shared_device(), scene, o);
  // Five ranges of 120.
  EXPECT_EQ(five.passes_per_frame, 5u);
  ASSERT_TRUE(one.last_frame && two.last_frame && four.last_frame && five.last_frame);
  EXPECT_EQ(max_channel_difference(*one.last_frame, *two.last_frame), 0u);
  EXPECT_EQ(max_channel_difference(*one.last_frame, *four.last_frame), 0u);
  EXPECT_EQ(max_channel_difference(*one.last_frame, *five.last_frame), 0u);
  EXPECT_EQ(two.per_frame.draws, 600u);
  EXPECT_EQ(five.per_frame.draws, 600u);
}

TEST(EncodeThreads, FewerDrawsThanThreads) {
  // 2 draws on 3 threads: 2 ranges of one draw, so 2 passes.
  const Scene two = make_cube_scene({.objects = 2, .seed = 5});
  const RenderReport a = render(shared_device(), two, options("dynamic-offsets", 1));
  const RenderReport b = render(shared_device(), two, options("dynamic-offsets", 3));
  EXPECT_EQ(b.passes_per_frame, 2u);
  EXPECT_EQ(b.per_frame.draws, 2u);
  ASSERT_TRUE(a.last_frame && b.last_frame);
  EXPECT_EQ(max_channel_difference(*a.last_frame, *b.last_frame), 0u);
  // No draws: one pass that clears; every pixel is the background.
  const Scene none = make_cube_scene({.objects = 0});
  const RenderReport c = render(shared_device(), none, options("dynamic-offsets", 3));
  EXPECT_EQ(c.passes_per_frame, 1u);
  EXPECT_EQ(c.per_frame.draws, 0u);
  ASSERT_TRUE(c.last_frame);
  EXPECT_FALSE(foreground_box(*c.last_frame, kBackground, 1).has_value());
}

TEST(EncodeThreads, SixtyFourThreadsIsTheLimit) {
  const Scene scene = make_cube_scene({.objects = 128, .seed = 9});
  RenderOptions o = options("dynamic-offsets", 1);
  const RenderReport one = render(shared_device(), scene, o);
  o.encode_threads = kMaxEncodeThreads;
  ASSERT_EQ(kMaxEncodeThreads, 64u);
  const RenderReport most = render(shared_device(), scene, o);
  EXPECT_EQ(most.passes_per_frame, 64u);  // 64 ranges of 2 draws
  ASSERT_TRUE(one.last_frame && most.last_frame);
  EXPECT_EQ(max_channel_difference(*one.last_frame, *most.last_frame), 0u);
}

TEST(EncodeThreads, BadValuesAreRefusedBeforeTheDevice) {
  const Scene scene = make_cube_scene({.objects = 10});
  const Device& device = shared_device();
  const Counters before = device.counters();
  for (uint32_t bad : {0u, kMaxEncodeThreads + 1, 1000u})
    EXPECT_KIND(render(device, scene, options("dynamic-offsets", bad)), InvalidArgument);
  for (const std::string& name : kNotParallel)
    EXPECT_KIND(render(device, scene, options(name, 2)), InvalidArgument);
  // Nothing was created: no buffer, no bind group (the offscreen target comes after the checks).
  EXPECT_EQ(device.counters().buffers_created, before.buffers_created);
  EXPECT_EQ(device.counters().bind_groups_created, before.bind_groups_created);
  // The same checks without a device, as the CLI runs them.
  EXPECT_KIND(check_encode_threads("dynamic-offsets", -1, "test"), InvalidArgument);
  EXPECT_KIND(check_encode_threads("dynamic-offsets", 65, "test"), InvalidArgument);
  EXPECT_KIND(check_encode_threads("gpu-driven", 2, "test"), InvalidArgument);
  EXPECT_KIND(check_encode_threads("no-such-strategy", 1, "test"), InvalidArgument);
  check_encode_threads("gpu-driven", 1, "test");  // one thread is every strategy's default
  check_encode_threads("dynamic-offsets", 64, "test");
}

// The last line of a command's stdout, parsed as JSON.
nlohmann::json last_json(const std::string& out) {
  const size_t end = out.find_last_not_of('\n');
  const size_t begin = out.rfind('\n', end);
  return nlohmann::json::parse(out.substr(begin == std::string::npos ? 0 : begin + 1));
}

TEST(EncodeThreadsCli, RenderTakesEncodeThreads) {
  const test::CliResult r =
      test::run_cli("render --objects 300 --frames 2 --size 64x48 --encode-threads 3 --quiet", 300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = last_json(r.out);
  EXPECT_EQ(j["encodeThreads"], 3);
  EXPECT_EQ(j["passesPerFrame"], 3);
  EXPECT_EQ(j["perFrame"]["draws"], 300);
}

TEST(EncodeThreadsCli, BadValuesAreOneLineInvalidArgument) {
  for (const std::string args :
       {"render --encode-threads 0", "render --encode-threads 65", "render --encode-threads -3",
        "render --strategy gpu-driven --encode-threads 2", "bench --encode-threads 65",
        "bench --strategies render-bundles --encode-threads 2", "soak --encode-threads 0",
        "soak --strategies bundles-gpu --encode-threads 4"}) {
    const test::CliResult r = test::run_cli(args, 60);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_NE(r.err.find("bindery: error [InvalidArgument]"), std::string::npos)
        << args << ": " << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;  // refused before anything ran
  }
}

TEST(EncodeThreadsCli, BenchAllSkipsStrategiesThatDoNotEncodeOnTheCpu) {
  const test::CliResult r = test::run_cli(
      "bench --strategies dynamic-offsets,naive --encode-threads 2 --start 40 --max 40 "
      "--frames 3 --size 1x1",
      300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = last_json(r.out);
  EXPECT_EQ(j["encode_threads"], 2);
  ASSERT_EQ(j["results"].size(), 2u);
  for (const nlohmann::json& row : j["results"]) EXPECT_FALSE(row.contains("skipped")) << row;

  const test::CliResult all = test::run_cli(
      "bench --strategies all --encode-threads 2 --start 20 --max 20 --frames 3 --size 1x1", 600);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const nlohmann::json ja = last_json(all.out);
  std::set<std::string> skipped;
  for (const nlohmann::json& row : ja["results"])
    if (row.contains("skipped")) skipped.insert(row["strategy"].get<std::string>());
  EXPECT_EQ(skipped, kNotParallel);
}

}  // namespace
}  // namespace bindery
