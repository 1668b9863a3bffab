// SPDX-License-Identifier: MIT
// Device tests of the renderer (lavapipe on CPU-only machines): strategies render the same image,
// counters match the arithmetic of each strategy, the glTF scene lands where the camera puts it.
#include <bindery/core/device.hpp>
#include <bindery/encode/draw_list.hpp>
#include <bindery/data/dynamic_uniform_buffer.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/device.hpp"
#include "support/images.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace bindery {
namespace {

using test::shared_device;
using test::dump_on_failure;

// Options for a small render of `width` x `height` pixels and `frames` frames with the default
// strategy; the last frame is read back unless `keep_last_frame` is false (counter tests).
RenderOptions small_render(uint32_t width, uint32_t height, uint32_t frames,
                           bool keep_last_frame = true) {
  RenderOptions o;
  o.width = width;
  o.height = height;
  o.frames = frames;
  o.keep_last_frame = keep_last_frame;
  return o;
}

// Background of the cube scene: clear colour (0.3, 0.3, 0.3) in 8-bit unorm = round(76.5) = 77
// (0.3 * 255 = 76.5; GPUs may round either way, so the tolerance below covers 76 and 77).
constexpr uint8_t kBackground[3] = {77, 77, 77};

TEST(RenderDevice, NaiveAndDynamicOffsetsRenderTheSameImage) {
  const Scene scene = make_cube_scene({.objects = 300, .seed = 7});
  RenderOptions o = small_render(192, 144, 2);
  o.time_s = 3.25f;
  o.strategy = "naive";
  const RenderReport naive = render(shared_device(), scene, o);
  o.strategy = "dynamic-offsets";
  const RenderReport dyn = render(shared_device(), scene, o);
  o.strategy = "storage-instancing";
  const RenderReport storage = render(shared_device(), scene, o);
  o.strategy = "mapped-staging";
  const RenderReport staged = render(shared_device(), scene, o);
  o.strategy = "render-bundles";
  const RenderReport bundled = render(shared_device(), scene, o);  // frame 2 replays the bundle
  o.strategy = "gpu-culling";
  const RenderReport culled = render(shared_device(), scene, o);
  ASSERT_TRUE(naive.last_frame && dyn.last_frame && storage.last_frame && staged.last_frame &&
              bundled.last_frame && culled.last_frame);
  // The article's middle steps (issue 14) draw in object order like naive.
  for (const char* step : {"split-uniforms", "buffer-offsets", "buffer-offsets-mapped"}) {
    o.strategy = step;
    const RenderReport r = render(shared_device(), scene, o);
    ASSERT_TRUE(r.last_frame) << step;
    EXPECT_LE(max_channel_difference(*naive.last_frame, *r.last_frame), 1u) << step;
    dump_on_failure(std::string("naive_vs_") + step, *naive.last_frame, *r.last_frame);
  }
  // The image must contain cubes, or the comparison would prove nothing: 300 cubes of scale 2..10
  // within ~100 units of the origin cover a good part of the 192x144 view.
  const auto box = foreground_box(*naive.last_frame, kBackground, 2);
  ASSERT_TRUE(box.has_value());
  EXPECT_GT(box->x1 - box->x0, 192u / 3);
  EXPECT_GT(box->y1 - box->y0, 144u / 3);
  EXPECT_LE(max_channel_difference(*naive.last_frame, *dyn.last_frame), 1u);
  dump_on_failure("naive_vs_dynamic", *naive.last_frame, *dyn.last_frame);
  EXPECT_LE(max_channel_difference(*naive.last_frame, *storage.last_frame), 1u);
  dump_on_failure("naive_vs_storage", *naive.last_frame, *storage.last_frame);
  EXPECT_LE(max_channel_difference(*naive.last_frame, *staged.last_frame), 1u);
  dump_on_failure("naive_vs_staged", *naive.last_frame, *staged.last_frame);
  EXPECT_LE(max_channel_difference(*naive.last_frame, *bundled.last_frame), 1u);
  dump_on_failure("naive_vs_bundles", *naive.last_frame, *bundled.last_frame);
  EXPECT_LE(max_channel_difference(*naive.last_frame, *culled.last_frame), 1u);
  dump_on_failure("naive_vs_culled", *naive.last_frame, *culled.last_frame);
}

// A frame split into several render passes (the first clears, the rest load colour and depth)
// renders the same image as one pass: 100 draws at 7 per pass = ceil(100 / 7) = 15 passes.
TEST(RenderDevice, SplittingDrawsAcrossPassesKeepsTheImage) {
  const Scene scene = make_cube_scene({.objects = 100, .seed = 11});
  RenderOptions o = small_render(96, 72, 1);
  o.time_s = 2.0f;
  o.max_draws_per_pass = UINT32_MAX;
  const RenderReport one = render(shared_device(), scene, o);
  o.max_draws_per_pass = 7;
  const RenderReport split = render(shared_device(), scene, o);
  EXPECT_EQ(one.passes_per_frame, 1u);
  EXPECT_EQ(split.passes_per_frame, 15u);
  EXPECT_EQ(split.per_frame.draws, 100u);
  EXPECT_LE(max_channel_difference(*one.last_frame, *split.last_frame), 1u);
  dump_on_failure("one_pass_vs_split", *one.last_frame, *split.last_frame);
}

TEST(RenderDevice, DifferentTimesRenderDifferentImages) {
  // Guards the test above: the frozen time really changes the picture.
  const Scene scene = make_cube_scene({.objects = 100, .seed = 7});
  RenderOptions o = small_render(96, 72, 1);
  o.time_s = 1.0f;
  const RenderReport a = render(shared_device(), scene, o);
  o.time_s = 9.0f;
  const RenderReport b = render(shared_device(), scene, o);
  EXPECT_GT(count_differing_pixels(*a.last_frame, *b.last_frame, 8), 100u);
}

// 2000 cubes, 20 materials, dynamic offsets (issue 2 and 5 acceptance):
//   bind groups created = 1 (frame) + 20 (materials) + 1 (objects) = 22;
//   writeBuffer per frame: 1 (frame uniforms) + 1 (all objects moved) = 2 <= 3;
//   setBindGroup per frame = 1 + materials used + 2000 objects.
TEST(RenderDevice, DynamicOffsetCountersFor2000Cubes) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 3});
  std::set<uint32_t> used;
  for (const Object& obj : scene.objects) used.insert(obj.material);
  RenderOptions o = small_render(32, 32, 2, /*keep_last_frame=*/false);
  o.strategy = "dynamic-offsets";
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_LE(r.init.bind_groups_created, 1u + 20u + 1u);
  EXPECT_LE(r.per_frame.write_buffer_calls, 3u);
  EXPECT_EQ(r.per_frame.set_bind_group, 1u + used.size() + 2000u);
  EXPECT_EQ(r.per_frame.draws, 2000u);
  EXPECT_EQ(r.per_frame.set_pipeline, 1u);
  EXPECT_EQ(r.per_frame.bind_groups_created, 0u);
  EXPECT_EQ(r.per_frame.buffers_created, 0u);
}

