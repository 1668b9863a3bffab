// SPDX-License-Identifier: MIT
// The glTF loader against hostile files (issue 18; ../shared/cases/hostile.md H1-H5, H12 and their
// relatives), no device needed. Every input is built here, in a fresh temporary folder tree:
//   ROOT/outside.bin, ROOT/outside_dir/o.bin           files a model must not reach
//   ROOT/models/sub/                                   the model's folder (tri.bin, images, links)
// What each case must do follows from the rules in README "What a model may load" and the glTF
// 2.0 specification: refused with the error kind named, or loaded with values worked out by hand.
#include "support/cli_runner.hpp"
#include "support/expect_kind.hpp"
#include "render/scenes/gltf_image.hpp"
#include "render/scenes/gltf_json.hpp"
#include "render/scenes/resource_resolver.hpp"

#include <bindery/scene.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <spng.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <sstream>

namespace bindery {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 3 float3 positions (0,0,0) (1,0,0) (0,1,0): 36 bytes, little-endian.
std::string triangle_bytes() {
  const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  return std::string(reinterpret_cast<const char*>(p), sizeof p);
}

std::string base64(const std::string& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= uint8_t(bytes[i + 2]);
    out += k[v >> 18 & 63];
    out += k[v >> 12 & 63];
    out += i + 1 < bytes.size() ? k[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? k[v & 63] : '=';
  }
  return out;
}

// One triangle: node 0 -> mesh 0 -> POSITION accessor 0 -> bufferView 0 -> buffer 0 (`uri`).
json triangle(const std::string& uri = "data:application/octet-stream;base64," +
                                       base64(triangle_bytes())) {
  return {{"asset", {{"version", "2.0"}}},
          {"scene", 0},
          {"scenes", {{{"nodes", {0}}}}},
          {"nodes", {{{"mesh", 0}}}},
          {"meshes", {{{"primitives", {{{"attributes", {{"POSITION", 0}}}}}}}}},
          {"accessors",
           {{{"bufferView", 0}, {"componentType", 5126}, {"count", 3}, {"type", "VEC3"}}}},
          {"bufferViews", {{{"buffer", 0}, {"byteLength", 36}}}},
          {"buffers", {{{"byteLength", 36}, {"uri", uri}}}}};
}

// The triangle with a base colour texture whose image has `uri` (material 0 uses texture 0) and
// the TEXCOORD_0 it reads (accessor 1: 3 zeros, no bufferView).
json textured(const std::string& image_uri) {
  json j = triangle();
  j["accessors"].push_back({{"componentType", 5126}, {"count", 3}, {"type", "VEC2"}});
  j["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = 1;
  j["images"] = {{{"uri", image_uri}}};
  j["textures"] = {{{"source", 0}}};
  j["materials"] = {{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}};
  j["meshes"][0]["primitives"][0]["material"] = 0;
  return j;
}

void write_file(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

// A fresh folder tree per test (see the file comment).
class Tree {
 public:
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "bindery_hostile_XXXXXX").string();
    root_ = mkdtemp(tmpl.data());
    write_file(root_ / "outside.bin", triangle_bytes());
    write_file(root_ / "outside_dir" / "o.bin", triangle_bytes());
    write_file(model_dir() / "tri.bin", triangle_bytes());
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  const fs::path& root() const { return root_; }
  fs::path model_dir() const { return root_ / "models" / "sub"; }
  std::string model(const std::string& name, const json& j) const {
    const fs::path p = model_dir() / name;
    write_file(p, j.dump());
    return p.string();
  }

 private:
  fs::path root_;
};

// Loads `path` and returns the error, failing the test when it loads.
Error load_error(const std::string& path, const GltfLoadOptions& options = {}) {
  try {
    load_gltf_scene(path, 1, options);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << path << " loaded";
  return Error(ErrorKind::Internal, "loaded");
}

// Records every path the loader's resource reading opens, for the life of the object.
class OpenRecorder {
 public:
  OpenRecorder() {
    set_resource_open_observer([this](const fs::path& p) { opened.push_back(p); });
  }
  ~OpenRecorder() { set_resource_open_observer({}); }
  std::vector<fs::path> opened;
};

// ---------------------------------------------------------------------------------------------
// H1 and relatives: resources only from the model's folder.

TEST(GltfHostile, H1BufferOutsideTheFolderIsRefusedAndNotOpened) {
  Tree t;
  const std::string outside = (t.root() / "outside.bin").string();
  const std::vector<std::string> uris = {
      "../../outside.bin",
      "%2e%2e/%2e%2e/outside.bin",  // percent-encoded dots
      "%2E%2E%2F%2E%2E%2Foutside.bin",  // and slashes
      "..%2f..%2foutside.bin",
      "./../../outside.bin",
      "tri.bin/../../../outside.bin",
      "..\\..\\outside.bin",          // backslashes
      "..%5c..%5coutside.bin",        // percent-encoded backslashes
      outside,                        // absolute
      "//" + outside,                 // network-path reference
      "file://" + outside,            // a scheme
      "/proc/self/environ",
      "tri.bin%00.png",               // NUL, percent-encoded
      "tri.bin%0a",                   // a newline
      std::string("tri\x1b[31m.bin"),  // a raw ANSI escape
      "%",                            // malformed escapes
      "tri%2.bin",
      "",
  };
  OpenRecorder recorder;
  for (const std::string& uri : uris) {
    const Error e = load_error(t.model("h1.gltf", triangle(uri)));
    EXPECT_TRUE(e.kind() == ErrorKind::ModelLoad) << uri << ": " << e.what();
    const std::string what = e.what();
    // One line, nothing raw from the URI, no resolved path, no size of a foreign file.
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
    EXPECT_EQ(what.find("requestedBytes"), std::string::npos) << what;
    if (uri.find(t.root().string()) == std::string::npos)
      EXPECT_EQ(what.find(t.root().string() + "/outside"), std::string::npos) << what;
  }
  EXPECT_TRUE(recorder.opened.empty()) << recorder.opened.front();
}

TEST(GltfHostile, ResourcesInsideLoadAndAreTheOnlyFilesOpened) {
  Tree t;
  fs::create_directories(t.model_dir() / "deeper");
  write_file(t.model_dir() / "deeper" / "t 2+.bin", triangle_bytes());
  fs::create_symlink("tri.bin", t.model_dir() / "link_in.bin");
  OpenRecorder recorder;
  for (const std::string uri :
       {"tri.bin", "./tri.bin", "deeper/../tri.bin", "%74ri.bin", "deeper/t%202+.bin",
        "link_in.bin"}) {
    recorder.opened.clear();
    const Scene s = load_gltf_scene(t.model("in.gltf", triangle(uri)), 1);
    ASSERT_EQ(s.meshes.size(), 1u) << uri;
    EXPECT_EQ(s.meshes[0].bounds_max, glm::vec3(1, 1, 0)) << uri;  // the triangle's corners
    ASSERT_EQ(recorder.opened.size(), 1u) << uri;
    const std::string dir = fs::canonical(t.model_dir()).string() + "/";
    EXPECT_EQ(recorder.opened[0].string().rfind(dir, 0), 0u) << recorder.opened[0];
  }
}

TEST(GltfHostile, SymbolicLinksOutOfTheFolderAreRefused) {
  Tree t;
  fs::create_symlink(t.root() / "outside.bin", t.model_dir() / "link_out.bin");
  fs::create_symlink("../../outside_dir", t.model_dir() / "dir_out");
  fs::create_symlink(t.root() / "missing.bin", t.model_dir() / "dangling_out.bin");
  OpenRecorder recorder;
  for (const std::string uri : {"link_out.bin", "dir_out/o.bin", "dangling_out.bin"})
    EXPECT_KIND(load_gltf_scene(t.model("link.gltf", triangle(uri)), 1), ModelLoad);
  EXPECT_TRUE(recorder.opened.empty());
}

// tinygltf looked in the current directory when a resource was missing beside the model.
TEST(GltfHostile, NoCurrentDirectoryFallback) {
  Tree t;
  const fs::path cwd_dir = t.root() / "cwd";
  write_file(cwd_dir / "only_here.bin", triangle_bytes());
  const std::string model = t.model("cwd.gltf", triangle("only_here.bin"));
  const fs::path before = fs::current_path();
  fs::current_path(cwd_dir);
  OpenRecorder recorder;
  EXPECT_KIND(load_gltf_scene(model, 1), ModelLoad);  // missing beside it: not read from "."
  fs::current_path(before);
  EXPECT_TRUE(recorder.opened.empty());
}

// Images: only those a material's base colour texture uses are opened; an unused image may
// even name a file outside (it is never looked at).
TEST(GltfHostile, OnlyUsedImagesAreOpened) {
  Tree t;
  json j = triangle("tri.bin");
  j["images"] = {{{"uri", "../../outside.bin"}}, {{"uri", "unused.png"}}};
  write_file(t.model_dir() / "unused.png", "not even a PNG");
  OpenRecorder recorder;
  const Scene s = load_gltf_scene(t.model("unused.gltf", j), 1);
  EXPECT_EQ(s.textures.size(), 1u);  // the white texture only
  ASSERT_EQ(recorder.opened.size(), 1u);
  EXPECT_EQ(recorder.opened[0], fs::canonical(t.model_dir() / "tri.bin"));
  // The same outside URI on a used image is refused.
  EXPECT_KIND(load_gltf_scene(t.model("used.gltf", textured("../../outside.bin")), 1), ModelLoad);
  EXPECT_EQ(recorder.opened.size(), 1u);
}

// ---------------------------------------------------------------------------------------------
// The resolver on its own: a generator of URIs against a real folder tree with links.

// An independent oracle for the resolver: RFC 3986 percent decoding and dot-segment removal,
// then POSIX realpath(); accepted when the result is a regular file strictly inside `dir`.
std::optional<fs::path> expected_resolution(const fs::path& dir, const std::string& uri) {
  std::string decoded;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      decoded += uri[i];
      continue;
    }
    if (i + 2 >= uri.size() || !std::isxdigit(uint8_t(uri[i + 1])) ||
        !std::isxdigit(uint8_t(uri[i + 2])))
      return std::nullopt;
    decoded += char(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  if (decoded.empty() || decoded[0] == '/') return std::nullopt;
  for (unsigned char c : decoded)
    if (c < 0x20 || c == 0x7f || c == '\\') return std::nullopt;
  const size_t colon = uri.find(':'), slash = uri.find('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon < slash) &&
      std::isalpha(uint8_t(uri[0])) &&
      uri.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.") ==
          colon)
    return std::nullopt;
  // A path ending in "/", "/." or "/.." names a folder (RFC 3986 §5.2.4 keeps the slash).
  const size_t last = decoded.rfind('/');
  const std::string tail = last == std::string::npos ? decoded : decoded.substr(last + 1);
  if (tail.empty() || tail == "." || tail == "..") return std::nullopt;
  std::vector<std::string> out;  // RFC 3986 §5.2.4 on the segments
  std::stringstream ss(decoded);
  for (std::string seg; std::getline(ss, seg, '/');) {
    if (seg == "." || seg.empty()) continue;
    if (seg == "..") {
      if (out.empty()) return std::nullopt;  // above the folder
      out.pop_back();
    } else {
      out.push_back(seg);
    }
  }
  std::string joined = dir.string();
  for (const std::string& s : out) joined += "/" + s;
  char buf[PATH_MAX];
  if (!realpath(joined.c_str(), buf)) return std::nullopt;
  const std::string real = buf;
  if (real.rfind(dir.string() + "/", 0) != 0) return std::nullopt;
  struct stat st {};
  if (stat(buf, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return fs::path(real);
}

std::string percent_encode(const std::string& s, std::mt19937& rng, bool all) {
  std::string out;
  for (char c : s) {
    if (all || rng() % 4 == 0) {
      char hex[4];
      std::snprintf(hex, sizeof hex, rng() % 2 ? "%%%02x" : "%%%02X", unsigned(uint8_t(c)));
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

TEST(GltfHostile, ResolverAcceptsExactlyTheFilesInsideTheFolder) {
  Tree t;
  const fs::path dir = fs::canonical(t.model_dir());
  write_file(dir / "a.bin", "a");
  write_file(dir / "x" / "b.bin", "b");
  write_file(dir / "x" / "y" / "c.bin", "c");
  write_file(dir / "sp ace+plus%.bin", "s");
  fs::create_symlink("x/b.bin", dir / "link_in.bin");
  fs::create_symlink("x", dir / "dir_in");
  fs::create_symlink(t.root() / "outside.bin", dir / "link_out.bin");
  fs::create_symlink(t.root() / "outside_dir", dir / "dir_out");
  fs::create_symlink("../..", dir / "x" / "up2");  // x/up2 is the folder above the model's
  fs::create_symlink("loop", dir / "loop");

  // Every file inside a plain relative URI names (percent-encoded or not) is accepted as itself.
  std::mt19937 rng(18);
  size_t inside = 0;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->symlink_status().type() != fs::file_type::regular) continue;
    const std::string rel = fs::relative(it->path(), dir).string();
    const std::string uri = percent_encode(rel, rng, rel.find_first_of(" +%") != rel.npos);
    EXPECT_EQ(resolve_model_resource(t.model_dir(), uri), it->path()) << uri;
    ++inside;
  }
  EXPECT_EQ(inside, 5u);  // tri.bin, a.bin, x/b.bin, x/y/c.bin, "sp ace+plus%.bin"

  // Random URIs: every accepted one is a regular file strictly inside the folder (by canonical
  // path), and accepted exactly when the oracle accepts it.
  const std::vector<std::string> parts = {
      "a.bin",  "x",         "y",        "b.bin",       "c.bin",   "..",         ".",
      "",       "link_in.bin", "dir_in", "link_out.bin", "dir_out", "o.bin",      "outside.bin",
      "up2",    "sub",       "models",   "loop",        "tri.bin", "\\",         "%00",
      "%",      "%zz",       "\x01",     "file:",       "data.bin", "sp ace+plus%25.bin"};
  size_t accepted = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string uri = rng() % 10 == 0 ? dir.string() + "/" : std::string();
    for (int k = 0, len = 1 + int(rng() % 5); k < len; ++k)
      uri += (k ? "/" : "") + parts[rng() % parts.size()];
    if (rng() % 3 == 0) uri = percent_encode(uri, rng, false);
    const std::optional<fs::path> want = expected_resolution(dir, uri);
    try {
      const fs::path got = resolve_model_resource(t.model_dir(), uri);
      ++accepted;
      EXPECT_TRUE(want.has_value()) << uri << " -> " << got;
      EXPECT_EQ(got, fs::canonical(got)) << uri;
      EXPECT_EQ(got.string().rfind(dir.string() + "/", 0), 0u) << uri << " -> " << got;
      EXPECT_TRUE(fs::is_regular_file(got)) << uri;
      if (want) EXPECT_EQ(got, *want) << uri;
    } catch (const Error& e) {
      EXPECT_FALSE(want.has_value()) << uri << ": " << e.what();
      EXPECT_TRUE(e.kind() == ErrorKind::ModelLoad || e.kind() == ErrorKind::Io) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  EXPECT_GT(accepted, 500u);  // the generator reaches both outcomes often
}

// ---------------------------------------------------------------------------------------------
// H2: nesting depth, measured before tinygltf recurses over the JSON.

std::string with_nested_extras(int levels, char open = '[', char close = ']') {
  json j = triangle();
  j["nodes"][0]["extras"] = 0;
  std::string text = j.dump();
  std::string nest = std::string(size_t(levels), open);
  if (open == '{') {  // {"a":{"a":...{}}}
    nest.clear();
    for (int i = 0; i < levels - 1; ++i) nest += "{\"a\":";
    nest += "{}" + std::string(size_t(levels - 1), '}');
  } else {
    nest += std::string(size_t(levels), close);
  }
  const size_t at = text.find("\"extras\":0");
  return text.replace(at, 10, "\"extras\":" + nest);
}

// The smallest GLB holding `json_text` (glTF 2.0 "Binary glTF Layout"; no BIN chunk).
std::string glb(std::string json_text) {
  while (json_text.size() % 4) json_text += ' ';
  auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  return "glTF" + u32(2) + u32(uint32_t(20 + json_text.size())) + u32(uint32_t(json_text.size())) +
         u32(0x4E4F534Au) + json_text;
}

TEST(GltfHostile, H2DeepNestingIsRefusedInOneLine) {
  Tree t;
  // Root object 1, nodes 2, node 3: `levels` arrays in extras make 3 + levels.
  const int fits = gltf::kMaxGltfJsonDepth - 3;
  EXPECT_EQ(gltf::json_nesting_depth(with_nested_extras(fits)), gltf::kMaxGltfJsonDepth);
  EXPECT_NO_THROW(load_gltf_scene(t.model("fits.gltf", json::parse(with_nested_extras(fits))), 1));
  for (int levels : {fits + 1, 16000, 1'000'000}) {
    write_file(t.model_dir() / "deep.gltf", with_nested_extras(levels));
    EXPECT_KIND(load_gltf_scene((t.model_dir() / "deep.gltf").string(), 1), ModelLoad);
    write_file(t.model_dir() / "deep.glb", glb(with_nested_extras(levels)));
    EXPECT_KIND(load_gltf_scene((t.model_dir() / "deep.glb").string(), 1), ModelLoad);
  }
  write_file(t.model_dir() / "deep_objects.gltf", with_nested_extras(16000, '{', '}'));
  EXPECT_KIND(load_gltf_scene((t.model_dir() / "deep_objects.gltf").string(), 1), ModelLoad);
  // Brackets inside strings (escaped quotes too) are not nesting.
  EXPECT_EQ(gltf::json_nesting_depth(R"({"a": "[[[{{\"[[", "b": [1]})"), 2);
  EXPECT_EQ(gltf::json_nesting_depth("3"), 0);
}

// ---------------------------------------------------------------------------------------------
// H3 and relatives: transforms and positions finite in float.

TEST(GltfHostile, H3TransformsThatOverflowFloatAreRefused) {
  Tree t;
  auto with_node = [&](const json& node) {
    json j = triangle();
    j["nodes"][0] = node;
    j["nodes"][0]["mesh"] = 0;
    return t.model("h3.gltf", j);
  };
  json matrix = {1e39, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  EXPECT_KIND(load_gltf_scene(with_node({{"matrix", matrix}}), 1), ModelLoad);
  EXPECT_KIND(load_gltf_scene(with_node({{"scale", {1e300, 1, 1}}}), 1), ModelLoad);
  EXPECT_KIND(load_gltf_scene(with_node({{"translation", {0, 1e300, 0}}}), 1), ModelLoad);
  EXPECT_KIND(load_gltf_scene(with_node({{"rotation", {1e300, 0, 0, 1}}}), 1), ModelLoad);
  // Finite in float, but the rotation matrix (2 x^2 = 2e60) is not.
  EXPECT_KIND(load_gltf_scene(with_node({{"rotation", {1e30, 0, 0, 1}}}), 1), ModelLoad);
  // Each node finite, the world matrix (1e30 * 1e30) not: the child is named.
  json j = triangle();
  j["nodes"] = {{{"scale", {1e30, 1e30, 1e30}}, {"children", {1}}},
                {{"scale", {1e30, 1e30, 1e30}}, {"mesh", 0}}};
  EXPECT_KIND(load_gltf_scene(t.model("world.gltf", j), 1), ModelLoad);
  // Translation 3e38 and scale 1e1: the bounds (3e38 + 10) are finite, the grid of 4 copies
  // spaced by 1.25 x the extent is too: loads. The same translation with bounds of 1e38 more
  // overflows and is refused.
  EXPECT_NO_THROW(load_gltf_scene(with_node({{"translation", {3e38, 0, 0}}}), 4));
  EXPECT_KIND(load_gltf_scene(with_node({{"translation", {3e38, 0, 0}}, {"scale", {1e38, 1, 1}}}),
                              1),
              ModelLoad);
}

std::string float_buffer_uri(const std::vector<float>& v) {
  return "data:application/octet-stream;base64," +
         base64(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
}

TEST(GltfHostile, PositionsWhoseExtentOverflowsAreRefused) {
  Tree t;
  json j = triangle(float_buffer_uri({-3e38f, 0, 0, 3e38f, 0, 0, 0, 1, 0}));
  EXPECT_KIND(load_gltf_scene(t.model("extent.gltf", j), 1), ModelLoad);
  // NaN in a float NORMAL (glTF 2.0: accessors hold no NaN or infinity).
  j = triangle(float_buffer_uri({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, NAN, 0, 1, 0, 0, 1}));
  j["buffers"][0]["byteLength"] = 72;
  j["bufferViews"][0]["byteLength"] = 72;
  j["accessors"].push_back(
      {{"bufferView", 0}, {"byteOffset", 36}, {"componentType", 5126}, {"count", 3}, {"type", "VEC3"}});
  j["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = 1;
  EXPECT_KIND(load_gltf_scene(t.model("nan.gltf", j), 1), ModelLoad);
  // Edges of 1e19 (finite extent, its flat normal computed without overflow): the camera framing
  // it would lie beyond kMaxWorldCoordinate (1e18), where the shaders' squared distances overflow.
  j = triangle(float_buffer_uri({-1e19f, -1e19f, 0, 1e19f, -1e19f, 0, -1e19f, 1e19f, 0}));
  EXPECT_KIND(load_gltf_scene(t.model("big.gltf", j), 1), ModelLoad);
  // Edges of 1e17: drawn, the triangle in the XY plane with normal (0, 0, 1).
  j = triangle(float_buffer_uri({-1e17f, -1e17f, 0, 1e17f, -1e17f, 0, -1e17f, 1e17f, 0}));
  const Scene s = load_gltf_scene(t.model("big17.gltf", j), 1);
  ASSERT_EQ(s.meshes.size(), 1u);
  for (const Vertex& v : s.meshes[0].vertices) EXPECT_EQ(v.normal, glm::vec3(0, 0, 1));
}

// ---------------------------------------------------------------------------------------------
// H4 and relatives: integer fields of integer type and in range (tinygltf wraps and drops them).

TEST(GltfHostile, H4IntegerFieldsOutOfRangeAreRefused) {
  Tree t;
  using Edit = std::function<void(json&)>;
  const std::vector<std::pair<std::string, Edit>> cases = {
      {"bufferViews[0].byteOffset", [](json& j) { j["bufferViews"][0]["byteOffset"] = -12; }},
      {"accessors[0].bufferView", [](json& j) { j["accessors"][0]["bufferView"] = -2; }},
      {"nodes[0].mesh", [](json& j) { j["nodes"][0]["mesh"] = 4294967296ll; }},
      {"scene", [](json& j) { j["scene"] = 4294967296ll; }},
      {"accessors[0].componentType",
       [](json& j) { j["accessors"][0]["componentType"] = 5126ll + (1ll << 32); }},
      {"accessors[0].count", [](json& j) { j["accessors"][0]["count"] = 3.5; }},
      {"accessors[0].count", [](json& j) { j["accessors"][0]["count"] = 3.0; }},
      {"accessors[0].byteOffset", [](json& j) { j["accessors"][0]["byteOffset"] = -4; }},
      {"accessors[0].bufferView", [](json& j) { j["accessors"][0]["bufferView"] = "0"; }},
      {"bufferViews[0].buffer", [](json& j) { j["bufferViews"][0]["buffer"] = 1; }},
      {"buffers[0].byteLength",
       [](json& j) { j["buffers"][0]["byteLength"] = 18446744073709551615ull; }},
      {"nodes[0].children[0]", [](json& j) { j["nodes"][0]["children"] = {-1}; }},
      {"nodes[0].children", [](json& j) { j["nodes"][0]["children"] = 1; }},
      {"scenes[0].nodes[0]", [](json& j) { j["scenes"][0]["nodes"] = {1}; }},
      {"meshes[0].primitives[0].attributes.POSITION",
       [](json& j) { j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 1; }},
      {"meshes[0].primitives[0].indices",
       [](json& j) { j["meshes"][0]["primitives"][0]["indices"] = -1; }},
      {"meshes[0].primitives[0].mode",
       [](json& j) { j["meshes"][0]["primitives"][0]["mode"] = 4ll + (1ll << 32); }},
      {"accessors[0].sparse.count",
       [](json& j) {
         j["accessors"][0]["sparse"] = {{"count", 4294967297ll},
                                        {"indices", {{"bufferView", 0}, {"componentType", 5121}}},
                                        {"values", {{"bufferView", 0}}}};
       }},
      {"materials[0].pbrMetallicRoughness.baseColorTexture.index",
       [](json& j) {
         j["materials"] = {{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}};
       }},
      {"materials[0].normalTexture.index",
       [](json& j) { j["materials"] = {{{"normalTexture", {{"index", -2}}}}}; }},
      {"bufferViews[0]",  // an image's view past its buffer's end
       [](json& j) {
         j["bufferViews"][0]["byteOffset"] = 4;
         j["images"] = {{{"bufferView", 0}, {"mimeType", "image/png"}}};
       }},
  };
  for (const auto& [field, edit] : cases) {
    json j = triangle();
    edit(j);
    const Error e = load_error(t.model("h4.gltf", j));
    EXPECT_EQ(e.kind(), ErrorKind::ModelLoad) << field << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();  // named
  }
  EXPECT_NO_THROW(load_gltf_scene(t.model("ok.gltf", triangle()), 1));
}

// ---------------------------------------------------------------------------------------------
// H5 and relatives: PNG and JPEG only, sizes from the header before decoding.

// A PNG of `w` x `h` pixels, `bit_depth` bits, colour type `type` (0 grey, 2 RGB, 6 RGBA), made
// with libspng row by row from `row(y)` (so a huge image needs one row of memory).
std::string make_png(uint32_t w, uint32_t h, uint8_t bit_depth, uint8_t type,
                     const std::function<std::vector<uint8_t>(uint32_t)>& row,
                     uint8_t interlace = 0) {
  std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(SPNG_CTX_ENCODER),
                                                     &spng_ctx_free);
  spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
  spng_ihdr ihdr{w, h, bit_depth, type, 0, 0, interlace};
  spng_set_ihdr(ctx.get(), &ihdr);
  if (interlace) {  // interlaced: the whole image at once
    std::vector<uint8_t> all;
    for (uint32_t y = 0; y < h; ++y) {
      const std::vector<uint8_t> r = row(y);
      all.insert(all.end(), r.begin(), r.end());
    }
    EXPECT_EQ(spng_encode_image(ctx.get(), all.data(), all.size(), SPNG_FMT_PNG,
                                SPNG_ENCODE_FINALIZE),
              0);
  } else {
    EXPECT_EQ(spng_encode_image(ctx.get(), nullptr, 0, SPNG_FMT_PNG,
                                SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE),
              0);
    for (uint32_t y = 0; y < h; ++y) {
      std::vector<uint8_t> r = row(y);
      const int rc = spng_encode_row(ctx.get(), r.data(), r.size());
      EXPECT_TRUE(rc == 0 || rc == SPNG_EOI) << spng_strerror(rc);
    }
  }
  size_t size = 0;
  int error = 0;
  std::unique_ptr<void, void (*)(void*)> out(spng_get_png_buffer(ctx.get(), &size, &error), &free);
  EXPECT_EQ(error, 0);
  return std::string(static_cast<const char*>(out.get()), size);
}

std::string data_uri(const std::string& type, const std::string& bytes) {
  return "data:" + type + ";base64," + base64(bytes);
}

TEST(GltfHostile, H5ImageSizesAreCheckedFromTheHeader) {
  Tree t;
  // A PNG whose IHDR claims 60000 x 60000 (its one row of data is all there is).
  const std::string h5 = make_png(60000, 1, 8, 0, [](uint32_t) {
    return std::vector<uint8_t>(60000, 0);
  });
  std::string claims = h5;
  const uint32_t be60000 = __builtin_bswap32(60000);
  std::memcpy(&claims[8 + 8 + 4], &be60000, 4);  // IHDR height (CRCs are not checked)
  write_file(t.model_dir() / "h5.png", claims);
  EXPECT_KIND(load_gltf_scene(t.model("h5.gltf", textured("h5.png")), 1), ModelLoad);
  // A JPEG whose frame header (SOF0) claims 20000 x 20000 grey pixels.
  std::string jpeg = "\xff\xd8\xff\xc0";
  jpeg += std::string("\x00\x0b\x08\x4e\x20\x4e\x20\x01\x01\x11\x00", 11);
  write_file(t.model_dir() / "h5.jpg", jpeg);
  EXPECT_KIND(load_gltf_scene(t.model("h5j.gltf", textured("h5.jpg")), 1), ModelLoad);
}

TEST(GltfHostile, OnlyPngAndJpegImagesAreDecoded) {
  Tree t;
  const std::string bmp = "BM" + std::string(60, '\0');
  const std::string gif = "GIF89a" + std::string(20, '\0');
  const std::string png = make_png(1, 1, 8, 6, [](uint32_t) {
    return std::vector<uint8_t>{10, 20, 30, 40};
  });
  EXPECT_EQ(gltf::image_format_name({reinterpret_cast<const uint8_t*>(bmp.data()), bmp.size()}),
            "BMP");
  EXPECT_EQ(gltf::image_format_name({reinterpret_cast<const uint8_t*>(gif.data()), gif.size()}),
            "GIF");
  EXPECT_KIND(load_gltf_scene(t.model("bmp.gltf", textured(data_uri("image/png", bmp))), 1),
              ModelLoad);
  EXPECT_KIND(load_gltf_scene(t.model("gif.gltf", textured(data_uri("image/png", gif))), 1),
              ModelLoad);
  write_file(t.model_dir() / "g.gif", gif);
  EXPECT_KIND(load_gltf_scene(t.model("gif2.gltf", textured("g.gif")), 1), ModelLoad);
  // A real PNG declared as something else (mimeType, or the data: URI's media type).
  json j = textured(data_uri("image/png", png));
  j["images"][0]["mimeType"] = "image/bmp";
  EXPECT_KIND(load_gltf_scene(t.model("mime.gltf", j), 1), ModelLoad);
  EXPECT_KIND(load_gltf_scene(t.model("gifuri.gltf", textured(data_uri("image/gif", png))), 1),
              ModelLoad);
  // The PNG itself loads, its one pixel as written.
  const Scene s = load_gltf_scene(t.model("png.gltf", textured(data_uri("image/png", png))), 1);
  ASSERT_EQ(s.textures.size(), 2u);
  EXPECT_EQ(s.textures[1].mips[0], (std::vector<uint8_t>{10, 20, 30, 40}));
  // An unused BMP is not decoded, so not refused.
  json unused = triangle();
  unused["images"] = {{{"uri", data_uri("image/bmp", bmp)}}};
  EXPECT_NO_THROW(load_gltf_scene(t.model("unused_bmp.gltf", unused), 1));
}

// 16-bit PNGs (plain and interlaced) scale each sample v to round(v * 255 / 65535); grey is
// replicated and a missing alpha is 255.
TEST(GltfHostile, SixteenBitPngsRoundEachSample) {
  Tree t;
  auto be16 = [](std::vector<uint16_t> v) {  // libspng's encoder takes host-order samples
    std::vector<uint8_t> out(v.size() * 2);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  };
  // 129 -> 0.502 -> 1; 1000 -> 3.89 -> 4; 32767 -> 127.498 -> 127; 65535 -> 255.
  for (uint8_t interlace : {0, 1}) {
    const std::string rgba = make_png(
        2, 1, 16, 6, [&](uint32_t) { return be16({129, 1000, 32767, 65535, 0, 65535, 257, 128}); },
        interlace);
    const Scene s = load_gltf_scene(t.model("p16.gltf", textured(data_uri("image/png", rgba))), 1);
    ASSERT_EQ(s.textures.size(), 2u);
    EXPECT_EQ(s.textures[1].mips[0], (std::vector<uint8_t>{1, 4, 127, 255, 0, 255, 1, 0}));
    const std::string grey = make_png(
        1, 2, 16, 0, [&](uint32_t y) { return be16({uint16_t(y ? 1000 : 129)}); }, interlace);
    const Scene g = load_gltf_scene(t.model("g16.gltf", textured(data_uri("image/png", grey))), 1);
    EXPECT_EQ(g.textures[1].mips[0], (std::vector<uint8_t>{1, 1, 1, 255, 4, 4, 4, 255}));
  }
}

// ---------------------------------------------------------------------------------------------
// H12: the decoded-bytes budget and the peak memory of one image.

TEST(GltfHostile, ImageBudgetCountsEveryUsedImageWithMips) {
  // 1024^2 with mips: 4 * (4^11 - 1) / 3 = 5,592,404 bytes; 16384^2: 4 * (4^15 - 1) / 3.
  EXPECT_EQ(gltf::rgba8_bytes_with_mips(1024, 1024), 5'592'404u);
  EXPECT_EQ(gltf::rgba8_bytes_with_mips(16384, 16384), 1'431'655'764u);
  EXPECT_EQ(gltf::rgba8_bytes_with_mips(3, 1), 4u * (3 + 1));  // 3x1, 1x1
  Tree t;
  const std::string png = make_png(1024, 1024, 8, 0, [](uint32_t) {
    return std::vector<uint8_t>(1024, 200);
  });
  write_file(t.model_dir() / "a.png", png);
  write_file(t.model_dir() / "b.png", png);
  json j = textured("a.png");
  j["images"].push_back({{"uri", "b.png"}});
  j["textures"].push_back({{"source", 1}});
  j["materials"].push_back({{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 1}}}}}});
  const std::string model = t.model("two.gltf", j);
  EXPECT_KIND(load_gltf_scene(model, 1, {.image_budget_bytes = 2 * 5'592'404 - 1}), ModelLoad);
  const Scene s = load_gltf_scene(model, 1, {.image_budget_bytes = 2 * 5'592'404});
  ASSERT_EQ(s.textures.size(), 3u);
  EXPECT_EQ(s.textures[2].mips.back(), (std::vector<uint8_t>{200, 200, 200, 255}));
}

TEST(GltfHostile, H12HugeGreyPngIsRefusedByDefaultAndDecodedWithinTwiceItsSize) {
  Tree t;
  constexpr uint32_t kSide = 16384;
  const std::string png = make_png(kSide, kSide, 8, 0, [](uint32_t y) {
    return std::vector<uint8_t>(kSide, uint8_t(y % 251));
  });
  EXPECT_LT(png.size(), 2u << 20);  // a small file
  write_file(t.model_dir() / "h12.png", png);
  const std::string model = t.model("h12.gltf", textured("h12.png"));
  // Default budget (1 GiB) < 1,431,655,764 bytes with mips: refused before decoding.
  EXPECT_KIND(load_gltf_scene(model, 1), ModelLoad);
  // Raised: decoded in a child process whose peak resident memory is measured.
  const uint64_t with_mips = gltf::rgba8_bytes_with_mips(kSide, kSide);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 0;
    try {
      const Scene s = load_gltf_scene(model, 1, {.image_budget_bytes = 2ull << 30});
      const std::vector<uint8_t>& level0 = s.textures.at(1).mips.at(0);
      const size_t last_row = size_t(kSide - 1) * kSide * 4;
      if (level0.size() != size_t(kSide) * kSide * 4 || level0[0] != 0 ||
          level0[last_row] != (kSide - 1) % 251 || level0[last_row + 3] != 255)
        code = 2;
    } catch (...) {
      code = 3;
    }
    _exit(code);
  }
  int status = 0;
  rusage usage{};
  ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const uint64_t peak = uint64_t(usage.ru_maxrss) * 1024;
  EXPECT_LT(peak, 2 * with_mips) << "peak " << peak / 1048576 << " MiB";
}

// The CLI: the budget flag is range-checked with the value typed named, and a model over the
// budget is one [ModelLoad] line.
TEST(GltfHostile, CliImageBudgetFlag) {
  Tree t;
  const std::string png = make_png(512, 512, 8, 0, [](uint32_t) {
    return std::vector<uint8_t>(512, 1);
  });
  write_file(t.model_dir() / "p.png", png);
  const std::string model = t.model("cli.gltf", textured("p.png"));
  test::CliResult r = test::run_cli("render --model " + model + " --image-budget-mib 0", 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("[InvalidArgument]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--image-budget-mib 0"), std::string::npos) << r.err;
  // 512^2 with mips is 1,398,100 bytes, more than 1 MiB.
  r = test::run_cli("render --model " + model + " --image-budget-mib 1 --frames 1 --size 8x8", 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("[ModelLoad]"), std::string::npos) << r.err;
  EXPECT_EQ(test::count_lines(r.err), 1u) << r.err;
}

// ---------------------------------------------------------------------------------------------
// The geometry budget (GltfLoadOptions::geometry_budget_bytes): decoded accessors (8 bytes a
// component, once each) plus built meshes (36-byte vertices, 4-byte indices), before allocating.

// Loads `path` expecting a ModelLoad error whose message names each of `names`.
void expect_refusal(const std::string& path, std::initializer_list<std::string> names,
                    const GltfLoadOptions& options = {}) {
  const Error e = load_error(path, options);
  EXPECT_EQ(e.kind(), ErrorKind::ModelLoad) << e.what();
  const std::string what = e.what();
  for (const std::string& n : names) EXPECT_NE(what.find(n), std::string::npos) << n << ": " << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
}

// The triangle's mesh 0 with `primitives` primitives, all reading POSITION accessor 0.
json shared_positions(int primitives) {
  json j = triangle();
  j["meshes"][0]["primitives"] = json::array();
  for (int i = 0; i < primitives; ++i)
    j["meshes"][0]["primitives"].push_back({{"attributes", {{"POSITION", 0}}}});
  return j;
}

TEST(GltfHostile, GeometryBudgetChargesEachAccessorOnceAndEveryMesh) {
  Tree t;
  // One primitive: accessor 0 = 3 VEC3 = 9 components x 8 = 72 bytes; its mesh without NORMAL
  // gets flat normals: 1 triangle = 3 vertices x 36 + 3 indices x 4 = 120 bytes. Total 192.
  const std::string one = t.model("one.gltf", shared_positions(1));
  EXPECT_NO_THROW(load_gltf_scene(one, 1, {.geometry_budget_bytes = 192}));
  expect_refusal(one, {"mesh 0 primitive 0", "geometry budget"}, {.geometry_budget_bytes = 191});
  // Three primitives sharing accessor 0: 72 once + 3 x 120 = 432 (decoded per primitive it
  // would be 3 x 192 = 576).
  const std::string three = t.model("three.gltf", shared_positions(3));
  const Scene s = load_gltf_scene(three, 1, {.geometry_budget_bytes = 432});
  EXPECT_EQ(s.meshes.size(), 3u);
  expect_refusal(three, {"mesh 0 primitive 2", "geometry budget"},
                 {.geometry_budget_bytes = 431});
  // Double-sided: vertices and indices doubled: 72 + 6 x 36 + 6 x 4 = 312.
  json two_sided = shared_positions(1);
  two_sided["materials"] = {{{"doubleSided", true}}};
  two_sided["meshes"][0]["primitives"][0]["material"] = 0;
  const std::string ds = t.model("ds.gltf", two_sided);
  EXPECT_NO_THROW(load_gltf_scene(ds, 1, {.geometry_budget_bytes = 312}));
  EXPECT_KIND(load_gltf_scene(ds, 1, {.geometry_budget_bytes = 311}), ModelLoad);
  // A count past the element limit (2^24) is refused as that, not as the budget it also exceeds
  // (whose advice, to raise the budget, would lead only to the limit).
  json claims = shared_positions(1);
  claims["accessors"][0]["count"] = 4000000000ll;
  expect_refusal(t.model("claims.gltf", claims),
                 {"mesh 0 primitive 0", "accessor 0", "16777216 elements per accessor"});
}

TEST(GltfHostile, GeometryBombIsRefusedBeforeAllocating) {
  Tree t;
  // The tester's bomb: POSITION of 16,777,216 zeros (no bufferView) in 3 primitives. Default
  // budget (1 GiB): the accessor (16,777,216 x 3 x 8 = 402,653,184) and primitive 0's mesh
  // (5,592,405 triangles: 16,777,215 x 36 + 16,777,215 x 4 = 671,088,600) fit, 1,073,741,784
  // <= 1,073,741,824; primitive 1's mesh does not.
  json bomb = shared_positions(3);
  bomb["accessors"][0] = {{"componentType", 5126}, {"count", 16777216}, {"type", "VEC3"}};
  const std::string path = t.model("bomb.gltf", bomb);
  EXPECT_EQ(GltfLoadOptions{}.geometry_budget_bytes, 1ull << 30);
  // With a 1 MiB budget primitive 0's mesh is refused before the accessor is decoded: measured
  // in a child process, whose peak memory stays far below the 384 MiB of the accessor.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 0;
    try {
      load_gltf_scene(path, 1, {.geometry_budget_bytes = 1 << 20});
      code = 2;
    } catch (const Error& e) {
      const std::string what = e.what();
      code = e.kind() == ErrorKind::ModelLoad && what.find("mesh 0 primitive 0") != what.npos &&
                     what.find("1.0 MiB") != what.npos
                 ? 0
                 : 3;
    }
    _exit(code);
  }
  int status = 0;
  rusage usage{};
  ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_LT(uint64_t(usage.ru_maxrss) * 1024, 256ull << 20);
}

TEST(GltfHostile, CliGeometryBudgetFlag) {
  Tree t;
  const std::string model = t.model("cli.gltf", shared_positions(1));
  test::CliResult r = test::run_cli("render --model " + model + " --geometry-budget-mib 0", 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("[InvalidArgument]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--geometry-budget-mib 0"), std::string::npos) << r.err;
  json bomb = shared_positions(3);
  bomb["accessors"][0] = {{"componentType", 5126}, {"count", 16777216}, {"type", "VEC3"}};
  const std::string big = t.model("bomb.gltf", bomb);
  r = test::run_cli("render --model " + big + " --geometry-budget-mib 1 --frames 1 --size 8x8", 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("[ModelLoad]"), std::string::npos) << r.err;
  EXPECT_EQ(test::count_lines(r.err), 1u) << r.err;
}

// ---------------------------------------------------------------------------------------------
// GLB layout (glTF 2.0 "Binary glTF Layout") and what tinygltf would otherwise word.

std::string u32le(uint32_t v) {
  return std::string(reinterpret_cast<const char*>(&v), 4);
}

TEST(GltfHostile, GlbHeaderAndChunksAreCheckedInBinderysWords) {
  Tree t;
  const std::string json_chunk = glb(triangle().dump()).substr(20);  // padded JSON
  auto file = [&](const std::string& name, const std::string& bytes) {
    write_file(t.model_dir() / name, bytes);
    return (t.model_dir() / name).string();
  };
  // Header lengths below 20 (header + the JSON chunk's header) no longer wrap around.
  for (uint32_t length : {0u, 12u, 19u})
    expect_refusal(file("len.glb", "glTF" + u32le(2) + u32le(length) +
                                       u32le(uint32_t(json_chunk.size())) + u32le(0x4E4F534Au) +
                                       json_chunk),
                   {"GLB header length " + std::to_string(length), "less than 20"});
  EXPECT_NO_THROW(load_gltf_scene(file("ok.glb", glb(triangle().dump())), 1));
  // An empty JSON chunk; a chunk after JSON that is not BIN; a BIN chunk past the end.
  expect_refusal(file("empty.glb", "glTF" + u32le(2) + u32le(20) + u32le(0) + u32le(0x4E4F534Au)),
                 {"JSON chunk", "empty"});
  const std::string head = glb(triangle().dump());
  const uint32_t with_bin = uint32_t(head.size() + 8 + 4);
  auto with_chunk = [&](uint32_t length, uint32_t type) {
    std::string b = head + u32le(length) + u32le(type) + std::string(4, '\0');
    b.replace(8, 4, u32le(with_bin));
    return b;
  };
  expect_refusal(file("btype.glb", with_chunk(4, 0x41414141u)), {"0x41414141", "not BIN"});
  expect_refusal(file("blen.glb", with_chunk(8, 0x004E4942u)), {"BIN chunk length 8"});
  // Buffer 0 without uri in a GLB without a BIN chunk; another buffer without uri.
  json no_uri = triangle();
  no_uri["buffers"][0].erase("uri");
  expect_refusal(file("nobin.glb", glb(no_uri.dump())), {"buffers[0]", "no BIN chunk"});
  expect_refusal(t.model("nouri.gltf", no_uri), {"buffers[0] has no uri"});
}

TEST(GltfHostile, BufferAndImageDataAreCheckedBeforeTinygltf) {
  Tree t;
  auto with = [](const std::function<void(json&)>& edit) {
    json j = triangle();
    edit(j);
    return j;
  };
  // 36 bytes encode to 48 base64 characters; byteLength 40 does not match.
  expect_refusal(t.model("len.gltf", with([](json& j) { j["buffers"][0]["byteLength"] = 40; })),
                 {"buffers[0].uri", "decodes to 36 bytes", "byteLength is 40"});
  expect_refusal(
      t.model("b64.gltf", with([](json& j) {
        j["buffers"][0]["uri"] = "data:application/octet-stream;base64,!!!!";
      })),
      {"buffers[0].uri", "not valid base64"});
  expect_refusal(t.model("nob64.gltf", with([](json& j) {
                           j["buffers"][0]["uri"] = "data:application/octet-stream,hello";
                         })),
                 {"buffers[0].uri", "base64"});
  // An external file of 36 bytes whose byteLength says 40.
  expect_refusal(t.model("file.gltf", with([](json& j) {
                           j["buffers"][0] = {{"uri", "tri.bin"}, {"byteLength", 40}};
                         })),
                 {"tri.bin", "36 bytes", "byteLength is 40"});
  // A data URI of a megabyte in a message is cut to 80 characters and "...".
  const Error big = load_error(t.model("big.gltf", with([](json& j) {
    j["buffers"][0]["uri"] = "data:application/octet-stream;base64," + std::string(1 << 20, 'A');
  })));
  EXPECT_LT(std::string(big.what()).size(), 400u) << big.what();
  EXPECT_NE(std::string(big.what()).find("AAAA..."), std::string::npos) << big.what();
  // So is a 5000-character file name (refused: no such file).
  const Error name = load_error(t.model("name.gltf", with([](json& j) {
    j["buffers"][0]["uri"] = std::string(5000, 'a');
  })));
  EXPECT_LT(std::string(name.what()).size(), 400u) << name.what();
  // Accessor type and componentType, byteStride (glTF 2.0: 4..252, a multiple of 4), asset.
  expect_refusal(t.model("type.gltf", with([](json& j) { j["accessors"][0]["type"] = "VEC7"; })),
                 {"accessors[0].type", "VEC7"});
  expect_refusal(
      t.model("ct.gltf", with([](json& j) { j["accessors"][0]["componentType"] = 5130; })),
      {"accessors[0].componentType", "5130"});
  for (int stride : {0, 2, 13, 256})
    expect_refusal(t.model("stride.gltf", with([&](json& j) {
                             j["bufferViews"][0]["byteStride"] = stride;
                           })),
                   {"bufferViews[0].byteStride", std::to_string(stride)});
  expect_refusal(t.model("asset.gltf", with([](json& j) { j.erase("asset"); })), {"\"asset\""});
  expect_refusal(
      t.model("bvlen.gltf", with([](json& j) { j["bufferViews"][0].erase("byteLength"); })),
      {"bufferViews[0].byteLength", "missing"});
  expect_refusal(
      t.model("v1.gltf", with([](json& j) { j["asset"]["version"] = "1.0"; })),
      {"asset.version", "1.0"});
  // An image with neither uri nor bufferView; a used image whose data: URI is not base64.
  json image = textured("data:image/png;base64,@@@@");
  expect_refusal(t.model("img.gltf", image), {"images[0].uri", "not valid base64"});
  image["images"][0] = json::object();
  expect_refusal(t.model("noimg.gltf", image), {"images[0]", "neither uri nor bufferView"});
}

TEST(GltfHostile, NoLibraryWordsInImageAndTextureErrors) {
  // A JPEG cut after its SOI and APP0 marker: stb_image's reason (from its last loader tried,
  // "bad png sig") is not passed on.
  const std::string cut("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00",
                        20);
  uint64_t used = 0;
  try {
    gltf::decode_gltf_image(std::span(reinterpret_cast<const uint8_t*>(cut.data()), cut.size()),
                            "image 0", 1 << 20, used);
    ADD_FAILURE() << "decoded";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("not a readable JPEG"), std::string::npos) << what;
    EXPECT_EQ(what.find("png"), std::string::npos) << what;
  }
  // A texture whose only source is KHR_texture_basisu: named, not "image -1".
  Tree t;
  json j = textured("data:image/png;base64,AAAA");
  j["textures"][0] = {{"extensions", {{"KHR_texture_basisu", {{"source", 0}}}}}};
  const Error e = load_error(t.model("basisu.gltf", j));
  EXPECT_NE(std::string(e.what()).find("KHR_texture_basisu"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).find("-1"), std::string::npos) << e.what();
}

// ---------------------------------------------------------------------------------------------
// Issue 25 (H4-07, H4-08, H4-09, point 8) and relatives: GLB chunks, sparse indices, declared
// image types, `normalized`, primitives without area, accessor count 0.

// A GLB of `doc` (buffer 0 without uri: the BIN chunk) followed by `chunks` (type, data) exactly
// as given: lengths as the data's size unless `lengths` overrides them, the header's length the
// bytes written.
std::string glb_chunks(json doc, const std::vector<std::pair<uint32_t, std::string>>& chunks,
                       const std::vector<int64_t>& lengths = {}) {
  doc["buffers"][0].erase("uri");
  std::string js = doc.dump();
  while (js.size() % 4) js += ' ';
  std::string body = u32le(uint32_t(js.size())) + u32le(0x4E4F534Au) + js;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const uint32_t length = i < lengths.size() && lengths[i] >= 0
                                ? uint32_t(lengths[i])
                                : uint32_t(chunks[i].second.size());
    body += u32le(length) + u32le(chunks[i].first) + chunks[i].second;
  }
  return "glTF" + u32le(2) + u32le(uint32_t(12 + body.size())) + body;
}

constexpr uint32_t kBin = 0x004E4942u, kJson = 0x4E4F534Au;

TEST(GltfHostile, H4_07GlbChunksWholeAlignedAndOneBin) {
  Tree t;
  auto file = [&](const std::string& name, const std::string& bytes) {
    write_file(t.model_dir() / name, bytes);
    return (t.model_dir() / name).string();
  };
  const std::string bin = triangle_bytes();  // 36 bytes: a multiple of 4
  // The control: one BIN chunk; an unknown chunk type after it is ignored (Binary glTF Layout:
  // "client implementations must ignore chunks with unknown types").
  EXPECT_NO_THROW(load_gltf_scene(file("ok.glb", glb_chunks(triangle(), {{kBin, bin}})), 1));
  EXPECT_NO_THROW(load_gltf_scene(
      file("extra.glb", glb_chunks(triangle(), {{kBin, bin}, {0x41414141u, "abcd"}})), 1));
  // H4-07: two BIN chunks (at byte 20 + JSON + 8 + 36 the second starts).
  const std::string two = glb_chunks(triangle(), {{kBin, bin}, {kBin, bin}});
  expect_refusal(file("two_bin.glb", two), {"GLB chunk 2", "second BIN chunk", "at most one BIN"});
  // Relatives: a BIN chunk third after an unknown one; a second JSON chunk.
  expect_refusal(file("bin_third.glb",
                      glb_chunks(triangle(), {{kBin, bin}, {0x41414141u, "abcd"}, {kBin, bin}})),
                 {"GLB chunk 3", "second BIN chunk"});
  expect_refusal(file("two_json.glb", glb_chunks(triangle(), {{kBin, bin}, {kJson, "{}  "}})),
                 {"GLB chunk 2", "second JSON chunk"});
  // A later chunk whose length runs past the end; one whose length is not a multiple of 4.
  expect_refusal(
      file("past.glb", glb_chunks(triangle(), {{kBin, bin}, {0x41414141u, "abcd"}}, {-1, 8})),
      {"GLB chunk 2 length 8", "runs past the GLB length"});
  expect_refusal(file("unaligned.glb", glb_chunks(triangle(), {{kBin, bin}, {0x41414141u, "abc"}})),
                 {"GLB chunk 2 length 3", "not a multiple of 4"});
  // 4 bytes after the BIN chunk: less than a chunk header.
  expect_refusal(file("tail.glb", glb_chunks(triangle(), {{kBin, bin + "abcd"}}, {36})),
                 {"4 bytes at byte", "fewer than a chunk's 8-byte header"});
  // A JSON chunk whose length is not a multiple of 4 (the JSON not padded).
  std::string js = triangle().dump();
  js.erase(js.find(",\"uri\""), js.find('"', js.find("base64,")) + 1 - js.find(",\"uri\""));
  while (js.size() % 4 != 1) js += ' ';
  const std::string unpadded = "glTF" + u32le(2) + u32le(uint32_t(20 + js.size())) +
                               u32le(uint32_t(js.size())) + u32le(kJson) + js;
  expect_refusal(file("json_unaligned.glb", unpadded),
                 {"JSON chunk length " + std::to_string(js.size()), "not a multiple of 4"});
}

// The triangle with accessor 0 sparse: `indices` of componentType `type` replace position i with
// (0.5 + i, 0.5, 0.5).
json sparse_triangle(const std::vector<uint32_t>& indices, int type) {
  std::string data = triangle_bytes();
  const size_t index_bytes = type == 5121 ? 1 : type == 5123 ? 2 : 4;
  std::string idx;
  for (uint32_t i : indices) idx += std::string(reinterpret_cast<const char*>(&i), index_bytes);
  while (idx.size() % 4) idx += '\0';
  std::string values;
  for (uint32_t i : indices) {
    const float v[3] = {0.5f + float(i), 0.5f, 0.5f};
    values += std::string(reinterpret_cast<const char*>(v), 12);
  }
  const size_t idx_at = data.size(), val_at = data.size() + idx.size();
  data += idx + values;
  json j = triangle("data:application/octet-stream;base64," + base64(data));
  j["buffers"][0]["byteLength"] = data.size();
  j["bufferViews"].push_back(
      {{"buffer", 0}, {"byteOffset", idx_at}, {"byteLength", indices.size() * index_bytes}});
  j["bufferViews"].push_back(
      {{"buffer", 0}, {"byteOffset", val_at}, {"byteLength", values.size()}});
  j["accessors"][0]["sparse"] = {{"count", indices.size()},
                                 {"indices", {{"bufferView", 1}, {"componentType", type}}},
                                 {"values", {{"bufferView", 2}}}};
  return j;
}

TEST(GltfHostile, H4_08SparseIndicesStrictlyIncrease) {
  Tree t;
  // The control: increasing indices, every index type; and the one index alone.
  for (int type : {5121, 5123, 5125}) {
    SCOPED_TRACE(type);
    const Scene s = load_gltf_scene(t.model("inc.gltf", sparse_triangle({0, 2}, type)), 1);
    EXPECT_EQ(s.meshes.at(0).vertices.at(2).position, glm::vec3(2.5f, 0.5f, 0.5f));  // replaced
    EXPECT_EQ(s.meshes.at(0).vertices.at(1).position, glm::vec3(1, 0, 0));           // kept
    EXPECT_NO_THROW(load_gltf_scene(t.model("one.gltf", sparse_triangle({1}, type)), 1));
    // Decreasing (H4-08's 5, 2, 9 in a 3-element accessor: 2, 0, 1), repeated, repeated first.
    expect_refusal(t.model("dec.gltf", sparse_triangle({2, 0, 1}, type)),
                   {"sparse index 1 = 0 is not greater than index 0 = 2", "strictly increase"});
    expect_refusal(t.model("rep.gltf", sparse_triangle({0, 1, 1}, type)),
                   {"sparse index 2 = 1 is not greater than index 1 = 1", "strictly increase"});
    expect_refusal(t.model("rep0.gltf", sparse_triangle({0, 0}, type)),
                   {"sparse index 1 = 0", "strictly increase"});
  }
}

TEST(GltfHostile, DeclaredImageTypeMatchesTheSignature) {
  Tree t;
  const std::string png = make_png(1, 1, 8, 6, [](uint32_t) {
    return std::vector<uint8_t>{10, 20, 30, 40};
  });
  // A JPEG's first bytes (SOI, APP0): enough for the signature check, which comes first.
  const std::string jpeg = std::string("\xff\xd8\xff\xe0", 4) + std::string(40, '\0');
  // PNG bytes in a data:image/jpeg URI; PNG bytes declared image/jpeg by mimeType; the reverse.
  expect_refusal(t.model("png_as_jpeg_uri.gltf", textured(data_uri("image/jpeg", png))),
                 {"image 0", "declared image/jpeg", "a PNG file"});
  json j = textured(data_uri("application/octet-stream", png));
  j["images"][0]["mimeType"] = "image/jpeg";
  expect_refusal(t.model("png_as_jpeg_mime.gltf", j), {"image 0", "declared image/jpeg", "PNG"});
  expect_refusal(t.model("jpeg_as_png_uri.gltf", textured(data_uri("image/png", jpeg))),
                 {"image 0", "declared image/png", "a JPEG file"});
  // mimeType and the data: URI's media type disagreeing.
  json both = textured(data_uri("image/png", png));
  both["images"][0]["mimeType"] = "image/jpeg";
  expect_refusal(t.model("disagree.gltf", both), {"image 0", "mimeType image/jpeg", "disagree"});
  // A GLB image in a bufferView declared image/jpeg holding PNG bytes.
  json view = triangle();
  std::string bin = triangle_bytes() + png;
  while (bin.size() % 4) bin += '\0';
  view["buffers"][0]["byteLength"] = bin.size();
  view["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", 36}, {"byteLength", png.size()}});
  view["accessors"].push_back({{"componentType", 5126}, {"count", 3}, {"type", "VEC2"}});
  view["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = 1;
  view["images"] = {{{"bufferView", 1}, {"mimeType", "image/jpeg"}}};
  view["textures"] = {{{"source", 0}}};
  view["materials"] = {{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}};
  view["meshes"][0]["primitives"][0]["material"] = 0;
  write_file(t.model_dir() / "view.glb", glb_chunks(view, {{kBin, bin}}));
  expect_refusal((t.model_dir() / "view.glb").string(), {"image 0", "declared image/jpeg", "PNG"});
  view["images"][0]["mimeType"] = "image/png";
  write_file(t.model_dir() / "view_ok.glb", glb_chunks(view, {{kBin, bin}}));
  EXPECT_NO_THROW(load_gltf_scene((t.model_dir() / "view_ok.glb").string(), 1));
  // The control: PNG bytes declared image/png, and declared only by an octet-stream URI.
  EXPECT_NO_THROW(load_gltf_scene(t.model("ok.gltf", textured(data_uri("image/png", png))), 1));
  EXPECT_NO_THROW(load_gltf_scene(
      t.model("octet.gltf", textured(data_uri("application/octet-stream", png))), 1));
}

TEST(GltfHostile, NormalizedOnlyOnByteAndShortAccessors) {
  Tree t;
  json f = triangle();
  f["accessors"][0]["normalized"] = true;  // FLOAT
  expect_refusal(t.model("float.gltf", f),
                 {"accessors[0].normalized is true for componentType 5126 (FLOAT)"});
  // UNSIGNED_INT indices, normalized.
  json u = triangle();
  const uint32_t idx[3] = {0, 1, 2};
  std::string data = triangle_bytes() + std::string(reinterpret_cast<const char*>(idx), 12);
  u["buffers"][0] = {{"byteLength", 48},
                     {"uri", "data:application/octet-stream;base64," + base64(data)}};
  u["bufferViews"].push_back({{"buffer", 0}, {"byteOffset", 36}, {"byteLength", 12}});
  u["accessors"].push_back({{"bufferView", 1},
                            {"componentType", 5125},
                            {"count", 3},
                            {"type", "SCALAR"},
                            {"normalized", true}});
  u["meshes"][0]["primitives"][0]["indices"] = 1;
  expect_refusal(t.model("uint.gltf", u), {"accessors[1].normalized is true", "UNSIGNED_INT"});
  u["accessors"][1]["normalized"] = false;
  EXPECT_NO_THROW(load_gltf_scene(t.model("uint_ok.gltf", u), 1));
  f["accessors"][0]["normalized"] = false;
  EXPECT_NO_THROW(load_gltf_scene(t.model("float_ok.gltf", f), 1));
}

// The triangle's positions replaced by `p` (3 per vertex), with `mode`.
json positions(const std::vector<float>& p, int mode = 4) {
  const std::string bytes(reinterpret_cast<const char*>(p.data()), p.size() * 4);
  json j = triangle("data:application/octet-stream;base64," + base64(bytes));
  j["buffers"][0]["byteLength"] = bytes.size();
  j["bufferViews"][0]["byteLength"] = bytes.size();
  j["accessors"][0]["count"] = p.size() / 3;
  j["meshes"][0]["primitives"][0]["mode"] = mode;
  return j;
}

TEST(GltfHostile, H4_09PrimitivesWithoutAreaAreRefusedLikeNoTriangle) {
  Tree t;
  // H4-09: three equal corners; relatives: three corners on a line, a strip of four collinear
  // vertices, a fan whose triangles all repeat a corner.
  const std::vector<std::pair<std::string, json>> cases = {
      {"equal", positions({0.25f, 0.5f, 0, 0.25f, 0.5f, 0, 0.25f, 0.5f, 0})},
      {"line", positions({0, 0, 0, 1, 1, 1, 2, 2, 2})},
      {"strip", positions({0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0}, 5)},
      {"fan", positions({0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0}, 6)},
  };
  for (const auto& [name, doc] : cases)
    expect_refusal(t.model(name + ".gltf", doc),
                   {"no triangle primitives to draw", "non-zero area"});
  // One triangle with area beside two without: drawn, the others named in a warning.
  const Scene s = load_gltf_scene(
      t.model("mixed.gltf", positions({0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0})), 1);
  EXPECT_EQ(s.objects.size(), 1u);
  // A tiny but non-zero triangle is drawn as the file has it.
  EXPECT_NO_THROW(
      load_gltf_scene(t.model("tiny.gltf", positions({0, 0, 0, 1e-30f, 0, 0, 0, 1e-30f, 0})), 1));
}

TEST(GltfHostile, AccessorCountZeroIsBinderysRefusal) {
  Tree t;
  json j = triangle();
  j["accessors"][0]["count"] = 0;
  const Error e = load_error(t.model("zero.gltf", j), {});
  EXPECT_EQ(e.kind(), ErrorKind::ModelLoad) << e.what();
  EXPECT_NE(std::string(e.what()).find("accessors[0].count"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).find("glTF library"), std::string::npos) << e.what();
}

TEST(GltfHostile, MessagesSayWhatHappened) {
  Tree t;
  // `../sub/x.bin` from ROOT/models/sub comes back into the folder: refused (every '..' that
  // leaves the folder is), with the true reason, not "resolves outside".
  write_file(t.model_dir() / "x.bin", triangle_bytes());
  const Error e = load_error(t.model("back.gltf", triangle("../sub/x.bin")));
  EXPECT_EQ(e.kind(), ErrorKind::ModelLoad) << e.what();
  EXPECT_NE(std::string(e.what()).find("steps above the model's folder"), std::string::npos)
      << e.what();
  EXPECT_EQ(std::string(e.what()).find("resolves outside"), std::string::npos) << e.what();
  // A texture is named after the file's image (texture 0 is bindery's white default).
  const std::string png = make_png(1, 1, 8, 6, [](uint32_t) {
    return std::vector<uint8_t>{1, 2, 3, 4};
  });
  const Scene s = load_gltf_scene(t.model("named.gltf", textured(data_uri("image/png", png))), 1);
  ASSERT_EQ(s.textures.size(), 2u);
  EXPECT_EQ(s.textures[1].name, "glTF image 0");
  write_file(t.model_dir() / "tex.png", png);
  const Scene f = load_gltf_scene(t.model("file.gltf", textured("tex.png")), 1);
  EXPECT_EQ(f.textures.at(1).name, "glTF image 0 'tex.png'");
}

}  // namespace
}  // namespace bindery
