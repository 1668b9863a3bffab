// SPDX-License-Identifier: MIT
// Issue 27: the layer rule of docs/ARCHITECTURE.md as a check. Every #include under include/ and
// src/ is read; the layer table is parsed from the document itself (its "uses" column), so the
// document and the check cannot drift. Fails on:
//   - an include of a layer the table does not list as used by the including layer (an upward
//     edge, or one the table forgot), and on a table row that lists a layer above it;
//   - a layer the table lists as used that no file of the layer includes (the table says what
//     each layer really uses);
//   - a private header (src/LAYER/...) included from another layer;
//   - a header of src/internal/ included from a layer its README does not name;
//   - bindery::render (src/render/, include/bindery/render/) including a private header of
//     bindery::bindery.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = BINDERY_SOURCE_DIR;

// The layers of the table, top row first, and the layers each one uses.
struct LayerTable {
  std::vector<std::string> order;                        // top (render) to bottom (core)
  std::map<std::string, std::set<std::string>> uses;     // layer -> layers it includes
  bool has(const std::string& layer) const { return uses.count(layer) != 0; }
  size_t rank(const std::string& layer) const {
    return size_t(std::find(order.begin(), order.end(), layer) - order.begin());
  }
};

// One #include of a file of bindery: the including file (relative to the root), its layer, and
// the included path as written.
struct Include {
  std::string file;
  std::string layer;
  std::string path;
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Backticked folder names of `cell` ("`headless/`, `core/`" -> {headless, core}).
std::set<std::string> folders(const std::string& cell) {
  std::set<std::string> out;
  static const std::regex folder("`([a-z_]+)/`");
  for (std::sregex_iterator it(cell.begin(), cell.end(), folder), end; it != end; ++it)
    out.insert((*it)[1]);
  return out;
}

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream s(row);
  std::string cell;
  while (std::getline(s, cell, '|')) out.push_back(cell);
  return out;  // out[0] is what precedes the first '|' (empty)
}

// The "## Layers" table of ARCHITECTURE.md: | `LAYER/` | holds | uses |.
LayerTable parse_layer_table(const std::string& doc) {
  LayerTable t;
  const size_t begin = doc.find("\n## Layers");
  if (begin == std::string::npos) return t;
  std::stringstream s(doc.substr(begin + 1));
  std::string line;
  std::getline(s, line);  // the heading
  bool in_table = false;
  while (std::getline(s, line)) {
    if (line.rfind("## ", 0) == 0) break;
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    const std::vector<std::string> c = cells(line);
    if (c.size() < 4) continue;
    const std::set<std::string> name = folders(c[1]);
    if (name.size() != 1) continue;  // the header row and the separator
    const std::string layer = *name.begin();
    t.order.push_back(layer);
    t.uses[layer] = folders(c[3]);
  }
  return t;
}

// src/internal/README.md: | `HEADER` | what | `LAYER/`, ... | -> header -> layers.
std::map<std::string, std::set<std::string>> parse_internal_readme(const std::string& doc) {
  std::map<std::string, std::set<std::string>> out;
  std::stringstream s(doc);
  std::string line;
  static const std::regex header("`([a-z_]+\\.hpp)`");
  while (std::getline(s, line)) {
    const std::vector<std::string> c = cells(line);
    std::smatch m;
    if (c.size() < 4 || !std::regex_search(c[1], m, header)) continue;
    out[m[1]] = folders(c[3]);
  }
  return out;
}

// What bindery::bindery's layers are (bindery::render is the `render` layer).
bool in_parts_library(const std::string& layer) { return layer != "render"; }

// Every violation of the rules above in `includes`; `private_headers` are the headers under
// src/LAYER/ (paths relative to src/, e.g. "gpu_driven/compute_helpers.hpp").
std::vector<std::string> check(const LayerTable& table,
                               const std::map<std::string, std::set<std::string>>& internal,
                               const std::vector<Include>& includes,
                               const std::set<std::string>& private_headers) {
  std::vector<std::string> errors;
  for (size_t i = 0; i < table.order.size(); ++i)
    for (const std::string& used : table.uses.at(table.order[i]))
      if (!table.has(used) || table.rank(used) <= i)
        errors.push_back("ARCHITECTURE.md: layer " + table.order[i] + "/ lists " + used +
                         "/, which is not a layer below it");
  std::map<std::string, std::set<std::string>> used;
  for (const Include& inc : includes) {
    const std::string first = inc.path.substr(0, inc.path.find('/'));
    std::string target;
    if (first == "bindery") {
      const size_t a = inc.path.find('/'), b = inc.path.find('/', a + 1);
      if (b == std::string::npos) continue;  // an umbrella or a 0.2 flat forwarding header
      target = inc.path.substr(a + 1, b - a - 1);
    } else if (first == "internal") {
      const std::string header = inc.path.substr(first.size() + 1);
      const auto it = internal.find(header);
      if (it == internal.end())
        errors.push_back(inc.file + ": includes " + inc.path +
                         ", which src/internal/README.md does not list");
      else if (!it->second.count(inc.layer))
        errors.push_back(inc.file + ": includes " + inc.path + ", which src/internal/README.md "
                         "does not open to " + inc.layer + "/");
      continue;
    } else if (table.has(first) && private_headers.count(inc.path)) {
      target = first;
      if (target != inc.layer)
        errors.push_back(inc.file + ": includes " + inc.path + ", a private header of " + target +
                         "/ (move it to src/internal/ or include/bindery/)");
      if (inc.layer == "render" && in_parts_library(target))
        errors.push_back(inc.file + ": bindery::render includes " + inc.path +
                         ", a private header of bindery::bindery");
    } else {
      continue;  // the file's own folder, a generated header, or a third-party one
    }
    if (!table.has(target)) {
      errors.push_back(inc.file + ": includes " + inc.path + " of " + target +
                       "/, which is not in the layer table");
      continue;
    }
    if (target == inc.layer) continue;
    used[inc.layer].insert(target);
    if (!table.uses.at(inc.layer).count(target))
      errors.push_back(inc.file + ": includes " + inc.path + " (" + inc.layer + "/ -> " + target +
                       "/), " +
                       (table.rank(target) < table.rank(inc.layer)
                            ? "an upward edge"
                            : "a layer the table does not list as used by " + inc.layer + "/"));
  }
  for (const std::string& layer : table.order)
    for (const std::string& listed : table.uses.at(layer))
      if (!used[layer].count(listed))
        errors.push_back("ARCHITECTURE.md: layer " + layer + "/ lists " + listed +
                         "/, but no file of " + layer + "/ includes it");
  return errors;
}

