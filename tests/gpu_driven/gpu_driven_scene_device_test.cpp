// SPDX-License-Identifier: MIT
// Device tests of GpuDrivenScene (issue 28 section 1): the scene's one-call frame draws what the
// hand-written sequence of the parts draws (IndirectDraws + Culling, the objects' group made by
// hand, a compute pass and a render pass, as examples/gpu_driven.cpp did before the scene);
// occlusion culling on draws the image of occlusion off; the counts it reads back equal a count
// of the objects inside an orthographic view volume made on the CPU here; the objects' group is
// re-created after the object table grows, and the frame after it is still right.
#include <bindery/data/layout_builder.hpp>
#include <bindery/gpu_driven/culling.hpp>
#include <bindery/gpu_driven/gpu_driven_scene.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/gpu_driven/mesh_pool.hpp>
#include <bindery/gpu_driven/object_table.hpp>
#include <bindery/headless/offscreen.hpp>
#include <bindery/scene.hpp>

#include "support/device.hpp"
#include "support/expect_kind.hpp"
#include "support/images.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace bindery {
namespace {

using namespace gpu_driven;
using test::shared_device;

constexpr uint32_t kWidth = 96, kHeight = 64;

// The test's stages over the parts' declarations (group 0: frame uniform at 0, objects at 1,
// remap at 2): flat colour by material, darkened with depth.
constexpr const char* kStages = R"(
struct Frame { viewProjection: mat4x4f };
@group(0) @binding(0) var<uniform> frame: Frame;
struct Out { @builtin(position) position: vec4f, @location(0) @interpolate(flat) material: u32 };
@vertex fn vs(@location(0) p: vec3f, @builtin(instance_index) i: u32) -> Out {
  let o = objects[remap[i]];
  return Out(frame.viewProjection * vec4f(object_transform(o, p), 1.0), o.material);
}
@fragment fn fs(in: Out) -> @location(0) vec4f {
  var palette = array<vec3f, 4>(vec3f(1, 0, 0), vec3f(0, 1, 0), vec3f(0, 0, 1), vec3f(1, 1, 0));
  return vec4f(palette[in.material % 4u] * (1.0 - 0.5 * in.position.z), 1.0);
})";

// A box of half-width 1 about the origin (bounding sphere radius sqrt(3)).
Mesh unit_box() {
  Mesh m;
  m.name = "box";
  for (uint32_t c = 0; c < 8; ++c) {
    Vertex v;
    v.position = glm::vec3((c & 1) ? 1.0f : -1.0f, (c & 2) ? 1.0f : -1.0f, (c & 4) ? 1.0f : -1.0f);
    m.vertices.push_back(v);
  }
  m.indices = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
               2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
  m.bounds_min = glm::vec3(-1.0f);
  m.bounds_max = glm::vec3(1.0f);
  return m;
}

glm::mat4 at(glm::vec3 p, glm::vec3 scale = glm::vec3(1.0f)) {
  return glm::scale(glm::translate(glm::mat4(1.0f), p), scale);
}

// What every frame of these tests shares: the mesh pool, the frame uniform, the target, the
// object group's layout (the application's, as a shared layout would be) and the pipeline.
struct Rig {
  const Device& device;
  MeshPool pool;
  MeshId box;
  OffscreenTarget target;
  gpu::Buffer frame;
  gpu::BindGroupLayout layout;
  gpu::PipelineLayout pipeline_layout;
  gpu::ShaderModule module;
  gpu::RenderPipeline pipeline;

  explicit Rig(const Device& d)
      : device(d),
        pool(d, {.label = "scene test pool", .vertex_stride = sizeof(Vertex),
                 .initial_vertices = 64, .initial_indices = 64}),
        box(pool.add(unit_box())),
        target(d, {.width = kWidth, .height = kHeight,
                   .extra_depth_usage = WGPUTextureUsage_TextureBinding,
                   .label = "scene test target"}),
        frame(d.create_buffer("scene test frame", 64,
                              WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst)) {
    std::vector<WGPUBindGroupLayoutEntry> entries = layout_entries();
    layout = create_bind_group_layout(d, "scene test objects", entries);
    module = d.create_shader_module("scene test", IndirectDraws::object_wgsl(0, 1) + kStages);
    pipeline = make_pipeline(layout.get());
  }

