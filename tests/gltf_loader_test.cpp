// The glTF loader on malformed files (no device needed): each ends in one ModelLoad / SceneInput /
// Io error instead of a crash, a hang or an out-of-bounds read. The files are built from one
// valid triangle (3 float3 positions + 3 uint16 indices in a 44-byte data-URI buffer) with one
// field broken each; the expected outcome follows from the glTF 2.0 rules named in each case.
#include "expect_kind.hpp"

#include <bindery/scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>

namespace bindery {
namespace {

using nlohmann::json;

json valid_triangle() {
  return json::parse(R"({
    "asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
                  {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}],
    "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
    "buffers": [{"byteLength": 44, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA="}]
  })");
}

std::string write_model(const std::string& name, const json& j) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("bindery_gltf_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << j.dump();
  return path.string();
}

std::string broken(const std::string& name, const std::function<void(json&)>& edit) {
  json j = valid_triangle();
  edit(j);
  return write_model(name, j);
}

TEST(GltfLoader, ValidTriangleLoads) {
  const Scene s = load_gltf_scene(write_model("ok.gltf", valid_triangle()), 4);
  ASSERT_EQ(s.meshes.size(), 1u);
  EXPECT_EQ(s.meshes[0].indices.size(), 3u);
  EXPECT_EQ(s.objects.size(), 4u);  // 4 instances x 1 primitive
}

// glTF 2.0 §3.6.2.4: a bufferView lies inside its buffer and an accessor's last element inside its
// bufferView. Offsets near 2^64 must not wrap around into "in bounds".
TEST(GltfLoader, OffsetsThatWrapAroundAreRejected) {
  EXPECT_KIND(load_gltf_scene(broken("bv_offset.gltf",
                                     [](json& j) {
                                       j["bufferViews"][0]["byteOffset"] = 18446744072635809792ull;
                                       j["bufferViews"][0]["byteLength"] = 1073741860ull;
                                     }),
                              1),
              ModelLoad);
  EXPECT_KIND(load_gltf_scene(broken("acc_offset.gltf",
                                     [](json& j) {
                                       j["accessors"][0]["byteOffset"] = 18446744073709551600ull;
                                     }),
                              1),
              ModelLoad);
  EXPECT_KIND(load_gltf_scene(broken("stride.gltf",
                                     [](json& j) {
                                       j["bufferViews"][0]["byteStride"] =
                                           4;  // < the 12-byte VEC3 element
                                     }),
                              1),
              ModelLoad);
}

// Two vertices make no whole triangle: nothing to draw is an error, not a 0-byte index buffer.
TEST(GltfLoader, NoWholeTriangleIsAnError) {
  EXPECT_KIND(load_gltf_scene(broken("two.gltf",
                                     [](json& j) {
                                       j["accessors"][0]["count"] = 2;
                                       j["meshes"][0]["primitives"][0].erase("indices");
                                     }),
                              1),
              ModelLoad);
}

// §3.5.3: node hierarchies are disjoint trees. 40 levels of "the same child twice" would expand
// to 2^40 draws; it must be rejected, not expanded.
TEST(GltfLoader, NodeWithTwoParentsIsRejected) {
  EXPECT_KIND(load_gltf_scene(broken("dag.gltf",
                                     [](json& j) {
                                       json nodes = json::array();
                                       for (int i = 0; i < 40; ++i)
                                         nodes.push_back({{"children", {i + 1, i + 1}}});
                                       nodes.push_back({{"mesh", 0}});
                                       j["nodes"] = nodes;
                                     }),
                              1),
              ModelLoad);
}

TEST(GltfLoader, DanglingReferencesAreErrors) {
  EXPECT_KIND(
      load_gltf_scene(
          broken("mat.gltf", [](json& j) { j["meshes"][0]["primitives"][0]["material"] = 9; }), 1),
      ModelLoad);
  EXPECT_KIND(load_gltf_scene(broken("scene.gltf", [](json& j) { j["scene"] = 5; }), 1), ModelLoad);
  EXPECT_KIND(load_gltf_scene(broken("ext.gltf",
                                     [](json& j) {
                                       j["extensionsUsed"] = {"KHR_draco_mesh_compression"};
                                       j["extensionsRequired"] = {"KHR_draco_mesh_compression"};
                                     }),
                              1),
              ModelLoad);
}

// Unsigned index types only (§3.7.2.1): SHORT (5122) is not allowed.
TEST(GltfLoader, SignedIndicesAreRejected) {
  EXPECT_KIND(
      load_gltf_scene(
          broken("signed.gltf", [](json& j) { j["accessors"][1]["componentType"] = 5122; }), 1),
      ModelLoad);
}

TEST(GltfLoader, InstanceCountIsCapped) {
  // 1 primitive x 20,000,000 instances > the 10,000,000 objects --objects allows.
  EXPECT_KIND(load_gltf_scene(write_model("cap.gltf", valid_triangle()), 20'000'000), SceneInput);
  EXPECT_KIND(load_gltf_scene(write_model("zero.gltf", valid_triangle()), 0), SceneInput);
}

TEST(GltfLoader, NotAFile) {
  EXPECT_KIND(load_gltf_scene("/nonexistent/model.glb", 1), Io);
  EXPECT_KIND(load_gltf_scene(std::filesystem::temp_directory_path().string(), 1), Io);
}

}  // namespace
}  // namespace bindery