// The includes of every .hpp/.cpp under include/bindery/LAYER/ and src/LAYER/.
std::vector<Include> tree_includes(const LayerTable& table) {
  std::vector<Include> out;
  static const std::regex directive(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
  for (const char* base : {"include/bindery", "src"})
    for (const std::string& layer : table.order) {
      const fs::path dir = kRoot / base / layer;
      if (!fs::exists(dir)) continue;
      for (const auto& e : fs::recursive_directory_iterator(dir)) {
        const std::string ext = e.path().extension().string();
        if (!e.is_regular_file() || (ext != ".hpp" && ext != ".cpp")) continue;
        std::stringstream s(read(e.path()));
        std::string line;
        while (std::getline(s, line)) {
          std::smatch m;
          if (std::regex_search(line, m, directive))
            out.push_back({fs::relative(e.path(), kRoot).string(), layer, m[1]});
        }
      }
    }
  return out;
}

std::set<std::string> private_headers(const LayerTable& table) {
  std::set<std::string> out;
  for (const std::string& layer : table.order) {
    const fs::path dir = kRoot / "src" / layer;
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".hpp")
        out.insert(fs::relative(e.path(), kRoot / "src").string());
  }
  return out;
}

struct Fixture {
  LayerTable table = parse_layer_table(read(kRoot / "docs/ARCHITECTURE.md"));
  std::map<std::string, std::set<std::string>> internal =
      parse_internal_readme(read(kRoot / "src/internal/README.md"));
  std::vector<Include> includes = tree_includes(table);
  std::set<std::string> privates = private_headers(table);
};

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

TEST(Layering, TableParsedFromArchitectureMd) {
  const Fixture f;
  EXPECT_EQ(f.table.order, (std::vector<std::string>{"render", "gpu_driven", "headless", "encode",
                                                      "data", "wgsl", "core"}));
  EXPECT_TRUE(f.table.uses.at("core").empty());
  EXPECT_FALSE(f.internal.empty());
  EXPECT_GT(f.includes.size(), 200u);
}

TEST(Layering, EveryIncludeFollowsTheTable) {
  const Fixture f;
  const std::vector<std::string> errors = check(f.table, f.internal, f.includes, f.privates);
  EXPECT_TRUE(errors.empty()) << joined(errors);
}

TEST(Layering, SyntheticUpwardEdgeFails) {
  Fixture f;
  f.includes.push_back({"src/core/synthetic.cpp", "core", "bindery/render/renderer.hpp"});
  const std::vector<std::string> errors = check(f.table, f.internal, f.includes, f.privates);
  EXPECT_TRUE(any_contains(errors, "src/core/synthetic.cpp")) << joined(errors);
  EXPECT_TRUE(any_contains(errors, "an upward edge")) << joined(errors);
}

TEST(Layering, SyntheticPrivateHeaderFromAnotherLayerFails) {
  Fixture f;
  ASSERT_TRUE(f.privates.count("gpu_driven/compute_helpers.hpp"));
  f.includes.push_back({"src/render/synthetic.cpp", "render", "gpu_driven/compute_helpers.hpp"});
  f.includes.push_back({"src/data/synthetic.cpp", "data", "wgsl/parser.hpp"});
  const std::vector<std::string> errors = check(f.table, f.internal, f.includes, f.privates);
  EXPECT_TRUE(any_contains(errors, "src/data/synthetic.cpp: includes wgsl/parser.hpp, a private"))
      << joined(errors);
  EXPECT_TRUE(any_contains(errors, "bindery::render includes gpu_driven/compute_helpers.hpp"))
      << joined(errors);
}

TEST(Layering, SyntheticTableAndInternalMistakesFail) {
  Fixture f;
  f.table.uses["core"].insert("data");                        // a row listing a layer above it
  f.table.uses["headless"].insert("data");                    // listed, never included
  f.includes.push_back({"src/data/synthetic.cpp", "data", "internal/json_message.hpp"});
  const std::vector<std::string> errors = check(f.table, f.internal, f.includes, f.privates);
  EXPECT_TRUE(any_contains(errors, "layer core/ lists data/, which is not a layer below it"))
      << joined(errors);
  EXPECT_TRUE(any_contains(errors, "layer headless/ lists data/, but no file")) << joined(errors);
  EXPECT_TRUE(any_contains(errors, "does not open to data/")) << joined(errors);
}

}  // namespace