  static std::vector<WGPUBindGroupLayoutEntry> layout_entries() {
    std::vector<WGPUBindGroupLayoutEntry> e = IndirectDraws::object_layout_entries(1);
    e.push_back(buffer_layout_entry(0, WGPUShaderStage_Vertex, WGPUBufferBindingType_Uniform));
    return e;
  }

  gpu::RenderPipeline make_pipeline(WGPUBindGroupLayout group0) {
    const WGPUBindGroupLayout layouts[] = {group0};
    pipeline_layout = create_pipeline_layout(device, layouts, "scene test");
    WGPURenderPipelineDescriptor pd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
    pd.layout = pipeline_layout.get();
    WGPUVertexAttribute position = {nullptr, WGPUVertexFormat_Float32x3, 0, 0};
    WGPUVertexBufferLayout vertex_layout = {nullptr, WGPUVertexStepMode_Vertex, sizeof(Vertex), 1,
                                            &position};
    pd.vertex = {nullptr, module.get(), gpu::sv("vs"), 0, nullptr, 1, &vertex_layout};
    WGPUColorTargetState color = {nullptr, target.color_format(), nullptr, WGPUColorWriteMask_All};
    WGPUFragmentState fs = {nullptr, module.get(), gpu::sv("fs"), 0, nullptr, 1, &color};
    pd.fragment = &fs;
    WGPUDepthStencilState depth = WGPU_DEPTH_STENCIL_STATE_INIT;
    depth.format = target.depth_format();
    depth.depthWriteEnabled = WGPUOptionalBool_True;
    depth.depthCompare = WGPUCompareFunction_Less;
    pd.depthStencil = &depth;
    return gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device.get(), &pd));
  }

  void set_view(const glm::mat4& vp) { device.write_buffer(frame.get(), 0, &vp, 64); }

  void submit(WGPUCommandEncoder encoder, ObjectTable& objects) {
    gpu::CommandBuffer commands = device.finish(encoder, "scene test frame");
    const WGPUCommandBuffer raw = commands.get();
    device.submit({&raw, 1});
    objects.after_submit();
    device.check();
  }
};

gpu::CommandEncoder new_encoder(const Device& device) {
  return gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
}

const WGPUColor kClear = {0.2, 0.3, 0.4, 1.0};

// The frame as an application wrote it before GpuDrivenScene (examples/gpu_driven.cpp then):
// frustum culling into indirect draws, the objects' group made by hand, one compute pass and one
// render pass.
Image draw_by_hand(Rig& rig, const std::vector<glm::mat4>& placements, const glm::mat4& vp) {
  ObjectTable objects(rig.device, {.label = "by hand objects", .initial_capacity = 256});
  for (size_t i = 0; i < placements.size(); ++i)
    objects.add(placements[i], rig.box, uint32_t(i % 4));
  IndirectDraws draws(rig.device, objects, rig.pool, {.label = "by hand draws"});
  Culling culling(rig.device, objects, rig.pool, draws, nullptr,
                  {.frustum = true, .occlusion = false});
  rig.set_view(vp);
  gpu::CommandEncoder encoder = new_encoder(rig.device);
  objects.flush(encoder.get());
  culling.prepare(vp);
  std::vector<WGPUBindGroupEntry> e = draws.object_group_entries(1);
  e.push_back(buffer_group_entry(0, rig.frame.get()));
  const gpu::BindGroup group = create_bind_group(rig.device, "by hand", rig.layout.get(), e);
  WGPUComputePassEncoder compute = wgpuCommandEncoderBeginComputePass(encoder.get(), nullptr);
  culling.phase1(compute);
  wgpuComputePassEncoderEnd(compute);
  wgpuComputePassEncoderRelease(compute);
  {
    gpu::RenderPassEncoder pass = rig.target.begin_render_pass(encoder.get(), kClear);
    const WGPUBindGroup groups[] = {group.get()};
    draws.draw(pass.get(), 0, {rig.pipeline.get(), groups}, rig.device.counters());
    wgpuRenderPassEncoderEnd(pass.get());
  }
  rig.submit(encoder.get(), objects);
  return read_back(rig.device, rig.target);
}

