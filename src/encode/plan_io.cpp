// SPDX-License-Identifier: MIT
// Reading and writing bind group plans: the JSON scene description of `bindery plan`
// (docs/PLAN_FORMAT.md), the text and JSON reports, and the WGSL declarations.
#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/core/error.hpp"
#include "internal/json_message.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace bindery {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  // Keys and values quoted from the scene file are escaped here, once for every message.
  throw Error(ErrorKind::PlanInput, escape_for_message(fmt::format("{}: {}", field, what)));
}

void only_keys(const json& obj, const std::string& field, std::initializer_list<const char*> keys) {
  if (!obj.is_object()) bad(field, "expected a JSON object");
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known = known || it.key() == k;
    if (!known) bad(field + "." + it.key(), "unknown key");
  }
}

std::string get_string(const json& obj, const std::string& parent, const char* key) {
  const json& v = obj.at(key);
  if (!v.is_string()) bad(parent + "." + key, "expected a string");
  return v.get<std::string>();
}

uint64_t get_uint(const json& v, const std::string& field) {
  if (!v.is_number_integer() ||
      (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0))
    bad(field, "expected a non-negative integer");
  return v.get<uint64_t>();
}

BindingKind parse_kind(const std::string& s, const std::string& field) {
  static const std::map<std::string, BindingKind> kinds = {
      {"uniform", BindingKind::uniform_buffer},
      {"storage", BindingKind::storage_buffer},
      {"read-only-storage", BindingKind::read_only_storage_buffer},
      {"texture", BindingKind::sampled_texture},
      {"sampler", BindingKind::sampler}};
  auto it = kinds.find(s);
  if (it == kinds.end())
    bad(field, "'" + s + "' is not a kind (uniform, storage, read-only-storage, texture, sampler)");
  return it->second;
}

std::string_view kind_name(BindingKind k) {
  switch (k) {
    case BindingKind::uniform_buffer:
      return "uniform";
    case BindingKind::storage_buffer:
      return "storage";
    case BindingKind::read_only_storage_buffer:
      return "read-only-storage";
    case BindingKind::sampled_texture:
      return "texture";
    case BindingKind::sampler:
      return "sampler";
  }
  return "?";
}

uint32_t parse_visibility(const json& v, const std::string& field) {
  if (!v.is_array() || v.empty()) bad(field, "expected a non-empty array of stage names");
  uint32_t bits = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string f = fmt::format("{}[{}]", field, i);
    if (!v[i].is_string()) bad(f, "expected \"vertex\", \"fragment\" or \"compute\"");
    const std::string s = v[i].get<std::string>();
    if (s == "vertex")
      bits |= kStageVertex;
    else if (s == "fragment")
      bits |= kStageFragment;
    else if (s == "compute")
      bits |= kStageCompute;
    else
      bad(f, "'" + s + "' is not a stage (vertex, fragment, compute)");
  }
  return bits;
}

std::vector<std::string> visibility_names(uint32_t bits) {
  std::vector<std::string> out;
  if (bits & kStageVertex) out.push_back("vertex");
  if (bits & kStageFragment) out.push_back("fragment");
  if (bits & kStageCompute) out.push_back("compute");
  return out;
}

