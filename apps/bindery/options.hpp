// SPDX-License-Identifier: MIT
// apps/bindery/options.hpp — CLI options shared by the subcommands that create a device, and the
// JSON forms of adapter descriptions and limits used in their reports.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <bindery/core/counters.hpp>
#include <bindery/core/device.hpp>
#include <bindery/core/error.hpp>
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include <functional>

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

/// The scene options render, bench and soak share: --scene, --model, --seed and the city's
/// counts. --objects, --instances and --moving stay with each command (their ranges and defaults
/// differ: bench searches the object count, soak's --moving is the city's only).
struct SceneCliOptions {
  std::string scene = "cubes";  ///< --scene cubes | city | gltf
  std::string model;            ///< --model, the glTF 2.0 file of --scene gltf
  uint64_t seed = 1;            ///< --seed of the cube scene or the city
  CityCliOptions city;          ///< --meshes, --materials, --textures (--scene city)
};

/// The run options render, bench and soak share: declared once (add_run_options), checked once
/// against bindery's caps (core/limits.hpp) and turned into RenderOptions (to_render_options). A
/// command sets its own defaults by constructing this with other values before add_run_options.
struct RunCliOptions {
  DeviceCliOptions device;       ///< --backend, --limits, --uniform-alignment
  SceneCliOptions scene;         ///< --scene, --model, --seed, --meshes, --materials, --textures
  std::string size = "640x480";  ///< --size WIDTHxHEIGHT
  int64_t frames = 60;           ///< --frames, 1..max_frames (RunCliRules)
  int64_t frames_in_flight = 2;  ///< --frames-in-flight, 1..kMaxFramesInFlight
  int64_t threads = 0;           ///< --threads, 0..kMaxMatrixThreads (0 = every core)
  int64_t encode_threads = 1;    ///< --encode-threads, 1..kMaxEncodeThreads
  std::string occlusion = "on";  ///< --occlusion on | off
  bool occlusion_given = false;  ///< --occlusion was on the command line
  std::string draw_path;         ///< --draw-path (empty: the best the device offers)
  std::string material_backend;  ///< --material-backend (empty: texture-arrays)
  std::string clusters = "auto";  ///< --clusters auto | on | off (gpu-driven)
  double lod_error = 1.0;        ///< --lod-error PX, 0..kMaxLodErrorPx
  bool cluster_options_given = false;  ///< --clusters or --lod-error was on the command line
  bool lod_error_given = false;        ///< --lod-error was on the command line
  std::string rasterizer = "auto";     ///< --rasterizer auto|hardware|compute
  std::string raster_rung;             ///< --raster-rung (empty: the best)
  bool raster_given = false;           ///< --rasterizer or --raster-rung was on the command line
  std::string debug_colors = "normal";  ///< --debug-colors normal|clusters|levels (render, view)
  bool debug_colors_given = false;      ///< --debug-colors was on the command line
  /// --vertex-order optimized | source (render and bench: add_vertex_order_option)
  std::string vertex_order = "optimized";
  double spread = 1.0;           ///< --spread, kMinSpread..kMaxSpread (the cube scene's)
};

/// What differs between the commands that take RunCliOptions.
struct RunCliRules {
  std::string_view command;        ///< "render", "bench", "soak": the error messages' prefix
  int64_t max_frames = 1'000'000;  ///< --frames range min_frames..max_frames
  std::string_view frames_help = "frames to render";  ///< --frames' help text
  std::string_view size_help = "target size WIDTHxHEIGHT (1x1 = render off)";  ///< --size's
  int64_t min_frames = 1;  ///< 0 for view (run until the window closes)
};

/// Declares the shared options on `sub`, their defaults the current values of `o`.
void add_run_options(CLI::App& sub, RunCliOptions& o, const RunCliRules& rules);
/// Declares --debug-colors normal|clusters|levels on `sub` (render and view: the cluster path's
/// debug colouring, RenderOptions::debug_colors); to_render_options() refuses it with --clusters
/// off, check_gpu_driven_options() for another strategy than gpu-driven.
void add_debug_colors_option(CLI::App& sub, RunCliOptions& o);
/// Declares --vertex-order optimized|source (RenderOptions::vertex_order) on `sub`: render and
/// bench, the commands that measure; a value outside the two is a usage error naming them.
void add_vertex_order_option(CLI::App& sub, RunCliOptions& o);
/// After parsing: which of the scene options (--scene, --model, --seed, --spread, --meshes,
/// --materials, --textures) and of `others` were given on `sub`'s command line.
std::vector<std::string> given_options(const CLI::App& sub,
                                       std::initializer_list<const char*> others = {});
/// Checks every shared option before any device exists and returns `base` with the fields they
/// set (width, height, frames, frames_in_flight, threads, encode_threads, occlusion, draw_path).
/// Throws InvalidArgument naming the flag and its range, SceneInput for --spread or a --size
/// that is not WIDTHxHEIGHT, TextureSizeOutOfRange for a zero side (parse_size). The
/// encode-threads check here is its range only; whether a strategy takes N > 1 is the
/// command's (per strategy).
RenderOptions to_render_options(const RunCliOptions& o, const RunCliRules& rules,
                                RenderOptions base = {});
/// Checks the per-command scene counts render and view share: --objects 0..kMaxObjects (1.. for
/// the city: `scene`) and --instances 1..1,000,000 (SceneInput), |--time| <= kMaxAnimationTime
/// (InvalidArgument); `command` starts the message.
void check_objects_instances_time(int64_t objects, int64_t instances,
                                  const std::optional<double>& time, std::string_view scene,
                                  std::string_view command);
/// --model without --scene means --scene gltf, as for render and view: sets `scene.scene` so
/// where `given` (given_options) holds --model and not --scene.
void model_implies_gltf(SceneCliOptions& scene, const std::vector<std::string>& given);
/// A CLI11 check refusing an empty value, for file options where empty would read as "not
/// given" (--model '', --script ''); the usage line names the option.
CLI::Validator not_empty();
/// Checks --moving, the share of the scene's objects moved each frame: 0..1, else SceneInput
/// (every command and scene alike); `command` starts the message.
void check_moving(double moving, std::string_view command);
/// Refuses (InvalidArgument), rather than ignoring them silently, --draw-path or
/// --material-backend when none of `strategies` uses them (gpu-driven and gpu-culling: their
/// indirect draws and material table), and a given --occlusion when none is gpu-driven (its
/// two-phase occlusion culling). `command` starts the message.
void check_gpu_driven_options(const std::vector<std::string>& strategies, const RunCliOptions& o,
                              std::string_view command);
/// Adds --quiet to `sub` with the meaning it has in render, bench, soak and view (issue 31): no
/// progress or status lines on stderr (warnings and errors still print there); what the command
/// writes on stdout, its table and its JSON line, stays as it is.
void add_quiet_flag(CLI::App& sub, bool& quiet);
/// Runs a command, rewriting bindery's field names in an error message into the CLI's flags
/// ("RenderOptions::frames_in_flight = 9, valid 1..8" -> "--frames-in-flight 9, valid 1..8");
/// the kind stays.
int with_flag_names(const std::function<int()>& run);

}  // namespace bindery::cli