GpuDrivenSceneDesc scene_desc(Rig& rig, bool occlusion) {
  GpuDrivenSceneDesc d;
  d.label = "scene test";
  d.culling = {.frustum = true, .occlusion = occlusion};
  d.object_group = {.first_binding = 1,
                    .extra_entries = {buffer_group_entry(0, rig.frame.get())},
                    .layout = rig.layout.get()};
  d.depth = {rig.target.depth(), kWidth, kHeight};
  return d;
}

// One frame of `scene` through record_frame(), its image and counts.
Image draw_with_scene(Rig& rig, GpuDrivenScene& scene, ObjectTable& objects, const glm::mat4& vp,
                      WGPURenderPipeline pipeline, CullingStats* counts = nullptr) {
  rig.set_view(vp);
  const TargetPasses passes(rig.target.color_view(), rig.target.depth_view(), kClear);
  gpu::CommandEncoder encoder = new_encoder(rig.device);
  scene.record_frame(encoder.get(), vp, passes.passes(), [&](WGPURenderPassEncoder pass, ScenePhase) {
    const WGPUBindGroup groups[] = {scene.object_group()};
    scene.draws().draw(pass, 0, {pipeline, groups}, rig.device.counters());
  });
  rig.submit(encoder.get(), objects);
  if (counts) *counts = scene.read_counts();
  return read_back(rig.device, rig.target);
}

glm::mat4 perspective_view() {
  return glm::perspectiveRH_ZO(glm::radians(60.0f), float(kWidth) / kHeight, 0.5f, 200.0f) *
         glm::lookAtRH(glm::vec3(0, 6, 12), glm::vec3(0, 0, -10), glm::vec3(0, 1, 0));
}

// A grid of boxes, some of it outside the view.
std::vector<glm::mat4> grid_placements() {
  std::vector<glm::mat4> p;
  for (int z = 0; z < 8; ++z)
    for (int x = -8; x <= 8; ++x) p.push_back(at(glm::vec3(float(x) * 3, 0, -float(z) * 4)));
  return p;
}

bool skip(const Device& device) { return !device.has_indirect_first_instance(); }

TEST(GpuDrivenScene, DrawsTheImageOfTheHandWrittenSequence) {
  const Device& device = shared_device();
  if (skip(device)) GTEST_SKIP() << "no indirect-first-instance";
  Rig rig(device);
  const std::vector<glm::mat4> placements = grid_placements();
  const Image by_hand = draw_by_hand(rig, placements, perspective_view());

  ObjectTable objects(device, {.label = "scene objects", .initial_capacity = 256});
  for (size_t i = 0; i < placements.size(); ++i) objects.add(placements[i], rig.box, uint32_t(i % 4));
  GpuDrivenScene scene(device, objects, rig.pool, scene_desc(rig, false));
  const Image with_scene =
      draw_with_scene(rig, scene, objects, perspective_view(), rig.pipeline.get());
  EXPECT_EQ(count_differing_pixels(by_hand, with_scene, 0), 0u);
  test::dump_on_failure("GpuDrivenScene_hand_written", by_hand, with_scene);
  // Not a blank image, not a full one.
  uint32_t background = 0;
  for (uint32_t y = 0; y < kHeight; ++y)
    for (uint32_t x = 0; x < kWidth; ++x)
      if (with_scene.pixel(x, y)[0] == 51 && with_scene.pixel(x, y)[2] == 102) ++background;
  EXPECT_GT(background, 0u);
  EXPECT_LT(background, kWidth * kHeight);
}