/// Limit overrides by their WebGPU names.
const std::map<std::string, std::function<void(Limits&, uint64_t)>>& limit_setters() {
  static const std::map<std::string, std::function<void(Limits&, uint64_t)>> setters = [] {
    std::map<std::string, std::function<void(Limits&, uint64_t)>> m;
#define BINDERY_LIMIT(name) \
  m[#name] = [](Limits& l, uint64_t v) { l.name = static_cast<decltype(l.name)>(v); };
    BINDERY_LIMIT(maxBindGroups)
    BINDERY_LIMIT(maxBindingsPerBindGroup)
    BINDERY_LIMIT(maxDynamicUniformBuffersPerPipelineLayout)
    BINDERY_LIMIT(maxDynamicStorageBuffersPerPipelineLayout)
    BINDERY_LIMIT(maxSampledTexturesPerShaderStage)
    BINDERY_LIMIT(maxSamplersPerShaderStage)
    BINDERY_LIMIT(maxStorageBuffersPerShaderStage)
    BINDERY_LIMIT(maxUniformBuffersPerShaderStage)
    BINDERY_LIMIT(maxUniformBufferBindingSize)
    BINDERY_LIMIT(maxStorageBufferBindingSize)
    BINDERY_LIMIT(maxBufferSize)
    BINDERY_LIMIT(minUniformBufferOffsetAlignment)
    BINDERY_LIMIT(minStorageBufferOffsetAlignment)
#undef BINDERY_LIMIT
    return m;
  }();
  return setters;
}

bool is_wgsl_identifier(std::string_view s) {
  if (s.empty() || s == "_" || (s.size() >= 2 && s[0] == '_' && s[1] == '_')) return false;
  const auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

// "grouping", "object_data" and "strict_intruders" into the planner's options.
void parse_plan_options(const json& doc, PlanInput& in) {
  if (doc.contains("grouping")) {
    const std::string g = get_string(doc, "scene", "grouping");
    if (g == "frequency")
      in.options.grouping = Grouping::frequency;
    else if (g == "resource-type")
      in.options.grouping = Grouping::resource_type;
    else
      bad("grouping", "'" + g + "' is not frequency or resource-type");
  }
  if (doc.contains("object_data")) {
    const std::string o = get_string(doc, "scene", "object_data");
    if (o == "dynamic-offset")
      in.options.object_data = ObjectData::dynamic_offset;
    else if (o == "bind-group")
      in.options.object_data = ObjectData::bind_group;
    else if (o == "storage-buffer")
      in.options.object_data = ObjectData::storage_buffer;
    else
      bad("object_data", "'" + o + "' is not dynamic-offset, bind-group or storage-buffer");
  }
  if (doc.contains("strict_intruders")) {
    if (!doc["strict_intruders"].is_boolean()) bad("strict_intruders", "expected true or false");
    in.options.strict_intruders = doc["strict_intruders"].get<bool>();
  }
}

// "stats": objects, materials, passes and the draw order.
void parse_stats(const json& doc, PlanInput& in) {
  if (!doc.contains("stats")) bad("stats", "missing (objects, materials, passes, order)");
  const json& st = doc["stats"];
  only_keys(st, "stats", {"objects", "materials", "passes", "order"});
  for (const char* k : {"objects", "materials", "passes"})
    if (!st.contains(k)) bad(std::string("stats.") + k, "missing");
  in.stats.objects = get_uint(st["objects"], "stats.objects");
  in.stats.materials = get_uint(st["materials"], "stats.materials");
  in.stats.passes = get_uint(st["passes"], "stats.passes");
  if (st.contains("order")) {
    const std::string o = get_string(st, "stats", "order");
    if (o == "material")
      in.stats.order = DrawOrderKind::material;
    else if (o == "depth")
      in.stats.order = DrawOrderKind::depth;
    else
      bad("stats.order", "'" + o + "' is not material or depth");
  }
}

// "limits": overrides by their WebGPU names, then the alignments and sizes checked.
void parse_limits(const json& lim, Limits& limits) {
  if (!lim.is_object()) bad("limits", "expected a JSON object");
  for (auto it = lim.begin(); it != lim.end(); ++it) {
    auto setter = limit_setters().find(it.key());
    if (setter == limit_setters().end())
      bad("limits." + it.key(), "unknown or unsupported limit");
    const uint64_t v = get_uint(it.value(), "limits." + it.key());
    if (v > UINT32_MAX && it.key().find("Size") == std::string::npos)
      bad("limits." + it.key(), "value does not fit 32 bits");
    setter->second(limits, v);
  }
  // Alignment limits are powers of two (WebGPU §3.6.2 "alignment" limit class); sizes and
  // counts must allow at least one binding.
  for (auto [name, value] : {std::pair{"minUniformBufferOffsetAlignment",
                                       uint64_t(limits.minUniformBufferOffsetAlignment)},
                             std::pair{"minStorageBufferOffsetAlignment",
                                       uint64_t(limits.minStorageBufferOffsetAlignment)}})
    if (value == 0 || (value & (value - 1)) != 0)
      bad(std::string("limits.") + name, fmt::format("{} is not a power of two", value));
  for (auto [name, value] :
       {std::pair{"maxUniformBufferBindingSize", limits.maxUniformBufferBindingSize},
        std::pair{"maxStorageBufferBindingSize", limits.maxStorageBufferBindingSize},
        std::pair{"maxBufferSize", limits.maxBufferSize},
        std::pair{"maxBindGroups", uint64_t(limits.maxBindGroups)},
        std::pair{"maxBindingsPerBindGroup", uint64_t(limits.maxBindingsPerBindGroup)}})
    if (value == 0) bad(std::string("limits.") + name, "must be at least 1");
}

// One entry of "bindings", named `field` in errors; `limits` bound its size.
BindingSpec parse_binding(const json& b, const std::string& field, const Limits& limits) {
  only_keys(b, field,
            {"name", "kind", "size", "frequency", "changes", "visibility", "wgsl_type"});
  for (const char* k : {"name", "kind", "frequency"})
    if (!b.contains(k)) bad(field + "." + k, "missing");
  BindingSpec spec;
  spec.name = get_string(b, field, "name");
  spec.kind = parse_kind(get_string(b, field, "kind"), field + ".kind");
  if (b.contains("size"))
    spec.size_bytes = get_uint(b["size"], field + ".size");
  else if (is_buffer(spec.kind))
    bad(field + ".size", "missing for buffer '" + spec.name + "'");
  spec.frequency = parse_frequency(get_string(b, field, "frequency"), field + ".frequency");
  if (b.contains("changes"))
    spec.changes = parse_frequency(get_string(b, field, "changes"), field + ".changes");
  if (b.contains("visibility"))
    spec.visibility = parse_visibility(b["visibility"], field + ".visibility");
  if (b.contains("wgsl_type")) spec.wgsl_type = get_string(b, field, "wgsl_type");
  // Names and types are written into WGSL declarations: identifiers and type text only.
  if (!is_wgsl_identifier(spec.name))
    bad(field + ".name", "'" + spec.name + "' is not a WGSL identifier ([A-Za-z_][A-Za-z0-9_]*)");
  if (spec.wgsl_type.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_<>, ") !=
      std::string::npos)
    bad(field + ".wgsl_type",
        "'" + spec.wgsl_type + "' may hold only letters, digits, '_', '<', '>', ',' and spaces");
  if (!is_buffer(spec.kind) && b.contains("size"))
    bad(field + ".size", "only buffers have a size");
  if (is_buffer(spec.kind) && (spec.size_bytes == 0 || spec.size_bytes % 4 != 0))
    bad(field + ".size", fmt::format("{} bytes: a buffer binding is a positive multiple of 4 "
                                     "bytes (WGSL sizes are)",
                                     spec.size_bytes));
  const uint64_t max_size = spec.kind == BindingKind::uniform_buffer
                                ? limits.maxUniformBufferBindingSize
                                : limits.maxStorageBufferBindingSize;
  if (is_buffer(spec.kind) && spec.size_bytes > max_size)
    bad(field + ".size",
        fmt::format("{} bytes exceed {} ({})", spec.size_bytes,
                    spec.kind == BindingKind::uniform_buffer ? "maxUniformBufferBindingSize"
                                                             : "maxStorageBufferBindingSize",
                    max_size));
  return spec;
}

PlanInput parse_document(const json& doc) {
  only_keys(doc, "scene",
            {"description", "grouping", "object_data", "strict_intruders", "stats", "limits",
             "bindings"});
  PlanInput in;
  parse_plan_options(doc, in);
  parse_stats(doc, in);
  if (doc.contains("limits")) parse_limits(doc["limits"], in.limits);
  if (!doc.contains("bindings") || !doc["bindings"].is_array())
    bad("bindings", "missing or not an array");
  const json& bs = doc["bindings"];
  for (size_t i = 0; i < bs.size(); ++i)
    in.bindings.push_back(parse_binding(bs[i], fmt::format("bindings[{}]", i), in.limits));
  return in;
}

std::string pascal_case(std::string_view name) {
  std::string out;
  bool up = true;
  for (char c : name) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    up = false;
  }
  return out;
}

std::string_view grouping_name(Grouping g) {
  return g == Grouping::frequency ? "frequency" : "resource-type";
}
std::string_view object_data_name(ObjectData o) {
  switch (o) {
    case ObjectData::dynamic_offset:
      return "dynamic-offset";
    case ObjectData::bind_group:
      return "bind-group";
    case ObjectData::storage_buffer:
      return "storage-buffer";
  }
  return "?";
}
std::string_view order_name(DrawOrderKind o) {
  return o == DrawOrderKind::material ? "material" : "depth";
}

}  // namespace