// The naive strategy: per object one buffer, one bind group, one writeBuffer, one setBindGroup.
TEST(RenderDevice, NaiveCountersScaleWithObjects) {
  const Scene scene = make_cube_scene({.objects = 150, .seed = 3});
  RenderOptions o = small_render(16, 16, 2, /*keep_last_frame=*/false);
  o.strategy = "naive";
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_EQ(r.init.bind_groups_created, 150u);
  EXPECT_EQ(r.per_frame.write_buffer_calls, 150u);
  // Uniforms struct (seed 003): mat3x3f 48 + mat4x4f 64 + mat4x4f 64 + vec4f 16 + vec3f 16
  // (12 + 4 shared with...) -> offsets 0, 48, 112, 176, 192, 208, 220; size 224.
  EXPECT_EQ(r.per_frame.bytes_uploaded, 150u * 224u);
  EXPECT_EQ(r.per_frame.set_bind_group, 150u);
}

// Issue 4 acceptance: PerObjectUniforms = mat3x3f (48 bytes, columns padded to 16) + mat4x4f
// (64) = 112 bytes. Stride = align_to(112, device minUniformBufferOffsetAlignment).
// --moving 0.0015 of 2000 objects = ceil(3) objects move: at most 3 strides of object data
// plus the frame uniforms (GlobalUniforms: mat4x4f 64 + vec3f at 64 + vec3f at 80 -> 96 bytes).
// Storage + instancing: one draw per (material, mesh) batch; setBindGroup = frame + objects +
// one per material batch; the array stride is the natural 112 bytes (no alignment padding).
TEST(RenderDevice, StorageInstancingDrawsOncePerMaterial) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 3});
  std::set<uint32_t> used;
  for (const Object& obj : scene.objects) used.insert(obj.material);
  RenderOptions o = small_render(16, 16, 2, /*keep_last_frame=*/false);
  o.strategy = "storage-instancing";
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_EQ(r.per_frame.draws, used.size());
  EXPECT_EQ(r.per_frame.set_bind_group, 2u + used.size());
  EXPECT_EQ(r.object_stride_bytes, 112u);
  // Frame uniforms (96 bytes) + every object (2000 x 112) when all move.
  EXPECT_EQ(r.per_frame.bytes_uploaded, 96u + 2000u * 112u);
}