// A wall in front of the left half of the grid: with occlusion culling the boxes behind it are
// not drawn from the second frame on (phase 1 draws last frame's visible ones), and the image is
// the one without occlusion culling in every frame.
TEST(GpuDrivenScene, OcclusionOnDrawsTheImageOfOcclusionOff) {
  const Device& device = shared_device();
  if (skip(device)) GTEST_SKIP() << "no indirect-first-instance";
  Rig rig(device);
  std::vector<glm::mat4> placements = grid_placements();
  placements.push_back(at(glm::vec3(-14, 2, 6), glm::vec3(14, 6, 0.5f)));  // the wall
  auto fill = [&](ObjectTable& t) {
    for (size_t i = 0; i < placements.size(); ++i) t.add(placements[i], rig.box, uint32_t(i % 4));
  };
  ObjectTable plain_objects(device, {.label = "no occlusion objects", .initial_capacity = 256});
  ObjectTable occluded_objects(device, {.label = "occlusion objects", .initial_capacity = 256});
  fill(plain_objects);
  fill(occluded_objects);
  GpuDrivenScene plain(device, plain_objects, rig.pool, scene_desc(rig, false));
  GpuDrivenScene occluded(device, occluded_objects, rig.pool, scene_desc(rig, true));
  ASSERT_NE(occluded.pyramid(), nullptr);
  EXPECT_EQ(plain.pyramid(), nullptr);
  CullingStats plain_counts, occluded_counts;
  for (int f = 0; f < 3; ++f) {
    SCOPED_TRACE("frame " + std::to_string(f));
    const glm::mat4 vp = perspective_view();
    const Image a = draw_with_scene(rig, plain, plain_objects, vp, rig.pipeline.get(), &plain_counts);
    const Image b =
        draw_with_scene(rig, occluded, occluded_objects, vp, rig.pipeline.get(), &occluded_counts);
    EXPECT_EQ(count_differing_pixels(a, b, 0), 0u);
    test::dump_on_failure("GpuDrivenScene_occlusion_frame" + std::to_string(f), a, b);
    EXPECT_EQ(occluded_counts.after_frustum, plain_counts.after_frustum);
  }
  // The wall hides boxes, so fewer pass the occlusion test than the frustum test.
  EXPECT_LT(occluded_counts.after_occlusion, occluded_counts.after_frustum);
  EXPECT_EQ(occluded_counts.drawn, occluded_counts.after_occlusion);
  EXPECT_EQ(plain_counts.drawn, plain_counts.after_frustum);
}

// Objects on a grid, some past the far plane, under glm::orthoRH_ZO(-10, 10, -8, 8, 0, 100):
// the box's sphere (radius sqrt(3)) is inside when it reaches into the volume on every axis.
TEST(GpuDrivenScene, CountsReadBackEqualACpuCount) {
  const Device& device = shared_device();
  if (skip(device)) GTEST_SKIP() << "no indirect-first-instance";
  Rig rig(device);
  const float r = std::sqrt(3.0f);
  const glm::mat4 vp = glm::orthoRH_ZO(-10.0f, 10.0f, -8.0f, 8.0f, 0.0f, 100.0f);
  ObjectTable objects(device, {.label = "count objects", .initial_capacity = 512});
  uint32_t inside = 0, live = 0;
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 11; ++j) {
      // x odd in [-29, 29] and y in [-15, 15] by 3: no sphere within 0.7 of a plane.
      const glm::vec3 p(float(2 * i - 29), float(3 * j - 15), (i + j) % 5 == 0 ? -150.0f : -50.0f);
      objects.add(at(p), rig.box, 0);
      ++live;
      if (std::abs(p.x) - r <= 10.0f && std::abs(p.y) - r <= 8.0f && -p.z - r <= 100.0f &&
          -p.z + r >= 0.0f)
        ++inside;
    }
  // 12 columns (|x| <= 11) x 7 rows (|y| <= 9), less those pushed past the far plane.
  ASSERT_GT(inside, 0u);
  ASSERT_LT(inside, 84u);
  GpuDrivenScene scene(device, objects, rig.pool, scene_desc(rig, false));
  EXPECT_EQ(scene.read_counts().objects, 0u) << "nothing recorded yet";
  CullingStats counts;
  draw_with_scene(rig, scene, objects, vp, rig.pipeline.get(), &counts);
  EXPECT_EQ(counts.objects, live);
  EXPECT_EQ(counts.after_frustum, inside);
  EXPECT_EQ(counts.after_occlusion, inside);  // occlusion off: nothing more culled
  EXPECT_EQ(counts.drawn, inside);
  EXPECT_EQ(counts.sub_draws, 1u);  // one mesh, one phase: one non-empty bin
}

