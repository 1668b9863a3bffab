// SPDX-License-Identifier: MIT
// Device tests of --strategy bundles-gpu (issue 10 part 3): the draws recorded once into render
// bundles, every object's matrices written by a compute pass. It renders what the CPU-animated
// dynamic-offsets strategy renders (also when replaying bundles, across several passes, and with
// time moving between frames), the CPU's per-frame work does not grow with the object count, and
// scenes it cannot animate are refused as StrategyUnavailable.
#include <bindery/core/device.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/device.hpp"
#include "support/images.hpp"
#include "support/render_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>

namespace bindery {
namespace {

using test::shared_device;
using test::frozen;
using test::dump_on_failure;
using test::expect_nearly_same;

// The scene's clear colour (0.3, 0.3, 0.3, 1) -> (76.5 rounded either way, ..., 255) everywhere:
// a picture with no cube in it, to prove that the compared images hold cubes.
Image background(uint32_t w, uint32_t h) {
  Image image{w, h, std::vector<uint8_t>(size_t(w) * h * 4, 77)};
  for (size_t p = 3; p < image.rgba.size(); p += 4) image.rgba[p] = 255;
  return image;
}

TEST(BundlesGpu, RendersWhatDynamicOffsetsRenders) {
  for (uint32_t objects : {1'000u, 20'000u}) {
    const Scene scene = make_cube_scene({.objects = objects, .seed = 5});
    RenderOptions o = frozen("dynamic-offsets", 200, 150, 1, 4.5f);
    const RenderReport cpu = render(shared_device(), scene, o);
    o.strategy = "bundles-gpu";
    o.frames = 2;  // the second frame replays the bundle recorded by the first
    const RenderReport gpu = render(shared_device(), scene, o);
    ASSERT_TRUE(cpu.last_frame && gpu.last_frame);
    // Not a blank comparison: the article's scene fills most of the view.
    EXPECT_GT(count_differing_pixels(*cpu.last_frame, background(200, 150), 8), 200u * 150 / 4);
    expect_nearly_same(*cpu.last_frame, *gpu.last_frame,
                       "bundles_gpu_vs_dynamic_" + std::to_string(objects));
  }
}

// The frame split into render passes of at most 7,000 draws (what keeps lavapipe under its
// ~65,100 draws per pass): ceil(20,000 / 7,000) = 3 passes, each replaying its own bundle, and
// the same picture as dynamic-offsets.
TEST(BundlesGpu, OneBundlePerPassKeepsTheImage) {
  const Scene scene = make_cube_scene({.objects = 20'000, .seed = 8});
  RenderOptions o = frozen("dynamic-offsets", 160, 120, 1, 2.5f);
  const RenderReport cpu = render(shared_device(), scene, o);
  o.strategy = "bundles-gpu";
  o.frames = 2;
  o.max_draws_per_pass = 7'000;
  const RenderReport split = render(shared_device(), scene, o);
  ASSERT_TRUE(cpu.last_frame && split.last_frame);
  EXPECT_EQ(split.passes_per_frame, 3u);
  EXPECT_EQ(split.per_frame.execute_bundles, 3u);
  EXPECT_EQ(split.per_frame.draws, 20'000u);
  EXPECT_GT(count_differing_pixels(*cpu.last_frame, background(160, 120), 8), 160u * 120 / 4);
  expect_nearly_same(*cpu.last_frame, *split.last_frame, "bundles_gpu_split_vs_dynamic");
}

// Time runs (frame f at f / 60 s): the bundles recorded in frame 0 are replayed over the matrices
// the compute pass writes for frame 29, so the picture is frame 29's (dynamic-offsets computes
// it on the CPU) and not frame 0's.
TEST(BundlesGpu, ReplayedBundlesDrawEachFramesAnimation) {
  const Scene scene = make_cube_scene({.objects = 2'000, .seed = 6});
  RenderOptions o;
  o.width = 128;
  o.height = 96;
  o.frames = 30;
  o.strategy = "dynamic-offsets";
  const RenderReport cpu = render(shared_device(), scene, o);
  o.strategy = "bundles-gpu";
  const RenderReport gpu = render(shared_device(), scene, o);
  o.frames = 1;
  const RenderReport first = render(shared_device(), scene, o);
  ASSERT_TRUE(cpu.last_frame && gpu.last_frame && first.last_frame);
  expect_nearly_same(*cpu.last_frame, *gpu.last_frame, "bundles_gpu_moving_vs_dynamic");
  // Guard: frame 29 differs from frame 0 well beyond the tolerance above.
  EXPECT_GT(count_differing_pixels(*first.last_frame, *gpu.last_frame, 8), 128u * 96 / 100);
}

// The CPU writes two uniforms per frame and nothing per object. Their sizes by WGSL's layout
// rules (§14.4.1): the animation's AnimateFrame (shaders/object_animate.wgsl) time f32 at 0,
// objectCount u32 at 4: 8 bytes; the draw's DrawFrame (shaders/gpu_driven_draw.wgsl)
// viewProjection mat4x4f 64 bytes at 0, lightWorldPosition vec3f at 64, a f32 at 76,
// viewWorldPosition vec3f at 80, a f32 at 92: 96 bytes. Nothing moved by the CPU, so the object
// table's flush writes nothing. After the frame that records it, a frame replays one bundle (one
// pass) and encodes no setPipeline, setBindGroup or draw of its own; the draws counted are the
// bundle's, one per object.
TEST(BundlesGpu, PerFrameUploadDoesNotGrowWithObjects) {
  Counters per_frame[2];
  uint32_t passes[2] = {};
  const uint32_t counts[2] = {1'000, 8'000};
  for (int k = 0; k < 2; ++k) {
    const Scene scene = make_cube_scene({.objects = counts[k]});
    RenderOptions o = frozen("bundles-gpu", 16, 16, 3, 1.0f);
    o.keep_last_frame = false;
    o.max_draws_per_pass = UINT32_MAX;
    const RenderReport r = render(shared_device(), scene, o);
    per_frame[k] = r.per_frame;
    passes[k] = r.passes_per_frame;
  }
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(per_frame[k].write_buffer_calls, 2u) << counts[k];
    EXPECT_EQ(per_frame[k].bytes_uploaded, 8u + 96u) << counts[k];
    EXPECT_EQ(per_frame[k].map_async, 0u);
    EXPECT_EQ(per_frame[k].copy_buffer_to_buffer, 0u);
    EXPECT_EQ(per_frame[k].execute_bundles, 1u);
    EXPECT_EQ(passes[k], 1u);
    EXPECT_EQ(per_frame[k].set_pipeline, 0u);
    EXPECT_EQ(per_frame[k].set_bind_group, 0u);
    EXPECT_EQ(per_frame[k].set_vertex_buffer, 0u);
    EXPECT_EQ(per_frame[k].set_index_buffer, 0u);
    EXPECT_EQ(per_frame[k].draws, counts[k]);
    EXPECT_EQ(per_frame[k].bind_groups_created, 0u);
    EXPECT_EQ(per_frame[k].buffers_created, 0u);
  }
}

// The frame that records the bundle encodes its state once through the redundant-state tracker:
// 1 setPipeline, 2 bind groups (the objects' group and the material table, which every material
// indexes: no group per material), 1 vertex and 1 index buffer (the mesh pool's), one draw per
// object.
TEST(BundlesGpu, TheRecordingFrameEncodesEachStateOnce) {
  const Scene scene = make_cube_scene({.objects = 2'000, .seed = 3});
  std::vector<bool> used(scene.materials.size(), false);
  for (const Object& obj : scene.objects) used[obj.material] = true;
  const uint64_t materials_used = std::count(used.begin(), used.end(), true);
  ASSERT_EQ(scene.meshes.size(), 1u);
  RenderOptions o = frozen("bundles-gpu", 16, 16, 1, 1.0f);
  o.keep_last_frame = false;
  o.max_draws_per_pass = UINT32_MAX;
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_EQ(r.per_frame.set_pipeline, 1u);
  EXPECT_GT(materials_used, 1u);  // one group per material would have shown as more groups
  EXPECT_EQ(r.per_frame.set_bind_group, 2u);
  EXPECT_EQ(r.per_frame.set_vertex_buffer, 1u);
  EXPECT_EQ(r.per_frame.set_index_buffer, 1u);
  EXPECT_EQ(r.per_frame.draws, 2'000u);
  EXPECT_EQ(r.per_frame.execute_bundles, 1u);
  EXPECT_EQ(r.per_frame.write_buffer_calls, 2u);
}

TEST(BundlesGpu, UnavailableForStaticPlacementsWithOneClearError) {
  Scene scene = make_cube_scene({.objects = 2});
  ASSERT_FALSE(strategy_unavailable(shared_device(), scene, "bundles-gpu").has_value());
  scene.objects[1].animated = false;
  const std::optional<std::string> why =
      strategy_unavailable(shared_device(), scene, "bundles-gpu");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->find('\n'), std::string::npos);  // one line
  RenderOptions o = frozen("bundles-gpu", 8, 8, 1, 0.0f);
  try {
    render(shared_device(), scene, o);
    ADD_FAILURE() << "expected StrategyUnavailable";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::StrategyUnavailable);
  }
}

}  // namespace
}  // namespace bindery