// Mapped staging: per-object data goes through one mapped block and copyBufferToBuffer; the only
// writeBuffer left is the frame uniforms (96 bytes). 2000 moving objects at the device stride
// are one contiguous copy (one chunk), and the block is recycled: no buffer is created per frame
// once the pool holds one (frame 0 creates it, frame 1 may need a second while the first maps).
TEST(RenderDevice, MappedStagingCopiesInsteadOfWriteBuffer) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 3});
  RenderOptions o = small_render(16, 16, 4, /*keep_last_frame=*/false);
  o.strategy = "mapped-staging";
  const RenderReport r = render(shared_device(), scene, o);
  const uint64_t stride = r.object_stride_bytes;
  EXPECT_EQ(r.per_frame.write_buffer_calls, 1u);
  EXPECT_EQ(r.per_frame.copy_buffer_to_buffer, 1u);
  EXPECT_EQ(r.per_frame.bytes_uploaded, 96u + 2000u * stride);
  EXPECT_EQ(r.per_frame.buffers_created, 0u);
  std::set<uint32_t> used;
  for (const Object& obj : scene.objects) used.insert(obj.material);
  EXPECT_EQ(r.per_frame.set_bind_group, 1u + used.size() + 2000u);  // as dynamic-offsets
}

// The article's steps (issue 14) for 2,000 cubes of 20 materials, every object moving. From the
// definitions (object_groups.hpp): one bind group per object, nothing else bound, so
// setBindGroup = 2,000 and bind groups created = 2,000 at start, none per frame. The structs
// (WGSL §14.4.1): GlobalUniforms = mat4x4f 64 + vec3f @64 + vec3f @80 -> 96 bytes;
// PerObjectUniforms = mat3x3f 48 (three 16-byte columns) + mat4x4f 64 = 112 bytes.
uint64_t cube_stride() {
  const uint64_t align = shared_device().limits().minUniformBufferOffsetAlignment;
  return (112 + align - 1) / align * align;
}