PlanInput parse_plan_input(std::string_view json_text) {
  json doc;
  // RFC 8259 leaves repeated keys to the reader, which would keep the last one silently (two
  // "stats" objects: the first ignored): a plan file's objects have unique keys.
  std::vector<std::set<std::string>> keys;  // the keys of each open object
  const json::parser_callback_t unique_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!keys.back().insert(key).second)
        throw Error(ErrorKind::PlanInput,
                    fmt::format("scene: key \"{}\" appears twice in one object (a plan file's "
                                "objects have unique keys; the reader would keep the last)",
                                escape_for_message(key)));
    }
    return true;
  };
  try {
    doc = json::parse(json_text.begin(), json_text.end(), unique_keys);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::PlanInput, fmt::format("scene: not valid JSON: {}", json_message(e)));
  }
  try {
    return parse_document(doc);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::PlanInput, fmt::format("scene: {}", json_message(e)));
  }
}

std::string BindGroupPlan::wgsl_declarations() const {
  std::string out;
  for (const PlannedGroup& g : groups) {
    out += fmt::format("// @group({}) frequency: {} ({} group){}; set {} time(s) per pass\n",
                       g.index, to_string(g.declared), g.label,
                       g.rebind > g.declared
                           ? fmt::format(", but re-bound per {} (intruder)", to_string(g.rebind))
                           : std::string(),
                       g.set_bind_group_per_pass);
    for (uint32_t m : g.members) {
      const PlannedBinding& b = bindings[m];
      std::string type = b.spec.wgsl_type;
      if (type.empty()) {
        type = b.kind == BindingKind::sampler           ? "sampler"
               : b.kind == BindingKind::sampled_texture ? "texture_2d<f32>"
                                                        : pascal_case(b.spec.name);
      }
      std::string decl = fmt::format("@group({}) @binding({}) var", b.group, b.binding);
      std::string note;
      switch (b.kind) {
        case BindingKind::uniform_buffer:
          decl += "<uniform>";
          break;
        case BindingKind::storage_buffer:
          decl += "<storage, read_write>";
          break;
        case BindingKind::read_only_storage_buffer:
          decl += "<storage, read>";
          break;
        default:
          break;
      }
      if (b.instance_indexed) {
        type = "array<" + type + ">";
        note = "  // per object: index with @builtin(instance_index)";
      } else if (b.has_dynamic_offset) {
        note = "  // per object: dynamic offset";
      }
      if (b.spec.observed() > b.spec.frequency)
        note += fmt::format("  // INTRUDER: declared {}, changes per {}",
                            to_string(b.spec.frequency), to_string(b.spec.observed()));
      out += fmt::format("{} {} : {};{}\n", decl, b.spec.name, type, note);
    }
  }
  return out;
}

