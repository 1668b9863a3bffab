// SPDX-License-Identifier: MIT
// apps/bindery/options.hpp — CLI options shared by the subcommands that create a device, and the
// JSON forms of adapter descriptions and limits used in their reports.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <bindery/core/counters.hpp>
#include <bindery/core/device.hpp>
#include <bindery/core/error.hpp>
#include <bindery/render/scene.hpp>

#include <optional>
#include <string_view>
#include <utility>
#include <string>
#include <vector>

namespace bindery::cli {

struct DeviceCliOptions {
  std::string backend = "any";     ///< any | vulkan | gl
  std::string limits = "adapter";  ///< adapter | default
  std::optional<uint32_t> uniform_alignment;
};

void add_device_options(CLI::App& sub, DeviceCliOptions& o);
/// Parses "WIDTHxHEIGHT" (e.g. 640x480; 1x1 = render off) with positive integers, nothing else.
/// Throws SceneInput (not that form) or TextureSizeOutOfRange (a side is 0); `command` prefixes
/// the message. Range checks against maxTextureDimension2D happen with the device.
std::pair<uint32_t, uint32_t> parse_size(const std::string& s, std::string_view command);
DeviceOptions to_device_options(const DeviceCliOptions& o);
/// {"name": "wgpu-native" | "dawn", "revision": ...}: the WebGPU implementation of this build.
nlohmann::ordered_json implementation_json(const AdapterDescription& a);
nlohmann::ordered_json adapter_json(const AdapterDescription& a);
nlohmann::ordered_json limits_json(const Limits& l);
/// Whether `kind` is a capacity of the device reached at some object count (bind groups lavapipe
/// can hold, buffer and binding sizes, out-of-memory): bench ends that strategy's search like an
/// over-budget frame, soak skips that strategy; both print the reason and go on.
bool is_capacity_limit(ErrorKind kind);
/// A frame's Counters as JSON, keyed by the WebGPU call names (draws, setBindGroup, ...).
nlohmann::ordered_json counters_json(const Counters& c);
/// The strategy catalogue's names, comma-separated (for option help).
std::string strategy_names();

/// Parses --strategies: "all" (the whole catalogue, in its order) or comma-separated names, each
/// a catalogue name, once, none empty. Throws InvalidArgument naming the fault; `command`
/// prefixes the message.
std::vector<std::string> parse_strategy_list(const std::string& list, std::string_view command);

/// The generated city's counts on the command line (`--scene city`): --meshes, --materials,
/// --textures. --objects, --moving and --seed stay with each command (the cube scene has them
/// too).
struct CityCliOptions {
  int64_t meshes = 200, materials = 64, textures = 16;
};
/// Adds --meshes, --materials and --textures to `sub`.
void add_city_options(CLI::App& sub, CityCliOptions& o);
/// After parsing: the first of --meshes, --materials, --textures given on `sub`'s command line,
/// or nullopt (a command refuses it for a scene other than the city).
std::optional<std::string> given_city_option(const CLI::App& sub);
/// The city's options from the command line. Throws SceneInput, the message starting with
/// `command`, for a count outside its range (make_city_scene's ranges: objects 1..10,000,000,
/// meshes 1..200,000, materials 1..100,000, textures 1..1024, moving 0..1).
CitySceneOptions city_scene_options(const CityCliOptions& o, int64_t objects, double moving,
                                    uint64_t seed, std::string_view command);

}  // namespace bindery::cli