// split-uniforms: writeBuffer = 1 (global) + 2,000 (one small buffer per object) = 2,001, bytes
// = 96 + 2,000 x 112 = 224,096 (naive: 2,000 x 224 = 448,000). Buffers: one per object + global
// + materials, i.e. 2,000 - 1 = 1,999 more than buffer-offsets' one large + global + materials.
TEST(RenderDevice, SplitUniformsCountersFor2000Cubes) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 3});
  RenderOptions o = small_render(16, 16, 2, /*keep_last_frame=*/false);
  o.strategy = "split-uniforms";
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_EQ(r.init.bind_groups_created, 2000u);
  EXPECT_EQ(r.per_frame.write_buffer_calls, 2001u);
  EXPECT_EQ(r.per_frame.bytes_uploaded, 224096u);
  EXPECT_EQ(r.per_frame.set_bind_group, 2000u);
  EXPECT_EQ(r.per_frame.draws, 2000u);
  EXPECT_EQ(r.per_frame.set_pipeline, 1u);
  EXPECT_EQ(r.per_frame.bind_groups_created, 0u);
  EXPECT_EQ(r.per_frame.buffers_created, 0u);
  EXPECT_EQ(r.object_stride_bytes, 0u);  // no shared per-object buffer
  o.strategy = "buffer-offsets";
  const RenderReport large = render(shared_device(), scene, o);
  EXPECT_EQ(r.init.buffers_created - large.init.buffers_created, 1999u);
}

// buffer-offsets: writeBuffer = 1 (global) + 1 (all objects, slot 0 to slot 1,999: 1,999 strides
// + the last object's 112 bytes, the article's (n - 1) x stride + size), stride =
// align_to(112, minUniformBufferOffsetAlignment).
TEST(RenderDevice, BufferOffsetsCountersFor2000Cubes) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 3});
  RenderOptions o = small_render(16, 16, 2, /*keep_last_frame=*/false);
  o.strategy = "buffer-offsets";
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_EQ(r.object_stride_bytes, cube_stride());
  EXPECT_EQ(r.init.bind_groups_created, 2000u);
  EXPECT_EQ(r.per_frame.write_buffer_calls, 2u);
  EXPECT_EQ(r.per_frame.bytes_uploaded, 96u + 1999u * cube_stride() + 112u);
  EXPECT_EQ(r.per_frame.set_bind_group, 2000u);
  EXPECT_EQ(r.per_frame.draws, 2000u);
  EXPECT_EQ(r.per_frame.copy_buffer_to_buffer, 0u);
  EXPECT_EQ(r.per_frame.bind_groups_created, 0u);
  EXPECT_EQ(r.per_frame.buffers_created, 0u);
}

// buffer-offsets-mapped: the only writeBuffer is the global one; the objects go through one
// mapped transfer buffer and 1 copyBufferToBuffer of the same 1,999 x stride + 112 bytes, then 1
// mapAsync returns the buffer to the pool. By frame 4 the pool holds enough buffers: none created.
TEST(RenderDevice, BufferOffsetsMappedCountersFor2000Cubes) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 3});
  RenderOptions o = small_render(16, 16, 4, /*keep_last_frame=*/false);
  o.strategy = "buffer-offsets-mapped";
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_EQ(r.object_stride_bytes, cube_stride());
  EXPECT_EQ(r.init.bind_groups_created, 2000u);
  EXPECT_EQ(r.per_frame.write_buffer_calls, 1u);
  EXPECT_EQ(r.per_frame.copy_buffer_to_buffer, 1u);
  EXPECT_EQ(r.per_frame.map_async, 1u);
  EXPECT_EQ(r.per_frame.bytes_uploaded, 96u + 1999u * cube_stride() + 112u);
  EXPECT_EQ(r.per_frame.set_bind_group, 2000u);
  EXPECT_EQ(r.per_frame.draws, 2000u);
  EXPECT_EQ(r.per_frame.bind_groups_created, 0u);
  EXPECT_EQ(r.per_frame.buffers_created, 0u);
}

