// SPDX-License-Identifier: MIT
// Issue 9: the 46 models of Debian's assimp-testmodels glTF2 folder (valid, broken and exotic
// files from the Khronos samples, the glTF-Asset-Generator and assimp's bug reports). Each either
// loads and renders one 32x32 frame with the dynamic-offsets strategy on the device, or fails
// with one bindery::Error of a named kind: never another exception, never a crash.
#include <bindery/core/device.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include "support/device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace bindery {
namespace {

const char* kFolder = "/usr/share/assimp/models/glTF2";

using test::shared_device;

std::vector<std::string> sample_models() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kFolder))
    if (e.is_regular_file() && (e.path().extension() == ".gltf" || e.path().extension() == ".glb"))
      out.push_back(std::filesystem::relative(e.path(), kFolder).string());
  std::sort(out.begin(), out.end());
  return out;
}

Image render_32(const Scene& scene) {
  RenderOptions o;
  o.width = o.height = 32;
  o.frames = 1;
  o.strategy = "dynamic-offsets";
  return *render(shared_device(), scene, o).last_frame;
}

// The files that must fail, and how (from what each file is; the rest must load and render).
const std::map<std::string, ErrorKind> kExpectedErrors = {
    // extensionsRequired: KHR_draco_mesh_compression, KHR_technique_webgl.
    {"draco/2CylinderEngine.gltf", ErrorKind::UnsupportedExtension},
    {"BoxTextured-glTF-techniqueWebGL/BoxTextured.gltf", ErrorKind::UnsupportedExtension},
    // Positions with infinities; indices past the 24 vertices; a buffer file that is not there;
    // a node that is its own child; a default scene that does not exist; no node to draw.
    {"BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", ErrorKind::ModelLoad},
    {"IndexOutOfRange/AllIndicesOutOfRange.gltf", ErrorKind::ModelLoad},
    {"IndexOutOfRange/IndexOutOfRange.gltf", ErrorKind::ModelLoad},
    {"MissingBin/BoxTextured.gltf", ErrorKind::ModelLoad},
    {"SchemaFailures/sceneWrongType.gltf", ErrorKind::ModelLoad},
    {"RecursiveNodes/RecursiveNodes.gltf", ErrorKind::ModelLoad},
    {"TestNoRootNode/NoScene.gltf", ErrorKind::ModelLoad},
    {"TestNoRootNode/SceneWithoutNodes.gltf", ErrorKind::ModelLoad},
    {"wrongTypes/badArray.gltf", ErrorKind::ModelLoad},
    // A material field of the wrong JSON type: normalTexture.scale a string, pbrMetallicRoughness
    // an array (glTF 2.0 material schema: a number, an object).
    {"wrongTypes/badNumber.gltf", ErrorKind::ModelLoad},
    {"wrongTypes/badObject.gltf", ErrorKind::ModelLoad},
    // Material 4's base colour texture reads TEXCOORD_0, which its primitive does not have
    // (glTF 2.0 textureInfo.texCoord: the primitive must have it; assimp's crash case 3269).
    {"issue_3269/texcoord_crash.gltf", ErrorKind::ModelLoad},
    // Points, lines, line loops and line strips only (glTF-Asset-Generator Mesh_PrimitiveMode
    // 00-03 without indices, 07-10 with): nothing bindery draws.
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_00.gltf", ErrorKind::ModelLoad},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_01.gltf", ErrorKind::ModelLoad},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_02.gltf", ErrorKind::ModelLoad},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_03.gltf", ErrorKind::ModelLoad},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_07.gltf", ErrorKind::ModelLoad},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_08.gltf", ErrorKind::ModelLoad},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_09.gltf", ErrorKind::ModelLoad},
    {"glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_10.gltf", ErrorKind::ModelLoad},
};

// Rendering is skipped (loading is not) above this many indices, to keep the test short on
// lavapipe; none of the 46 is that large today.
constexpr uint64_t kMaxRenderedIndices = 5'000'000;

TEST(GltfSampleModels, EachLoadsAndRendersOrFailsWithANamedError) {
  if (!std::filesystem::exists(kFolder)) GTEST_SKIP() << "assimp-testmodels not installed";
  const std::vector<std::string> models = sample_models();
  EXPECT_EQ(models.size(), 46u);
  int rendered = 0;
  for (const std::string& name : models) {
    SCOPED_TRACE(name);
    const std::string path = std::string(kFolder) + "/" + name;
    const auto expected = kExpectedErrors.find(name);
    try {
      const Scene scene = load_gltf_scene(path, 1);
      EXPECT_EQ(expected, kExpectedErrors.end()) << "loaded, expected an error";
      uint64_t indices = 0;
      for (const Object& o : scene.objects) indices += scene.meshes[o.mesh].indices.size();
      if (indices > kMaxRenderedIndices) continue;
      const Image image = render_32(scene);
      // The camera frames the model's bounding sphere: it covers far more than 1/16 of the view.
      const uint8_t background[3] = {77, 77, 77};
      const auto box = foreground_box(image, background, 2);
      ASSERT_TRUE(box.has_value()) << "nothing drawn";
      EXPECT_GE((box->x1 - box->x0 + 1) * (box->y1 - box->y0 + 1), 64u);
      ++rendered;
    } catch (const Error& e) {
      ASSERT_NE(expected, kExpectedErrors.end()) << "unexpected error: " << e.what();
      EXPECT_EQ(e.kind(), expected->second) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "an exception that is not a bindery::Error: " << e.what();
    }
  }
  EXPECT_EQ(rendered, 46 - int(kExpectedErrors.size()));
}

// Mesh_PrimitiveMode 04, 05, 06, 11..15 draw one quad each as triangle strip, fan and list,
// indexed by 32-, 8- and 16-bit indices or not (the generator's README): all the same image.
TEST(GltfSampleModels, PrimitiveModesDrawTheSameQuad) {
  const std::string dir = std::string(kFolder) + "/glTF-Asset-Generator/Mesh_PrimitiveMode/";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "assimp-testmodels not installed";
  auto draw = [&](const char* n) {
    return render_32(load_gltf_scene(dir + "Mesh_PrimitiveMode_" + n + ".gltf", 1));
  };
  const Image triangles = draw("06");
  const uint8_t background[3] = {77, 77, 77};
  ASSERT_TRUE(foreground_box(triangles, background, 2).has_value());
  for (const char* n : {"04", "05", "11", "12", "13", "14", "15"})
    EXPECT_LE(max_channel_difference(draw(n), triangles), 1u) << "Mesh_PrimitiveMode_" << n;
}

}  // namespace
}  // namespace bindery
