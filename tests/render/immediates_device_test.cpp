// SPDX-License-Identifier: MIT
// Device tests of issue 10's per-draw floor (lavapipe on CPU-only machines):
//   - the immediates strategy renders the image dynamic-offsets renders, uploads no per-object
//     bytes (one setImmediates of SizeOf(PerObjectUniforms) per draw instead), and is refused with
//     StrategyUnavailable where the device's maxImmediateSize is too small;
//   - RenderPassState::set_immediates checks alignment and the device limit before wgpu-native;
//   - the raw-floor loop of `bindery bench --raw-floor` issues the calls dynamic-offsets issues
//     (counted, never timed), in the library and through the CLI.
#include "support/cli_runner.hpp"
#include "support/device.hpp"
#include "support/expect_kind.hpp"
#include "support/images.hpp"
#include "support/render_options.hpp"

#include <bindery/render/bench.hpp>
#include <bindery/core/device.hpp>
#include <bindery/encode/draw_list.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <vector>

namespace bindery {
namespace {

using test::shared_device;
using test::dump_on_failure;
using test::frozen;

// Sizes worked out by hand from shaders/cubes_common.wgsl and cubes_immediates.wgsl (WGSL
// §14.4.1):
//   PerObjectImmediates = 3 vec4f (48 bytes) + world mat4x4f at offset 48 (64 bytes) = 112;
//   PerObjectUniforms   = normalMatrix mat3x3f (3 columns of vec3f at a 16-byte stride: 48
//                         bytes) + world mat4x4f at offset 48 (64 bytes) = 112 bytes;
//   GlobalUniforms    = viewProjection mat4x4f (64) + vec3f at 64 + vec3f at 80, rounded up to
//                       its 16-byte alignment = 96 bytes.
constexpr uint64_t kPerObjectBytes = 112;
constexpr uint64_t kGlobalBytes = 96;

// Lavapipe's Vulkan driver offers wgpu-native's Immediates (maxImmediateSize 256, from its 256
// bytes of push constants), so on lavapipe the immediates tests must run, not skip, with
// wgpu-native. Dawn has immediates in core webgpu.h and offers them there too, but with a
// maxImmediateSize of its own (below the 112 bytes per object on lavapipe): then the strategy
// must say so, naming the limit and the device's value, and the image tests skip with that reason.
bool on_lavapipe_vulkan() {
  const AdapterDescription& a = shared_device().adapter();
  return a.backend == "vulkan" && a.name.find("llvmpipe") != std::string::npos;
}

void require_immediates() {
  if (!on_lavapipe_vulkan()) return;
  ASSERT_TRUE(shared_device().has_immediates());
  const uint32_t limit = shared_device().limits().maxImmediateSize;
  if (shared_device().adapter().implementation == "dawn" && limit < kPerObjectBytes) {
    const auto why =
        strategy_unavailable(shared_device(), make_cube_scene({.objects = 1}), "immediates");
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("maxImmediateSize (" + std::to_string(limit) + ")"), std::string::npos)
        << *why;
    return;
  }
  ASSERT_GE(limit, kPerObjectBytes);
}

std::set<uint32_t> used_materials(const Scene& scene) {
  std::set<uint32_t> used;
  for (const Object& obj : scene.objects) used.insert(obj.material);
  return used;
}

// Background of the cube scene: clear colour 0.3 in 8-bit unorm = round(76.5), 76 or 77.
constexpr uint8_t kBackground[3] = {77, 77, 77};

// Renders 300 cubes at a frozen time with dynamic-offsets and with immediates on `device`: the
// same values through the same functions in the same order give the same image.
void expect_image_of_dynamic_offsets(const Device& device, const std::string& tag) {
  const Scene scene = make_cube_scene({.objects = 300, .seed = 7});
  RenderOptions o = frozen("dynamic-offsets", 192, 144, 2, 3.25f);
  const RenderReport dyn = render(device, scene, o);
  o.strategy = "immediates";
  const RenderReport imm = render(device, scene, o);
  ASSERT_TRUE(dyn.last_frame && imm.last_frame);
  // The comparison proves something only if cubes cover a good part of the view.
  const auto box = foreground_box(*dyn.last_frame, kBackground, 2);
  ASSERT_TRUE(box.has_value());
  EXPECT_GT(box->x1 - box->x0, 192u / 3);
  EXPECT_GT(box->y1 - box->y0, 144u / 3);
  EXPECT_LE(max_channel_difference(*dyn.last_frame, *imm.last_frame), 1u) << tag;
  dump_on_failure("dynamic_vs_immediates_" + tag, *dyn.last_frame, *imm.last_frame);
  // And the frame was drawn through immediates: one setImmediates per draw.
  EXPECT_EQ(imm.per_frame.set_immediates, 300u);
}

TEST(Immediates, RendersTheImageOfDynamicOffsets) {
  require_immediates();
  if (strategy_unavailable(shared_device(), make_cube_scene({.objects = 1}), "immediates"))
    GTEST_SKIP() << "immediates unavailable on " << shared_device().adapter().implementation << " / "
                 << shared_device().adapter().name << ": "
                 << *strategy_unavailable(shared_device(), make_cube_scene({.objects = 1}),
                                          "immediates");
  expect_image_of_dynamic_offsets(shared_device(), shared_device().adapter().backend);
}

// wgpu-native's GL backend emulates immediates with plain uniforms (where a mat3x3f member came
// out wrong: the reason PerObjectImmediates holds vec4f columns); the image must match there too.
TEST(Immediates, RendersTheImageOfDynamicOffsetsOnGl) {
  std::optional<Device> gl;
  try {
    gl.emplace(Device::create({.backend = Backend::gl, .want_timestamp_query = false}));
  } catch (const Error& e) {
    GTEST_SKIP() << "no GL adapter: " << e.what();
  }
  if (strategy_unavailable(*gl, make_cube_scene({.objects = 1}), "immediates"))
    GTEST_SKIP() << "immediates unavailable on GL " << gl->adapter().name;
  expect_image_of_dynamic_offsets(*gl, "gl");
}

// 2000 cubes, every one moving: a frame uploads only GlobalUniforms (one writeBuffer of 96
// bytes), whatever the object count; each draw carries its 112 bytes as immediate data.
// setBindGroup = 1 (frame) + one per material used; bind groups created = the same set (no
// per-object group); dynamic-offsets on the same scene uploads 96 + 1999 strides + 112 bytes.
TEST(Immediates, NoWriteBufferBytesPerObject) {
  require_immediates();
  if (strategy_unavailable(shared_device(), make_cube_scene({.objects = 1}), "immediates"))
    GTEST_SKIP() << "immediates unavailable on " << shared_device().adapter().implementation << " / "
                 << shared_device().adapter().name << ": "
                 << *strategy_unavailable(shared_device(), make_cube_scene({.objects = 1}),
                                          "immediates");
  for (uint32_t objects : {2000u, 4000u}) {
    const Scene scene = make_cube_scene({.objects = objects, .seed = 3});
    const std::set<uint32_t> used = used_materials(scene);
    RenderOptions o;
    o.width = 16;
    o.height = 16;
    o.frames = 3;
    o.keep_last_frame = false;
    o.max_draws_per_pass = UINT32_MAX;
    o.strategy = "immediates";
    const RenderReport r = render(shared_device(), scene, o);
    EXPECT_EQ(r.per_frame.write_buffer_calls, 1u) << objects;
    EXPECT_EQ(r.per_frame.bytes_uploaded, kGlobalBytes) << objects;
    EXPECT_EQ(r.per_frame.set_immediates, objects);
    EXPECT_EQ(r.per_frame.immediate_bytes, objects * kPerObjectBytes);
    EXPECT_EQ(r.per_frame.draws, objects);
    EXPECT_EQ(r.per_frame.set_pipeline, 1u);
    EXPECT_EQ(r.per_frame.set_bind_group, 1u + used.size()) << objects;
    EXPECT_EQ(r.per_frame.bind_groups_created, 0u);
    EXPECT_EQ(r.per_frame.buffers_created, 0u);
    EXPECT_EQ(r.init.bind_groups_created, 1u + used.size());
    EXPECT_EQ(r.object_stride_bytes, 0u);  // no per-object buffer
    ASSERT_EQ(r.frames.size(), 3u);
    o.strategy = "dynamic-offsets";
    const RenderReport dyn = render(shared_device(), scene, o);
    EXPECT_EQ(dyn.per_frame.set_immediates, 0u);
    EXPECT_EQ(dyn.per_frame.bytes_uploaded,
              kGlobalBytes + (objects - 1) * dyn.object_stride_bytes + kPerObjectBytes);
  }
}

// Without required limits (the spec defaults) wgpu-native's device has maxImmediateSize 0: the
// strategy is unavailable, and render() says so with StrategyUnavailable before drawing.
TEST(Immediates, UnavailableWhereMaxImmediateSizeIsTooSmall) {
  DeviceOptions options;
  options.limits = LimitsRequest::spec_default;
  options.want_timestamp_query = false;
  const Device device = Device::create(options);
  ASSERT_LT(device.limits().maxImmediateSize, kPerObjectBytes);
  const Scene scene = make_cube_scene({.objects = 4});
  EXPECT_TRUE(strategy_unavailable(device, scene, "immediates").has_value());
  RenderOptions o;
  o.strategy = "immediates";
  o.width = o.height = 8;
  o.frames = 1;
  EXPECT_KIND(render(device, scene, o), StrategyUnavailable);
}

TEST(Immediates, CliRefusalIsOneLineExitOne) {
  const test::CliResult r = test::run_cli(
      "render --strategy immediates --limits default --objects 4 --frames 1 --size 8x8 --quiet",
      120);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(test::count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("bindery: error [StrategyUnavailable]"), std::string::npos) << r.err;
}

// setImmediates: offset and size multiples of 4 (webgpu.h; wgpu's IMMEDIATES_ALIGNMENT), the
// range within the device's maxImmediateSize; checked before the call reaches wgpu-native.
TEST(Immediates, EncoderStateChecksRangeAgainstTheDeviceLimit) {
  const Device& d = shared_device();
  const WGPUTextureFormat color = WGPUTextureFormat_RGBA8Unorm;
  WGPURenderBundleEncoderDescriptor desc = WGPU_RENDER_BUNDLE_ENCODER_DESCRIPTOR_INIT;
  desc.colorFormatCount = 1;
  desc.colorFormats = &color;
  gpu::RenderBundleEncoder encoder =
      gpu::RenderBundleEncoder::acquire(wgpuDeviceCreateRenderBundleEncoder(d.get(), &desc));
  RenderBundleState state(encoder.get(), d.counters(), IntruderPolicy::ignore, &d.limits());
  const uint32_t max = d.limits().maxImmediateSize;
  std::vector<std::byte> bytes(size_t(max) + 8);
  EXPECT_KIND(state.set_immediates(2, std::span(bytes).first(8)), InvalidArgument);
  EXPECT_KIND(state.set_immediates(0, std::span(bytes).first(6)), InvalidArgument);
  EXPECT_KIND(state.set_immediates(0, std::span(bytes).first(0)), InvalidArgument);
  EXPECT_KIND(state.set_immediates(0, std::span(bytes).first(size_t(max) + 4)),
              ImmediateSizeTooLarge);
  EXPECT_KIND(state.set_immediates(max, std::span(bytes).first(4)), ImmediateSizeTooLarge);
}

// The raw loop of --raw-floor issues what dynamic-offsets issues, counted per frame: for N
// cubes in one pass, 1 setPipeline, 1 + (materials used) + N setBindGroup (frame, one per
// material run of the material-sorted draws, one per object), 1 setVertexBuffer and 1
// setIndexBuffer (every cube shares one mesh), N drawIndexed; and the same two writeBuffers:
// GlobalUniforms (96 bytes) and the objects' range, (N - 1) strides + 112 bytes, the stride being
// 112 rounded up to the device's minUniformBufferOffsetAlignment.
// A small raw-floor measurement: 16x16, one measured frame, one thread for the matrices.
MeasureOptions small_raw_floor_options(uint32_t encode_threads) {
  MeasureOptions mo;
  mo.render.width = 16;
  mo.render.height = 16;
  mo.render.frames = 1;
  mo.render.threads = 1;
  mo.render.encode_threads = encode_threads;
  return mo;
}

TEST(RawFloor, RawLoopIssuesTheCallsOfDynamicOffsets) {
  const Device& d = shared_device();
  const MeasureOptions mo = small_raw_floor_options(1);
  const uint32_t n = 700;
  const RawFloorResult r = compare_raw_floor(d, mo, n, 2);
  const Scene scene = make_cube_scene({.objects = n, .seed = mo.seed, .spread = mo.spread});
  const uint64_t used = used_materials(scene).size();
  const uint64_t align = d.limits().minUniformBufferOffsetAlignment;
  const uint64_t stride = (kPerObjectBytes + align - 1) / align * align;
  for (const Counters* c : {&r.raw_per_frame, &r.bindery_per_frame}) {
    EXPECT_EQ(c->draws, n);
    EXPECT_EQ(c->set_pipeline, 1u);
    EXPECT_EQ(c->set_bind_group, 1u + used + n);
    EXPECT_EQ(c->set_vertex_buffer, 1u);
    EXPECT_EQ(c->set_index_buffer, 1u);
    EXPECT_EQ(c->write_buffer_calls, 2u);
    EXPECT_EQ(c->bytes_uploaded, kGlobalBytes + (n - 1) * stride + kPerObjectBytes);
  }
  EXPECT_EQ(r.objects, n);
  ASSERT_EQ(r.rounds.size(), 2u);
  for (const RawFloorRound& round : r.rounds) {
    EXPECT_GT(round.bindery_ns_per_draw, 0.0);
    EXPECT_GT(round.raw_ns_per_draw, 0.0);
  }
  EXPECT_KIND(compare_raw_floor(d, mo, n, 0), InvalidArgument);
  EXPECT_KIND(compare_raw_floor(d, mo, 0, 1), InvalidArgument);
}

// --raw-floor with --encode-threads 3: both sides split 700 draws into ranges of 234, 233 and
// 233 (the longer first), each its own command encoder and pass, so each range sets the pipeline,
// frame group, mesh buffers and its own materials once: the calls are worked out from the scene's
// materials in draw order (sorted by material), not taken from either side.
TEST(RawFloor, BothSidesSplitTheDrawsOnEncodeThreads) {
  const Device& d = shared_device();
  const MeasureOptions mo = small_raw_floor_options(3);
  const uint32_t n = 700;
  const RawFloorResult r = compare_raw_floor(d, mo, n, 2);
  const Scene scene = make_cube_scene({.objects = n, .seed = mo.seed, .spread = mo.spread});
  std::vector<uint32_t> materials;
  for (const Object& obj : scene.objects) materials.push_back(obj.material);
  std::sort(materials.begin(), materials.end());
  uint64_t material_binds = 0;
  for (const auto& [first, last] :
       {std::pair{0u, 234u}, std::pair{234u, 467u}, std::pair{467u, 700u}})
    material_binds +=
        std::set<uint32_t>(materials.begin() + first, materials.begin() + last).size();
  for (const Counters* c : {&r.raw_per_frame, &r.bindery_per_frame}) {
    EXPECT_EQ(c->draws, n);
    EXPECT_EQ(c->set_pipeline, 3u);
    EXPECT_EQ(c->set_bind_group, 3u + material_binds + n);
    EXPECT_EQ(c->set_vertex_buffer, 3u);
    EXPECT_EQ(c->set_index_buffer, 3u);
    EXPECT_EQ(c->write_buffer_calls, 2u);
  }
}

// Through the CLI: the dynamic-offsets row gains the raw floor (5 rounds), with the counted
// calls of both sides equal; --raw-floor without dynamic-offsets is one InvalidArgument line.
TEST(RawFloor, BenchCliReportsBothSidesAndTheirCalls) {
  const test::CliResult r = test::run_cli(
      "bench --strategies dynamic-offsets --raw-floor --size 1x1 --start 64 --max 64 --frames 3 "
      "--threads 1",
      600);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  const auto j = nlohmann::json::parse(last);
  ASSERT_EQ(j["results"].size(), 1u);
  const auto& floor = j["results"][0]["raw_floor"];
  EXPECT_EQ(floor["objects"], 64);
  EXPECT_EQ(floor["rounds"].size(), 5u);
  EXPECT_GT(floor["raw_ns_per_draw"].get<double>(), 0.0);
  EXPECT_GT(floor["bindery_ns_per_draw"].get<double>(), 0.0);
  EXPECT_EQ(floor["raw_calls_per_frame"], floor["bindery_calls_per_frame"]);
  EXPECT_EQ(floor["raw_calls_per_frame"]["draws"], 64);
  EXPECT_NE(r.out.find("raw ns"), std::string::npos) << r.out;  // the table's extra columns

  const test::CliResult bad = test::run_cli("bench --strategies naive --raw-floor", 60);
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_EQ(test::count_lines(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find("bindery: error [InvalidArgument]"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace bindery