// --moving 0.0015 of 2,000 = 3 objects (0, 1, 2) move after the first frame: split-uniforms
// writes 3 small buffers; buffer-offsets one range of 2 strides + 112 bytes; the mapped version
// copies those same bytes. Plus the 96 bytes of global uniforms in every case.
TEST(RenderDevice, ArticleStepsUploadOnlyTheMovedObjects) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 5});
  RenderOptions o = small_render(16, 16, 3, /*keep_last_frame=*/false);
  o.moving = 0.0015;
  o.strategy = "split-uniforms";
  const RenderReport split = render(shared_device(), scene, o);
  EXPECT_EQ(split.per_frame.write_buffer_calls, 1u + 3u);
  EXPECT_EQ(split.per_frame.bytes_uploaded, 96u + 3u * 112u);
  o.strategy = "buffer-offsets";
  const RenderReport offsets = render(shared_device(), scene, o);
  EXPECT_EQ(offsets.per_frame.write_buffer_calls, 2u);
  EXPECT_EQ(offsets.per_frame.bytes_uploaded, 96u + 2u * cube_stride() + 112u);
  o.strategy = "buffer-offsets-mapped";
  const RenderReport mapped = render(shared_device(), scene, o);
  EXPECT_EQ(mapped.per_frame.write_buffer_calls, 1u);
  EXPECT_EQ(mapped.per_frame.copy_buffer_to_buffer, 1u);
  EXPECT_EQ(mapped.per_frame.bytes_uploaded, 96u + 2u * cube_stride() + 112u);
}

// Render bundles: after the frame that records them, a frame encodes no setBindGroup, no
// setPipeline and no draw call; it replays one bundle per pass (1 pass here) and still uploads
// every moving object (the bundle binds the buffer, the data changes under it).
TEST(RenderDevice, RenderBundlesReplayWithoutEncodingDraws) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 3});
  RenderOptions o = small_render(16, 16, 3, /*keep_last_frame=*/false);
  o.max_draws_per_pass = UINT32_MAX;
  o.strategy = "render-bundles";
  const RenderReport r = render(shared_device(), scene, o);
  EXPECT_EQ(r.per_frame.execute_bundles, 1u);
  EXPECT_EQ(r.per_frame.set_bind_group, 0u);
  EXPECT_EQ(r.per_frame.set_pipeline, 0u);
  EXPECT_EQ(r.per_frame.draws, 2000u);            // executed from the bundle
  EXPECT_EQ(r.per_frame.write_buffer_calls, 2u);  // frame uniforms + all objects in one range
  EXPECT_EQ(r.per_frame.bytes_uploaded, 96u + 1999u * r.object_stride_bytes + 112u);
}

// GPU culling really culls: three unit cubes (bounding radius sqrt(3)), one at the origin (the
// camera's target), one 500 units behind the camera (the camera looks from (100,150,200) to the
// origin; the eye direction scaled past the eye), one 5000 units beyond the far plane (2000) in
// the view direction. Exactly one survives the frustum test, and the picture equals the
// storage-instancing one, which draws all three.
TEST(RenderDevice, GpuCullingDrawsOnlyWhatTheFrustumHolds) {
  Scene scene = make_cube_scene({.objects = 3, .seed = 1});
  const glm::vec3 eye(100.0f, 150.0f, 200.0f), dir = glm::normalize(-eye);
  const glm::vec3 places[3] = {glm::vec3(0.0f), eye - dir * 500.0f, eye + dir * 5000.0f};
  for (int i = 0; i < 3; ++i) {
    scene.objects[i].animated = false;
    scene.objects[i].placement =
        glm::translate(glm::mat4(1.0f), places[i]) * glm::scale(glm::mat4(1.0f), glm::vec3(10.0f));
  }
  RenderOptions o = small_render(64, 48, 1);
  o.strategy = "gpu-culling";
  const RenderReport culled = render(shared_device(), scene, o);
  ASSERT_TRUE(culled.visible_objects.has_value());
  EXPECT_EQ(*culled.visible_objects, 1u);
  o.strategy = "storage-instancing";
  const RenderReport all = render(shared_device(), scene, o);
  EXPECT_FALSE(all.visible_objects.has_value());
  EXPECT_LE(max_channel_difference(*culled.last_frame, *all.last_frame), 1u);
  EXPECT_TRUE(foreground_box(*culled.last_frame, kBackground, 2).has_value());
}