std::string BindGroupPlan::to_text() const {
  std::string out = fmt::format(
      "scene: {} objects, {} materials, {} passes, order {}; grouping {}, object data {}\n",
      stats.objects, stats.materials, stats.passes, order_name(stats.order),
      grouping_name(options.grouping), object_data_name(options.object_data));
  out += "groups:\n";
  for (const PlannedGroup& g : groups) {
    out += fmt::format("  @group({}) {}: re-bound per {}, {} setBindGroup/pass, {} bind groups{}\n",
                       g.index, g.label, to_string(g.rebind), g.set_bind_group_per_pass,
                       g.bind_groups_created,
                       g.windows > 1 ? fmt::format(" ({} binding windows)", g.windows) : "");
    for (uint32_t m : g.members) {
      const PlannedBinding& b = bindings[m];
      out += fmt::format(
          "    @binding({}) {} ({}{}, {}{}{}{})\n", b.binding, b.spec.name, kind_name(b.kind),
          is_buffer(b.kind) ? fmt::format(", {} bytes", b.spec.size_bytes) : "",
          to_string(b.spec.frequency), b.has_dynamic_offset ? ", dynamic offset" : "",
          b.instance_indexed ? ", instance_index" : "",
          b.windows > 1
              ? fmt::format(", {} windows of <= {} objects", b.windows, b.objects_per_window)
              : "");
    }
  }
  if (!reasons.empty()) {
    out += "reasons:\n";
    for (const std::string& r : reasons) out += "  - " + r + "\n";
  }
  out += fmt::format("setBindGroup per pass: {}\n", set_bind_group_per_pass);
  out += fmt::format("setBindGroup per frame: {}\n", set_bind_group_per_frame);
  out += fmt::format("setBindGroup per pass without a state cache: {}\n",
                     set_bind_group_per_pass_uncached);
  out += fmt::format("bind groups created: {}\n", bind_groups_created);
  out += fmt::format("dynamic uniform buffers: {}, dynamic storage buffers: {}\n",
                     dynamic_uniform_buffers, dynamic_storage_buffers);
  if (!warnings.empty()) {
    out += "warnings:\n";
    for (const PlanWarning& w : warnings) out += "  - " + w.message + "\n";
  }
  out += "wgsl:\n" + wgsl_declarations();
  return out;
}