// The table starts at 4 records; 40 objects added after the first frame make its flush replace
// the buffer, so the scene makes the objects' group again, and the frame draws what a table that
// never grew draws by hand. The scene's own layout here (extra_layout_entries), not the rig's.
TEST(GpuDrivenScene, ObjectGroupRebuiltAfterTheTableGrows) {
  const Device& device = shared_device();
  if (skip(device)) GTEST_SKIP() << "no indirect-first-instance";
  Rig rig(device);
  const std::vector<glm::mat4> placements = grid_placements();  // 136 boxes
  ObjectTable objects(device, {.label = "growing objects", .initial_capacity = 4});
  for (size_t i = 0; i < 3; ++i) objects.add(placements[i], rig.box, uint32_t(i % 4));
  GpuDrivenSceneDesc desc = scene_desc(rig, false);
  desc.object_group.layout = nullptr;
  desc.object_group.extra_layout_entries = {
      buffer_layout_entry(0, WGPUShaderStage_Vertex, WGPUBufferBindingType_Uniform)};
  GpuDrivenScene scene(device, objects, rig.pool, desc);
  ASSERT_NE(scene.object_layout(), nullptr);
  const gpu::RenderPipeline pipeline = rig.make_pipeline(scene.object_layout());
  EXPECT_EQ(scene.object_group_rebuilds(), 1u);
  CullingStats counts;
  draw_with_scene(rig, scene, objects, perspective_view(), pipeline.get(), &counts);
  EXPECT_EQ(scene.object_group_rebuilds(), 1u) << "nothing grew";
  const WGPUBuffer first_table = objects.buffer();

  for (size_t i = 3; i < placements.size(); ++i) objects.add(placements[i], rig.box, uint32_t(i % 4));
  const Image grown = draw_with_scene(rig, scene, objects, perspective_view(), pipeline.get(), &counts);
  EXPECT_NE(objects.buffer(), first_table) << "the table grew";
  EXPECT_EQ(scene.object_group_rebuilds(), 2u);
  EXPECT_EQ(counts.objects, placements.size());
  const Image by_hand = draw_by_hand(rig, placements, perspective_view());
  EXPECT_EQ(count_differing_pixels(by_hand, grown, 0), 0u);
  test::dump_on_failure("GpuDrivenScene_grown", by_hand, grown);
}

TEST(GpuDrivenScene, ErrorsNameTheirKind) {
  const Device& device = shared_device();
  if (skip(device)) GTEST_SKIP() << "no indirect-first-instance";
  Rig rig(device);
  ObjectTable objects(device, {.label = "error objects", .initial_capacity = 4});
  objects.add(glm::mat4(1.0f), rig.box, 0);
  auto make = [&](const GpuDrivenSceneDesc& d) { GpuDrivenScene s(device, objects, rig.pool, d); };
  GpuDrivenSceneDesc no_depth = scene_desc(rig, true);
  no_depth.depth = {};
  EXPECT_KIND(make(no_depth), InvalidArgument);
  GpuDrivenSceneDesc clash = scene_desc(rig, false);
  clash.object_group.extra_entries = {buffer_group_entry(2, rig.frame.get())};  // the remap's
  EXPECT_KIND(make(clash), InvalidArgument);
  GpuDrivenSceneDesc unpaired = scene_desc(rig, false);
  unpaired.object_group.layout = nullptr;  // one group entry, no layout entry for it
  EXPECT_KIND(make(unpaired), InvalidArgument);

  GpuDrivenScene occluded(device, objects, rig.pool, scene_desc(rig, true));
  const TargetPasses passes(rig.target.color_view(), rig.target.depth_view(), kClear);
  ScenePasses cleared = passes.passes();
  cleared.phase2 = cleared.phase1;  // phase 2 would clear phase 1's image
  gpu::CommandEncoder encoder = new_encoder(device);
  auto record = [&](const ScenePasses& p, const SceneDrawCallback& draw) {
    occluded.record_passes(encoder.get(), p, draw);
  };
  EXPECT_KIND(record(cleared, [](WGPURenderPassEncoder, ScenePhase) {}), InvalidArgument);
  EXPECT_KIND(record(passes.passes(), {}), InvalidArgument);
  EXPECT_KIND(occluded.set_depth_target({}), InvalidArgument);
  GpuDrivenSceneDesc no_counts = scene_desc(rig, false);
  no_counts.read_counts = false;
  GpuDrivenScene silent(device, objects, rig.pool, no_counts);
  EXPECT_KIND(silent.read_counts(), InvalidArgument);
  const DepthTargetDesc depth{rig.target.depth(), kWidth, kHeight};
  EXPECT_KIND(silent.set_depth_target(depth), InvalidArgument);
  // Nothing was recorded into the encoder: drop it unfinished.
}

}  // namespace
}  // namespace bindery