TEST(RenderDevice, MovingFewObjectsUploadsFewStrides) {
  const Scene scene = make_cube_scene({.objects = 2000, .seed = 5});
  RenderOptions o = small_render(16, 16, 3);
  o.moving = 0.0015f;
  o.keep_last_frame = false;
  const RenderReport r = render(shared_device(), scene, o);
  const uint64_t align = shared_device().limits().minUniformBufferOffsetAlignment;
  const uint64_t stride = (112 + align - 1) / align * align;
  EXPECT_EQ(r.object_stride_bytes, stride);
  EXPECT_LE(r.per_frame.bytes_uploaded, 3 * stride + 96);
  EXPECT_GE(r.per_frame.bytes_uploaded, 3 * 112 + 96);
}

// cases D02 (a): a device created without requiredLimits keeps minUniformBufferOffsetAlignment
// 256, so the same 112-byte object gets a 256-byte stride.
TEST(RenderDevice, SpecDefaultLimitsGive256Stride) {
  DeviceOptions d;
  d.limits = LimitsRequest::spec_default;
  const Device device = Device::create(d);
  ASSERT_EQ(device.limits().minUniformBufferOffsetAlignment, 256u);
  const Scene scene = make_cube_scene({.objects = 10, .seed = 5});
  RenderOptions o = small_render(8, 8, 1, /*keep_last_frame=*/false);
  EXPECT_EQ(render(device, scene, o).object_stride_bytes, 256u);
}

TEST(RenderDevice, RejectsBadSizesBeforeTouchingTheDevice) {
  const Scene scene = make_cube_scene({.objects = 1, .seed = 1});
  RenderOptions o;
  o.width = 0;
  o.height = 0;
  try {
    render(shared_device(), scene, o);
    FAIL() << "0x0 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TextureSizeOutOfRange);
  }
  o.width = shared_device().limits().maxTextureDimension2D + 1;
  o.height = 4;
  try {
    render(shared_device(), scene, o);
    FAIL() << "oversized target accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TextureSizeOutOfRange);
  }
}

const char* kEngine =
    "/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb";

// The glTF grid must appear where the camera puts it: project every object's AABB corners with the
// scene's view-projection to pixels (WebGPU NDC: x right, y up; framebuffer y down) and compare
// with the pixels that differ from the clear colour.
TEST(RenderDevice, GltfGridLandsWhereTheCameraPutsIt) {
  if (!std::filesystem::exists(kEngine)) GTEST_SKIP() << "assimp-testmodels not installed";
  const Scene scene = load_gltf_scene(kEngine, 4);
  RenderOptions o = small_render(160, 120, 1);
  const RenderReport r = render(shared_device(), scene, o);
  ASSERT_TRUE(r.last_frame);
  const glm::mat4 vp = scene.view.view_projection(160.0f / 120.0f);
  float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
  for (const Object& obj : scene.objects) {
    const Mesh& m = scene.meshes[obj.mesh];
    for (int c = 0; c < 8; ++c) {
      const glm::vec3 corner((c & 1) ? m.bounds_max.x : m.bounds_min.x,
                             (c & 2) ? m.bounds_max.y : m.bounds_min.y,
                             (c & 4) ? m.bounds_max.z : m.bounds_min.z);
      const glm::vec4 clip = vp * obj.placement * glm::vec4(corner, 1.0f);
      ASSERT_GT(clip.w, 0.0f) << "the camera must have the whole grid in front of it";
      const float px = (clip.x / clip.w * 0.5f + 0.5f) * 160.0f;
      const float py = (0.5f - clip.y / clip.w * 0.5f) * 120.0f;
      x0 = std::min(x0, px);
      x1 = std::max(x1, px);
      y0 = std::min(y0, py);
      y1 = std::max(y1, py);
    }
  }
  const auto box = foreground_box(*r.last_frame, kBackground, 2);
  ASSERT_TRUE(box.has_value()) << "nothing rendered";
  // The drawn pixels lie inside the projected box (1 px slack for rasterisation)...
  EXPECT_GE(float(box->x0), x0 - 1.0f);
  EXPECT_LE(float(box->x1), x1 + 1.0f);
  EXPECT_GE(float(box->y0), y0 - 1.0f);
  EXPECT_LE(float(box->y1), y1 + 1.0f);
  // ... and fill most of it (an AABB is larger than the engine's silhouette, not 2x larger).
  EXPECT_GT(float(box->x1 - box->x0), 0.5f * (x1 - x0));
  EXPECT_GT(float(box->y1 - box->y0), 0.5f * (y1 - y0));
}

