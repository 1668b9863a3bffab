// SPDX-License-Identifier: MIT
// The code of docs/GUIDE.md, compiled and run. Each snippet lives here (CPU) or in
// guide_device_test.cpp (device) between `// [guide:NAME]` and `// [guide:end]`; the guide shows
// it after `<!-- snippet: NAME -->`, and Guide.EveryCodeBlockIsCompiled checks that every C++
// block of the guide is, character for character after removing the common indentation, one of
// these regions. Expected values are hand-computed: WGSL §14.4 layout, seed 001 / shared/cases C01
// arithmetic, seed 004's decision tree.
#include "bindery/bindery.hpp"
#include "support/expect_kind.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace bindery {
namespace {

TEST(Guide, DataPlacement) {
  // [guide:placement]
  // Seed 004's three questions for three pieces of data.
  const DataUsage camera{.size_bytes = 208};  // same for every draw of the frame
  const DataUsage object{.size_bytes = 80, .changes_per_draw = true};
  const DataUsage lights{.read_uniformly = false, .size_bytes = 64 * 48};  // indexed per fragment
  EXPECT_EQ(choose_data_placement(camera).placement, DataPlacement::uniform_buffer);
  EXPECT_EQ(choose_data_placement(object).placement, DataPlacement::dynamic_uniform_buffer);
  EXPECT_EQ(choose_data_placement(lights).placement, DataPlacement::storage_buffer);
  // [guide:end]
}

TEST(Guide, ReflectAndWrite) {
  // [guide:reflect]
  Reflection r = reflect_wgsl(R"(
    struct Object { world: mat4x4f, tint: vec3f, id: u32 };
    @group(2) @binding(0) var<uniform> object: Object;)");
  r.throw_if_errors();  // syntax, type and layout errors carry line:column
  const StructLayout& object = r.struct_layout("Object");
  EXPECT_EQ(object.size, 80u);                       // 64 + 12 + 4, rounded to align 16
  EXPECT_EQ(object.find_member("id")->offset, 76u);  // u32 fills the vec3f's last 4 bytes
  EXPECT_EQ(r.find_binding("object")->min_binding_size, 80u);

  std::vector<std::byte> bytes(object.size);
  const FieldRef tint = object.field("tint");  // resolve once, outside the per-object loop
  StructView(object, bytes).set(tint, glm::vec3(1.0f, 0.5f, 0.0f));
  EXPECT_KIND(StructView(object, bytes).set(tint, 1.0f), StructViewType);  // f32 into vec3f
  // [guide:end]
}

TEST(Guide, Stride) {
  // [guide:stride]
  Limits limits;  // spec defaults: minUniformBufferOffsetAlignment 256
  EXPECT_EQ(dynamic_uniform_stride(80, limits), 256u);  // seed 002: 80-byte object, 256 stride
  limits.minUniformBufferOffsetAlignment = 32;          // what lavapipe's device reports
  EXPECT_EQ(dynamic_uniform_stride(80, limits), 96u);
  // [guide:end]
}

TEST(Guide, PlanBindGroups) {
  // [guide:plan]
  PlanInput in;  // shared/cases C01: 12 objects, 3 materials, one pass
  in.bindings = {{.name = "camera", .size_bytes = 80, .frequency = Frequency::frame},
                 {.name = "material", .size_bytes = 32, .frequency = Frequency::material},
                 {.name = "object", .size_bytes = 80, .frequency = Frequency::object}};
  in.stats = {.objects = 12, .materials = 3, .passes = 1};
  in.limits = Limits{};  // at run time: device.limits()
  const BindGroupPlan plan = plan_bind_groups(in);
  EXPECT_EQ(plan.groups.size(), 3u);                 // @group(0) frame, 1 material, 2 object
  EXPECT_TRUE(plan.bindings[2].has_dynamic_offset);  // per-object data: one dynamic offset
  EXPECT_EQ(plan.set_bind_group_per_pass, 16u);      // 1 + 3 + 12
  EXPECT_EQ(plan.bind_groups_created, 5u);           // 1 + 3 + 1
  // plan.pipeline_layout -> create_bind_group_layout(); plan.wgsl_declarations() -> the shader
  // [guide:end]
}

TEST(Guide, SortedDrawsAndRedundantState) {
  // [guide:draw_list]
  DrawList list;
  for (uint32_t i = 0; i < 6; ++i) list.add({.material = i % 2, .object_slot = i});
  list.sort(DrawOrder::material);  // material 0's three objects, then material 1's

  Counters counters;
  RenderStateTracker state(counters, IntruderPolicy::error);  // RenderPassState issues the calls
  const int pipeline = 0, frame = 0, materials[2] = {}, objects = 0;  // stand-ins for handles
  for (const DrawItem& item : list.items()) {
    state.set_pipeline(&pipeline);
    state.set_bind_group(0, &frame, {}, Frequency::frame, 0);
    state.set_bind_group(1, &materials[item.material], {}, Frequency::material, item.material);
    const uint32_t offset = item.object_slot * 256;
    state.set_bind_group(2, &objects, {&offset, 1}, Frequency::object, item.object_slot);
    state.draw();
  }
  EXPECT_EQ(counters.set_pipeline, 1u);
  EXPECT_EQ(counters.set_bind_group, 1u + 2u + 6u);
  EXPECT_EQ(counters.set_bind_group_skipped, 18u - 9u);  // 3 groups x 6 draws were asked for
  // [guide:end]
}

TEST(Guide, ValidateBeforeTheDriver) {
  // [guide:validate]
  const BindGroupLayoutDesc layout{
      "objects", {{.binding = 0, .has_dynamic_offset = true, .min_binding_size = 80}}};
  const uint32_t offsets[] = {320};  // not a multiple of minUniformBufferOffsetAlignment (256)
  EXPECT_KIND(validate_dynamic_offsets(2, layout, offsets, {}, Limits{}), DynamicOffsetAlignment);
  // [guide:end]
}

// --- the guide's code blocks are the regions above (and in guide_device_test.cpp) ---------------

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) lines.push_back(line);
  return lines;
}

