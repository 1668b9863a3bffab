// SPDX-License-Identifier: MIT
// apps/bindery/view/view.hpp — `bindery view` (issue 21): a scene drawn by one of render()'s
// strategies, live in a window (GLFW on X11, a WebGPU surface from its Xlib window) with a Dear
// ImGui panel. The internal library bindery_view; bindery::bindery and bindery::render link no
// window system.
#pragma once

#include <bindery/core/device.hpp>
#include <bindery/render/scene.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bindery::view {

/// What `bindery view` shows and how (apps/bindery/cmd_view.cpp fills it from the command line).
struct ViewOptions {
  DeviceOptions device;  ///< backend and limits (instance and surface are the view's)
  /// Builds the scene for an object count (the cubes, the city's objects or a glTF model's
  /// copies) and a spread (CubeSceneOptions::spread; ignored where `spread_applies` is false).
  std::function<Scene(uint32_t count, float spread)> make_scene;
  uint32_t count = 1000;            ///< the object count at start
  uint32_t max_count = 10'000'000;  ///< the most the panel and the script may ask for
  uint32_t min_count = 0;           ///< the least (1 for the city's objects and glTF copies)
  bool moving_from_scene = false;   ///< use Scene::moving_share() (the city) instead of `moving`
  float spread = 1.0f;              ///< the spread at start (kMinSpread..kMaxSpread)
  bool spread_applies = false;      ///< the scene places objects by a spread (the cubes)
  std::string strategy = "dynamic-offsets";  ///< a strategy_catalog() name
  uint32_t width = 640, height = 480;        ///< the window's framebuffer size at start
  std::optional<float> time_s;               ///< freeze the animation (reproducible frames)
  double moving = 1.0;                       ///< RenderOptions::moving
  bool occlusion = true;                     ///< RenderOptions::occlusion
  std::string draw_path;                     ///< RenderOptions::draw_path
  std::string material_backend;              ///< RenderOptions::material_backend
  std::string clusters = "auto";             ///< RenderOptions::clusters (gpu-driven)
  float lod_error_px = 1.0f;                 ///< RenderOptions::lod_error_px (the panel's slider)
  /// RenderOptions::debug_colors at start (the panel's combo): normal, clusters or levels; the
  /// first run refuses another value than normal without the cluster path.
  std::string debug_colors = "normal";
  std::string rasterizer = "auto";           ///< RenderOptions::rasterizer
  std::string raster_rung;                   ///< RenderOptions::raster_rung
  uint32_t threads = 0;                      ///< RenderOptions::threads
  uint32_t encode_threads = 1;               ///< RenderOptions::encode_threads
  uint32_t frames_in_flight = 2;             ///< RenderOptions::frames_in_flight
  std::string present_mode = "fifo";         ///< fifo, mailbox or immediate
  uint64_t frames = 0;                       ///< close after this many presented frames (0: never)
  std::string png;                           ///< write the last presented frame here
  std::string script;                        ///< input to replay (parse_script)
  bool panel = true;                         ///< show the panel at start
  bool quiet = false;                        ///< no summary line on stderr
};

/// One line of a --script file: at `frame` (frames presented so far), do `action` with `args`.
struct ScriptEvent {
  uint64_t frame = 0;  ///< applied once this many frames are presented
  std::string action;  ///< strategy, objects, spread, resize, pause, resume, occlusion, panel,
                       ///< orbit, zoom, camera, lod-error, debug-colors, quit
  std::vector<std::string> args;  ///< the action's words
  uint32_t line = 0;              ///< line number in the file (for messages)
};

/// Reads a script: one event per line, `FRAME ACTION [ARGS]`, frames not decreasing; `#` starts a
/// comment, blank lines are skipped. Throws Io (unreadable) or InvalidArgument naming the line.
std::vector<ScriptEvent> parse_script(const std::string& path);

/// The present mode `name` names (fifo, fifo-relaxed, mailbox, immediate) when `offered` (a
/// surface's capabilities) holds it. Throws InvalidArgument for another name,
/// PresentModeUnsupported (one line naming the offered modes) when the surface lacks it.
WGPUPresentMode pick_present_mode(const std::string& name,
                                  const std::vector<WGPUPresentMode>& offered);

/// Opens the window and runs until it is closed, `frames` are presented or the script quits.
/// Throws NoDisplay (no DISPLAY, or GLFW cannot open it), PresentModeUnsupported, and whatever
/// render() throws. Returns the exit code (0).
int run_view(const ViewOptions& options);

}  // namespace bindery::view