// The article's steps on the glTF scene (many meshes, uint16/uint32 indices, glTF materials and
// textures) render what naive renders: both draw in object order with the same shading.
TEST(RenderDevice, GltfArticleStepsRenderLikeNaive) {
  if (!std::filesystem::exists(kEngine)) GTEST_SKIP() << "assimp-testmodels not installed";
  const Scene scene = load_gltf_scene(kEngine, 2);
  RenderOptions o = small_render(128, 96, 1);
  o.strategy = "naive";
  const RenderReport naive = render(shared_device(), scene, o);
  ASSERT_TRUE(naive.last_frame);
  ASSERT_TRUE(foreground_box(*naive.last_frame, kBackground, 2).has_value());
  for (const char* step : {"split-uniforms", "buffer-offsets", "buffer-offsets-mapped"}) {
    o.strategy = step;
    const RenderReport r = render(shared_device(), scene, o);
    ASSERT_TRUE(r.last_frame) << step;
    EXPECT_EQ(r.per_frame.draws, scene.objects.size()) << step;
    EXPECT_LE(max_channel_difference(*naive.last_frame, *r.last_frame), 1u) << step;
    dump_on_failure(std::string("gltf_naive_vs_") + step, *naive.last_frame, *r.last_frame);
  }
}

// BoxTextured (Khronos sample, in assimp-testmodels) maps the Cesium logo with texcoords u in 0..6,
// v in 0..1 through its sampler 0 (wrapS 33648 MIRRORED_REPEAT, wrapT 33071 CLAMP_TO_EDGE,
// minFilter 9986 NEAREST_MIPMAP_LINEAR, magFilter 9729 LINEAR): u must wrap, or every face samples
// the clamped white edge. The logo's blue (about rgb 100, 160, 220 before lighting) then shows up.
TEST(RenderDevice, GltfBaseColorTextureWrapsLikeGltfSamplers) {
  const char* model = "/usr/share/assimp/models/glTF2/BoxTextured-glTF/BoxTextured.gltf";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "assimp-testmodels not installed";
  const Scene scene = load_gltf_scene(model, 1);
  for (const Object& obj : scene.objects) {
    const SamplerData& s = scene.samplers[scene.materials[obj.material].sampler];
    ASSERT_EQ(s.address_mode_u, AddressMode::mirror_repeat);
    ASSERT_EQ(s.address_mode_v, AddressMode::clamp_to_edge);
    ASSERT_EQ(s.mag_filter, FilterMode::linear);
    ASSERT_EQ(s.min_filter, FilterMode::nearest);
    ASSERT_EQ(s.mipmap_filter, FilterMode::linear);
    ASSERT_TRUE(s.use_mipmaps);
  }
  RenderOptions o = small_render(128, 96, 1);
  const RenderReport r = render(shared_device(), scene, o);
  uint64_t blue = 0;
  for (uint32_t y = 0; y < r.last_frame->height; ++y)
    for (uint32_t x = 0; x < r.last_frame->width; ++x) {
      const uint8_t* p = r.last_frame->pixel(x, y);
      if (p[2] > p[0] + 40) ++blue;
    }
  EXPECT_GT(blue, 200u);
}