std::string BindGroupPlan::to_json() const {
  json j;
  j["stats"] = {{"objects", stats.objects},
                {"materials", stats.materials},
                {"passes", stats.passes},
                {"order", order_name(stats.order)}};
  j["grouping"] = grouping_name(options.grouping);
  j["object_data"] = object_data_name(options.object_data);
  j["groups"] = json::array();
  for (const PlannedGroup& g : groups) {
    json jg = {{"group", g.index},
               {"label", g.label},
               {"rebind_frequency", to_string(g.rebind)},
               {"set_bind_group_per_pass", g.set_bind_group_per_pass},
               {"bind_groups_created", g.bind_groups_created},
               {"windows", g.windows},
               {"bindings", json::array()}};
    for (uint32_t m : g.members) {
      const PlannedBinding& b = bindings[m];
      json jb = {{"name", b.spec.name},
                 {"binding", b.binding},
                 {"kind", kind_name(b.kind)},
                 {"size", b.spec.size_bytes},
                 {"frequency", to_string(b.spec.frequency)},
                 {"changes", to_string(b.spec.observed())},
                 {"visibility", visibility_names(b.spec.visibility)},
                 {"has_dynamic_offset", b.has_dynamic_offset},
                 {"instance_indexed", b.instance_indexed}};
      if (is_buffer(b.kind)) jb["min_binding_size"] = b.spec.size_bytes;
      if (b.windows > 0) {
        jb["stride"] = b.stride_bytes;
        jb["objects_per_window"] = b.objects_per_window;
        jb["windows"] = b.windows;
      }
      jg["bindings"].push_back(std::move(jb));
    }
    j["groups"].push_back(std::move(jg));
  }
  j["reasons"] = reasons;
  j["set_bind_group_per_pass"] = set_bind_group_per_pass;
  j["set_bind_group_per_frame"] = set_bind_group_per_frame;
  j["set_bind_group_per_pass_uncached"] = set_bind_group_per_pass_uncached;
  j["bind_groups_created"] = bind_groups_created;
  j["dynamic_uniform_buffers"] = dynamic_uniform_buffers;
  j["dynamic_storage_buffers"] = dynamic_storage_buffers;
  j["warnings"] = json::array();
  j["intruders"] = json::array();
  for (const PlanWarning& w : warnings) {
    j["warnings"].push_back(w.message);
    if (w.intruder)
      j["intruders"].push_back({{"binding", w.binding},
                                {"declared", to_string(w.declared)},
                                {"observed", to_string(w.observed)}});
  }
  j["wgsl"] = wgsl_declarations();
  return j.dump(2);
}

}  // namespace bindery
