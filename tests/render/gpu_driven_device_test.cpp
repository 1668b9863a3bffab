// SPDX-License-Identifier: MIT
// Device tests of the GPU-driven path and the frame loop (issue "GPU-driven rendering at scale"):
// gpu-driven renders what the CPU-animated strategies render, occlusion culling keeps the image,
// frames in flight keep every strategy's image, the per-frame upload does not grow with the
// object count, and the culling counts match scenes built so that they can be worked out by hand.
#include <bindery/core/device.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/device.hpp"
#include "support/images.hpp"
#include "support/render_options.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace bindery {
namespace {

using test::shared_device;
using test::frozen;
using test::dump_on_failure;
using test::expect_nearly_same;

TEST(GpuDriven, RendersWhatDynamicOffsetsRenders) {
  for (uint32_t objects : {1'000u, 20'000u}) {
    const Scene scene = make_cube_scene({.objects = objects, .seed = 5});
    RenderOptions o = frozen("dynamic-offsets", 200, 150, 1, 4.5f);
    const RenderReport cpu = render(shared_device(), scene, o);
    o.strategy = "gpu-driven";
    o.frames = 3;  // phase 1 draws last frame's visible set from the second frame on
    const RenderReport gpu = render(shared_device(), scene, o);
    ASSERT_TRUE(cpu.last_frame && gpu.last_frame);
    // Not a blank comparison: the article's scene fills most of the view. The background is
    // the clear colour (0.3, 0.3, 0.3, 1): 77 (76.5 rounded either way) and alpha 255.
    Image background{200, 150, std::vector<uint8_t>(200 * 150 * 4, 77)};
    for (size_t p = 3; p < background.rgba.size(); p += 4) background.rgba[p] = 255;
    EXPECT_GT(count_differing_pixels(*cpu.last_frame, background, 8), 200u * 150 / 4);
    expect_nearly_same(*cpu.last_frame, *gpu.last_frame,
                       "gpu_driven_vs_dynamic_" + std::to_string(objects));
  }
}

TEST(GpuDriven, OcclusionCullingKeepsTheImage) {
  const Scene scene = make_cube_scene({.objects = 5'000, .seed = 9});
  RenderOptions o = frozen("gpu-driven", 160, 120, 3, 2.0f);
  o.occlusion = false;
  const RenderReport off = render(shared_device(), scene, o);
  o.occlusion = true;
  const RenderReport on = render(shared_device(), scene, o);
  ASSERT_TRUE(off.last_frame && on.last_frame && on.frames.back().culling);
  const CullingCounts c = *on.frames.back().culling;
  // It did cull: 5,000 cubes in the article's ball hide most of each other at 160x120.
  EXPECT_LT(c.after_occlusion, c.after_frustum);
  EXPECT_LT(c.drawn, c.after_frustum);
  // Without occlusion culling everything in the frustum is drawn.
  const CullingCounts c_off = *off.frames.back().culling;
  EXPECT_EQ(c_off.after_occlusion, c_off.after_frustum);
  EXPECT_EQ(c_off.drawn, c_off.after_frustum);
  EXPECT_EQ(c_off.after_frustum, c.after_frustum);
  EXPECT_EQ(count_differing_pixels(*off.last_frame, *on.last_frame, 0), 0u);
  dump_on_failure("occlusion_off_vs_on", *off.last_frame, *on.last_frame);
}

TEST(FrameLoop, FramesInFlightKeepEveryStrategysImage) {
  const Scene scene = make_cube_scene({.objects = 400, .seed = 2});
  for (const StrategyInfo& info : strategy_catalog()) {
    if (strategy_unavailable(shared_device(), scene, info.name)) continue;
    RenderOptions o = frozen(std::string(info.name), 96, 72, 4, 1.5f);
    o.frames_in_flight = 1;
    const RenderReport serial = render(shared_device(), scene, o);
    o.frames_in_flight = 3;
    const RenderReport overlapped = render(shared_device(), scene, o);
    ASSERT_TRUE(serial.last_frame && overlapped.last_frame) << info.name;
    EXPECT_EQ(serial.frames_in_flight, 1u);
    EXPECT_EQ(overlapped.frames_in_flight, 3u);
    EXPECT_EQ(count_differing_pixels(*serial.last_frame, *overlapped.last_frame, 0), 0u)
        << info.name;
    dump_on_failure("in_flight_" + std::string(info.name), *serial.last_frame,
                    *overlapped.last_frame);
  }
}

TEST(FrameLoop, OneThreadAndAllThreadsComputeTheSameImage) {
  const Scene scene = make_cube_scene({.objects = 10'000, .seed = 4});
  RenderOptions o = frozen("storage-instancing", 96, 72, 1, 3.0f);
  o.threads = 1;
  const RenderReport one = render(shared_device(), scene, o);
  o.threads = 0;
  const RenderReport all = render(shared_device(), scene, o);
  EXPECT_EQ(one.threads, 1u);
  EXPECT_EQ(count_differing_pixels(*one.last_frame, *all.last_frame, 0), 0u);
}

// The CPU writes three small uniforms per frame and nothing per object (issue 20's parts: the
// animation's time and object count, 8 bytes; Culling's CullFrame; the draw shader's DrawFrame):
// the per-frame upload is the same 3 writeBuffers of the same size at 1,000 and 8,000 objects.
TEST(GpuDriven, PerFrameUploadDoesNotGrowWithObjects) {
  Counters per_frame[2];
  int k = 0;
  for (uint32_t objects : {1'000u, 8'000u}) {
    const Scene scene = make_cube_scene({.objects = objects});
    RenderOptions o = frozen("gpu-driven", 16, 16, 3, 1.0f);
    o.keep_last_frame = false;
    per_frame[k++] = render(shared_device(), scene, o).per_frame;
  }
  EXPECT_EQ(per_frame[0].write_buffer_calls, 3u);
  EXPECT_EQ(per_frame[1].write_buffer_calls, 3u);
  EXPECT_EQ(per_frame[0].bytes_uploaded, per_frame[1].bytes_uploaded);
  EXPECT_GT(per_frame[0].bytes_uploaded, 0u);
  EXPECT_LE(per_frame[0].bytes_uploaded, 256u);  // two 4x4 matrices, vectors and counts
  EXPECT_EQ(per_frame[0].map_async, 0u);
  EXPECT_EQ(per_frame[1].draws, per_frame[0].draws);  // one mesh: the same draws at any count
}

// A cube placed by the article's animation frozen at t = 0 with chosen parameters: rotation
// angle phase about `axis`, then a translation of radius * (sin(phase_z1) + sin(phase_z2))
// along the rotated z axis, scale `scale`.
Object placed_cube(glm::vec3 axis, float angle, float distance, float scale) {
  Object o;
  o.axis = axis;
  o.phase = angle;
  o.speed = 0;
  o.rotation_speed = 0;
  o.radius = distance;
  o.phase_z1 = 1.57079632679f;  // sin = 1
  o.phase_z2 = 0;               // sin = 0
  o.scale = scale;
  return o;
}

// The rotation that turns +z towards `direction` (unit): about z x direction by the angle
// between them.
std::pair<glm::vec3, float> turn_z_towards(glm::vec3 direction) {
  const glm::vec3 z(0, 0, 1);
  return {glm::normalize(glm::cross(z, direction)), std::acos(glm::dot(z, direction))};
}

// Two cubes on the line of sight: a big one (scale 10: 20 units wide) at the origin, which the
// camera looks at from (100, 150, 200), and a small one (scale 1) 60 units straight behind it.
// Seen from 269 units away the big cube's half-width subtends at least 10 / 269 = 0.037 rad;
// the small one's corners at most sqrt(3) / 329 = 0.0053 rad off the line of sight: hidden.
//   frame 0: nothing was visible before, phase 2 tests both against an empty pyramid: 2 drawn;
//   frame 1: phase 1 draws both; phase 2 finds the small one behind phase 1's depth;
//   frame 2: phase 1 draws the big one only; the small one stays hidden:
//            2 objects, 2 after frustum, 1 after occlusion, 1 drawn.
// A third cube behind the camera is outside the frustum.
TEST(GpuDriven, CullingCountsOfAHandPlacedScene) {
  Scene scene = make_cube_scene({.objects = 3});
  const glm::vec3 away = glm::normalize(-scene.view.eye);  // from the camera through the origin
  const auto [axis, angle] = turn_z_towards(away);
  scene.objects[0] = placed_cube(axis, angle, 0.0f, 10.0f);
  scene.objects[1] = placed_cube(axis, angle, 60.0f, 1.0f);
  scene.objects[2] = placed_cube(axis, angle, -400.0f, 1.0f);  // 131 units behind the eye
  for (Object& o : scene.objects) o.material = 0;
  RenderOptions o = frozen("gpu-driven", 128, 96, 3, 0.0f);
  const RenderReport r = render(shared_device(), scene, o);
  ASSERT_TRUE(r.frames[0].culling && r.frames[2].culling);
  EXPECT_EQ(r.frames[0].culling->after_frustum, 2u);
  EXPECT_EQ(r.frames[0].culling->drawn, 2u);
  const CullingCounts c = *r.frames[2].culling;
  EXPECT_EQ(c.objects, 3u);
  EXPECT_EQ(c.after_frustum, 2u);
  EXPECT_EQ(c.after_occlusion, 1u);
  EXPECT_EQ(c.drawn, 1u);

  // Moved 30 units sideways (perpendicular to the line of sight), the small cube is in view.
  const glm::vec3 side = glm::normalize(glm::cross(away, glm::vec3(0, 1, 0)));
  const auto [axis2, angle2] = turn_z_towards(glm::normalize(away * 60.0f + side * 30.0f));
  scene.objects[1] = placed_cube(axis2, angle2, glm::length(away * 60.0f + side * 30.0f), 1.0f);
  const RenderReport r2 = render(shared_device(), scene, o);
  EXPECT_EQ(r2.frames[2].culling->after_occlusion, 2u);
  EXPECT_EQ(r2.frames[2].culling->drawn, 2u);
}

// The GPU's frustum count equals a CPU count of the same test written here with glm: each cube's
// bounding sphere (centre = world * origin, radius = sqrt(3) * scale, the half-diagonal of the
// unit cube [-1, 1]^3) against the six clip planes of the view-projection (WebGPU clip space:
// -w <= x, y <= w, 0 <= z <= w). Spheres within float rounding of a plane may go either way.
uint32_t cpu_frustum_count(const Scene& scene, float time_s, float aspect) {
  std::vector<ObjectTransform> t;
  scene.animate(time_s, t);
  const glm::mat4 m = scene.view.view_projection(aspect);
  const glm::mat4 rows = glm::transpose(m);  // rows[i] = row i of m
  const glm::vec4 planes[6] = {rows[3] + rows[0], rows[3] - rows[0], rows[3] + rows[1],
                               rows[3] - rows[1], rows[2],           rows[3] - rows[2]};
  uint32_t inside = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const glm::vec3 c(t[i].world[3]);
    const float r = std::sqrt(3.0f) * scene.objects[i].scale;
    bool in = true;
    for (const glm::vec4& p : planes)
      if (glm::dot(glm::vec3(p), c) + p.w < -r * glm::length(glm::vec3(p))) in = false;
    inside += in;
  }
  return inside;
}

TEST(GpuDriven, FrustumCountsMatchACpuCountAtEverySpread) {
  RenderOptions o = frozen("gpu-driven", 64, 48, 1, 0.5f);
  o.keep_last_frame = false;
  o.occlusion = false;
  uint32_t previous = UINT32_MAX;
  for (float spread : {1.0f, 8.0f, 32.0f}) {
    const Scene scene = make_cube_scene({.objects = 4'000, .spread = spread});
    const RenderReport r = render(shared_device(), scene, o);
    const uint32_t expected = cpu_frustum_count(scene, 0.5f, 64.0f / 48.0f);
    EXPECT_NEAR(double(r.frames[0].culling->after_frustum), double(expected), 2.0) << spread;
    EXPECT_LT(expected, previous);  // wider placement: fewer cubes in view
    previous = expected;
  }
}

// Issue 20: static placements used to be refused ("animates the article's cubes on the GPU");
// the object table takes any transform, so a scene mixing animated and placed objects is drawn.
TEST(GpuDriven, AvailableForStaticPlacements) {
  Scene scene = make_cube_scene({.objects = 2});
  scene.objects[1].animated = false;
  EXPECT_FALSE(strategy_unavailable(shared_device(), scene, "gpu-driven").has_value());
  RenderOptions o = frozen("gpu-driven", 8, 8, 1, 0.0f);
  EXPECT_NO_THROW(render(shared_device(), scene, o));
}

TEST(FrameLoop, ReportsThroughputAndPerPassGpuSpans) {
  const Scene scene = make_cube_scene({.objects = 500});
  RenderOptions o = frozen("gpu-driven", 32, 24, 4, 1.0f);
  o.keep_last_frame = false;
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_GT(r.throughput_fps(), 0.0);
  for (const FrameTiming& t : r.frames) {
    EXPECT_GE(t.frame_ms, t.cpu_ms);
    EXPECT_GT(t.interval_ms, 0.0);
  }
  if (!shared_device().has_timestamp_query()) GTEST_SKIP() << "no timestamp queries";
  std::vector<std::string> names;
  for (const GpuSpan& s : r.frames.back().gpu_spans) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cull", "phase1", "pyramid", "cull2", "phase2"}));
}

}  // namespace
}  // namespace bindery