// render() checks the public Scene before making GPU objects from it (found by adversarial
// testing: these crashed or panicked inside wgpu-native before).
TEST(RenderDevice, BadScenesAreSceneInputErrors) {
  RenderOptions o = small_render(8, 8, 1);
  auto expect_kind = [&](const Scene& s, ErrorKind kind) {
    try {
      render(shared_device(), s, o);
      ADD_FAILURE() << "bad scene accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
    }
  };
  const Scene good = make_cube_scene({.objects = 4, .seed = 1});
  Scene s = good;
  s.objects[0].mesh = 999;
  expect_kind(s, ErrorKind::SceneInput);
  s = good;
  s.objects[0].material = 999;
  expect_kind(s, ErrorKind::SceneInput);
  s = good;
  s.materials[0].texture = 999;
  expect_kind(s, ErrorKind::SceneInput);
  s = good;
  s.materials[0].sampler = 1;  // the cube scene has one sampler
  expect_kind(s, ErrorKind::SceneInput);
  s = good;
  s.textures[0].mips.clear();
  expect_kind(s, ErrorKind::SceneInput);
  s = good;
  s.textures[0].width = 0;
  expect_kind(s, ErrorKind::TextureSizeOutOfRange);
  s = good;
  s.textures[0].width = shared_device().limits().maxTextureDimension2D + 1;
  expect_kind(s, ErrorKind::TextureSizeOutOfRange);
  s = good;
  s.meshes[0].indices[0] = 24;  // the cube has 24 vertices
  expect_kind(s, ErrorKind::SceneInput);
  o.strategy = "no-such-strategy";
  expect_kind(good, ErrorKind::InvalidArgument);
}

// The encoder-state wrappers refuse null handles and out-of-range group indices before
// wgpu-native sees them (it aborts the process on such calls).
TEST(DeviceChecks, EncoderStateRejectsNullHandlesAndBadGroups) {
  const Device& d = shared_device();
  const WGPUTextureFormat color = WGPUTextureFormat_RGBA8Unorm;
  WGPURenderBundleEncoderDescriptor desc = WGPU_RENDER_BUNDLE_ENCODER_DESCRIPTOR_INIT;
  desc.colorFormatCount = 1;
  desc.colorFormats = &color;
  gpu::RenderBundleEncoder encoder =
      gpu::RenderBundleEncoder::acquire(wgpuDeviceCreateRenderBundleEncoder(d.get(), &desc));
  RenderBundleState state(encoder.get(), d.counters(), IntruderPolicy::ignore, &d.limits());
  auto kind_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::Io;  // marker: accepted
  };
  EXPECT_EQ(kind_of([&] { state.set_pipeline(nullptr); }), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of([&] { state.set_vertex_buffer(0, nullptr); }), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of([&] { state.set_bind_group(0, nullptr); }), ErrorKind::InvalidArgument);
  DynamicUniformBufferDesc ud;
  ud.element_size = 16;
  ud.slot_count = 1;
  DynamicUniformBuffer ubo(d, ud);
  const uint32_t offset = 0;
  EXPECT_EQ(kind_of([&] {
              state.set_bind_group(d.limits().maxBindGroups, ubo.bind_group(0), {&offset, 1});
            }),
            ErrorKind::TooManyBindGroups);
}

// WebGPU §5.1.2 createBuffer rules checked before wgpu-native sees them.
TEST(DeviceChecks, BufferUsageRules) {
  const Device& d = shared_device();
  auto kind_of = [&](WGPUBufferUsage usage) {
    try {
      d.create_buffer("t", 16, usage);
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::Io;  // "no error" marker for the comparisons below
  };
  EXPECT_EQ(kind_of(WGPUBufferUsage_None), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of(WGPUBufferUsage(0xFFFFF)), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of(WGPUBufferUsage_MapRead | WGPUBufferUsage_Uniform), ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of(WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopyDst),
            ErrorKind::InvalidArgument);
  EXPECT_EQ(kind_of(WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst), ErrorKind::Io);
  gpu::Buffer no_copy_dst = d.create_buffer("t", 16, WGPUBufferUsage_Uniform);
  const uint32_t data[4] = {};
  try {
    d.write_buffer(no_copy_dst.get(), 0, data, sizeof(data));
    ADD_FAILURE() << "writeBuffer into a buffer without COPY_DST accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
  try {
    d.write_buffer(nullptr, 0, data, sizeof(data));
    ADD_FAILURE() << "writeBuffer into a null buffer accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace bindery