// Removes the indentation common to every non-blank line and trailing blanks.
std::string dedent(const std::vector<std::string>& lines) {
  size_t common = std::string::npos;
  for (const std::string& l : lines)
    if (l.find_first_not_of(' ') != std::string::npos)
      common = std::min(common, l.find_first_not_of(' '));
  std::string out;
  for (const std::string& l : lines) out += (l.size() > common ? l.substr(common) : "") + "\n";
  return out;
}

// The marker NAME of a line that is exactly `// [guide:NAME]` (after indentation), else "".
std::string marker(const std::string& line) {
  const size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos) return "";
  const std::string text = line.substr(start);
  const std::string open = "// [guide:";
  if (text.rfind(open, 0) != 0 || text.back() != ']') return "";
  return text.substr(open.size(), text.size() - open.size() - 1);
}

// NAME -> code of every region of `source` between the lines `// [guide:NAME]` and
// `// [guide:end]`.
std::map<std::string, std::string> regions(const std::string& source) {
  std::map<std::string, std::string> found;
  const std::vector<std::string> lines = split_lines(source);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string name = marker(lines[i]);
    if (name.empty()) continue;
    EXPECT_NE(name, "end") << "line " << i + 1 << ": region end without a start";
    std::vector<std::string> body;
    size_t j = i + 1;
    for (; j < lines.size() && marker(lines[j]).empty(); ++j) body.push_back(lines[j]);
    EXPECT_TRUE(j < lines.size() && marker(lines[j]) == "end")
        << "region " << name << " is not closed by its end marker";
    EXPECT_FALSE(found.count(name)) << "region " << name << " appears twice";
    found[name] = dedent(body);
    i = j;
  }
  return found;
}

TEST(Guide, EveryCodeBlockIsCompiled) {
  const std::filesystem::path root = BINDERY_SOURCE_DIR;
  const std::filesystem::path here = BINDERY_TEST_DIR;  // this file's folder
  std::map<std::string, std::string> snippets = regions(read_text(here / "guide_test.cpp"));
  for (auto& [name, code] : regions(read_text(here / "guide_device_test.cpp")))
    snippets[name] = code;
  ASSERT_GE(snippets.size(), 8u);  // the regions of the two files (this parser found them)

  const std::vector<std::string> guide = split_lines(read_text(root / "docs/GUIDE.md"));
  std::map<std::string, int> shown;
  for (size_t i = 0; i < guide.size(); ++i) {
    if (guide[i].rfind("```cpp", 0) != 0) continue;
    ASSERT_GT(i, 0u);
    const std::string marker = guide[i - 1];
    ASSERT_EQ(marker.rfind("<!-- snippet: ", 0), 0u)
        << "docs/GUIDE.md line " << i + 1 << ": a C++ block without <!-- snippet: NAME -->";
    const std::string name = marker.substr(14, marker.find(" -->") - 14);
    std::vector<std::string> body;
    size_t j = i + 1;
    for (; j < guide.size() && guide[j] != "```"; ++j) body.push_back(guide[j]);
    ASSERT_LT(j, guide.size()) << "unterminated code block at docs/GUIDE.md line " << i + 1;
    ASSERT_TRUE(snippets.count(name)) << "snippet " << name << " is not in the guide tests";
    EXPECT_EQ(dedent(body), snippets[name])
        << "docs/GUIDE.md snippet " << name << " differs from its test region";
    ++shown[name];
    i = j;
  }
  for (const auto& [name, code] : snippets)
    EXPECT_EQ(shown[name], 1) << "test region " << name << " is shown " << shown[name]
                              << " times in docs/GUIDE.md (expected once)";
}

}  // namespace
}  // namespace bindery
