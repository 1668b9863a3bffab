// SPDX-License-Identifier: MIT
// apps/bindery/view/view_session.hpp — private to apps/bindery/view/: `bindery view`'s session
// (ViewSession) and what its parts share: GLFW's session, the surface, the orbit camera, the
// settings the panel, keys and script change, rolling averages, and the script's value parsers.
#pragma once

#include "imgui_webgpu.hpp"
#include "view.hpp"

#include <bindery/core/device.hpp>
#include <bindery/core/gpu.hpp>
#include <bindery/headless/image.hpp>
#include <bindery/render/renderer.hpp>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bindery::view {

using Clock = std::chrono::steady_clock;

/// GLFW's session: glfwTerminate on the way out.
struct GlfwSession {
  bool initialised = false;  // glfwInit succeeded
  GLFWwindow* window = nullptr;
  bool imgui = false;
  ~GlfwSession();
};

/// The surface: configured, reconfigured, unconfigured and released here.
struct Surface {
  WGPUSurface surface = nullptr;
  WGPUSurfaceConfiguration config = WGPU_SURFACE_CONFIGURATION_INIT;
  bool configured = false;
  uint32_t max_extent = 0;  // the device's maxTextureDimension2D, once known
  ~Surface();
  // Throws TextureSizeOutOfRange for a side past max_extent (wgpu-native would abort the process
  // inside wgpuSurfaceConfigure).
  void configure(uint32_t width, uint32_t height);
};

/// The rolling average of the last kWindow values.
struct Rolling {
  static constexpr size_t kWindow = 120;
  std::deque<float> values;
  void add(double v) {
    values.push_back(float(v));
    if (values.size() > kWindow) values.pop_front();
  }
  double mean() const {
    return values.empty() ? 0.0
                          : std::accumulate(values.begin(), values.end(), 0.0) / values.size();
  }
  void clear() { values.clear(); }
  /// The median of the window (0 when empty).
  double median() const {
    if (values.empty()) return 0.0;
    std::vector<float> v(values.begin(), values.end());
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  }
};

/// Everything the panel, keys and script may change; a change of `run_key()` starts a new run.
struct Settings {
  std::string strategy;
  uint32_t count = 0;
  float spread = 1.0f;
  bool occlusion = true;
  bool paused = false;
  bool panel = true;
  bool operator==(const Settings&) const = default;
};

/// The orbit camera: degrees around the scene's target (yaw about its up axis, pitch towards
/// it) and a factor on the eye's distance, on top of Scene::view. The identity leaves the view
/// untouched (the image of `render`).
struct Orbit {
  float yaw = 0, pitch = 0, zoom = 1;
  bool identity() const { return yaw == 0 && pitch == 0 && zoom == 1; }
  void apply(View& view) const;
};

/// GLFW's scroll callback adds here; read (and cleared) once a frame (view_camera.cpp).
extern double scroll_y;

/// Every present mode, in the order --present-mode names them.
inline const std::vector<WGPUPresentMode> kAllModes = {
    WGPUPresentMode_Fifo, WGPUPresentMode_FifoRelaxed, WGPUPresentMode_Mailbox,
    WGPUPresentMode_Immediate};

/// Value `i` of script event `e`, a whole number in 0..max; throws InvalidArgument naming the line.
uint32_t parse_u32(const ScriptEvent& e, size_t i, uint32_t max);
/// Value `i` of script event `e`, a number in min..max; throws InvalidArgument naming the line.
float parse_float(const ScriptEvent& e, size_t i, float min, float max);
/// The one value of script event `e`, on or off; throws InvalidArgument naming the line.
bool parse_on_off(const ScriptEvent& e);

/// RenderOptions::debug_colors' values, in the panel's order (its combo's index).
inline const std::array<const char*, 3> kDebugColorModes = {"normal", "clusters", "levels"};
/// The index of `name` in kDebugColorModes; throws InvalidArgument naming `what` otherwise.
int debug_color_mode(const std::string& name, const std::string& what);

/// The format's name for messages ("bgra8unorm", ...).
std::string format_name(WGPUTextureFormat f);

/// One `bindery view` session: the window, a device presenting to it, the blit pipeline, the
/// panel, and the state that the panel, the keys and the script change. The constructor opens
/// everything (in the order of the members, so that they are released in reverse: the surface
/// before its device, the window last); run() is the loop of render() runs. Its member functions
/// live by what they do: the session, the script and the keys in view.cpp, the window and its
/// surface in view_window.cpp, the orbit camera in view_camera.cpp, the panel in view_panel.cpp.
class ViewSession {
 public:
  explicit ViewSession(const ViewOptions& o);

  /// Runs render() until the window closes, `frames` are presented or the script quits; a
  /// change of strategy, count, occlusion or size ends a run and starts the next.
  int run();

 private:
  const Device& device() const { return *device_; }
  GLFWwindow* window() const { return glfw_.window; }

  // ---- The window and its surface (view_window.cpp).

  // A script's resize within what the display and the surface allow: the screen's size (a window
  // beyond it cannot be shown; 16384 x 16384 on a 1024 x 768 screen took 22 s a frame and 7 GB)
  // and the device's maxTextureDimension2D. Throws InvalidArgument naming the line.
  void check_resize(const ScriptEvent& e, uint32_t w, uint32_t h) const;
  void open_window();
  // Instance, surface, then a device whose adapter can present to it.
  void create_device_and_surface();
  // The surface's format (the renderer's RGBA8 or BGRA8 first: a texel-exact copy either way),
  // alpha mode, present mode and usage; configured at the framebuffer's size.
  void configure_surface();
  // The blit pipeline for the surface's format.
  void build_blit_pipeline();
  // Waits (events only) while the window is minimised (framebuffer 0x0), or until a script's
  // resize has reached the framebuffer. False when the window closed meanwhile.
  bool settle_size();
  // The blit's bind group for the run's colour target (a new one when the target changes).
  void bind_frame(WGPUTexture color);
  // The surface's next texture into `st`. False (counted, the frame skipped) on a timeout, or
  // an outdated or lost surface (reconfigured); throws for anything else (a lost device says so).
  bool acquire_surface_texture(WGPUSurfaceTexture& st);
  // The frame `color` into `surface_texture` (fullscreen triangle), the panel on top; submitted
  // and presented. On the `last` frame with --png, the image read back: the surface texture
  // where it allows copies, else the offscreen frame.
  void blit_and_present(WGPUTexture surface_texture, WGPUTexture color, bool last);

  // ---- The orbit camera (view_camera.cpp).

  // Drag with the left button to orbit, the wheel to zoom (not over the panel).
  void handle_mouse();

  // ---- The panel (view_panel.cpp).

  void open_panel();
  void panel(const RenderOptions& ro);
  // Strategy, count, occlusion, pause, camera.
  void panel_controls(const RenderOptions& ro);
  // The cluster path's pixel error slider and debug colouring combo (with the levels' legend).
  void panel_clusters();
  // The scene and device, rates, times, culling counts, the surface, the frame-time graph.
  void panel_measurements(const RenderOptions& ro);

  // ---- Input: the script and the keys (view.cpp).

  // The script's events due at the frames presented so far.
  void apply_events();
  // A key's press (its down edge since the last frame).
  bool pressed(int key);
  void step_strategy(int delta);
  void double_count();
  void handle_input();

  // ---- One run of render(): its options, its frames, its end (view.cpp).

  RenderOptions run_options();
  // One render() run. A switch the device or scene refuses before its first frame goes back to
  // the settings that ran, said in the panel; anything else, or a refusal at start, is the
  // command's error. Every object of the run is released with it: the live handle counts are
  // back where they were before it, or the summary names what was left.
  void render_run();
  // After frame f is submitted (RenderOptions::after_submit): draw it into the surface texture,
  // the panel on top, present. False ends the run (resized, a new strategy, count or occlusion,
  // or the last frame); pause and panel do not need a new run.
  bool show(const RenderOptions& ro, WGPUTexture color);
  void print_summary() const;

  const ViewOptions& o_;
  const std::vector<ScriptEvent> script_;
  // Opened by the constructor, in this order.
  GlfwSession glfw_;
  gpu::Instance instance_;
  std::optional<Device> device_holder_;  // before the surface, so that it outlives it: Dawn's
                                         // swap chain needs its device to let go
  Surface surface_;
  const Device* device_ = nullptr;
  std::string offered_;  // the surface's present modes, for the summary
  WGPUTextureFormat format_ = WGPUTextureFormat_Undefined;
  bool copy_surface_ = false;  // the surface texture allows CopySrc (--png reads it back)
  gpu::ShaderModule blit_shader_;
  gpu::RenderPipeline blit_;
  gpu::BindGroupLayout blit_layout_;
  std::optional<ImGuiRenderer> imgui_;
  std::vector<std::string> names_;  // strategy_catalog()'s names, for the panel and n/b
  std::string gpu_draw_path_;       // gpu-driven's draw path on this device, for the panel

  // What the panel, keys and script change, and the run drawing it.
  Settings now_;
  Settings run_settings_;         // what the current run draws
  std::optional<Settings> good_;  // the settings of the last run that ended without an error
  std::optional<std::pair<uint32_t, uint32_t>> resize_to_;  // a script's resize, waited for
  size_t next_event_ = 0;
  bool quit_ = false;
  bool final_frame_ = false;  // the next frame presented is the last (window closed, --frames)
  float anim_time_ = 0.0f;
  Orbit orbit_;
  bool dragging_ = false;
  float lod_error_ = 1.0f;        // the cluster path's pixel error (panel, script)
  int debug_colors_ = 0;          // its debug colouring, an index of kDebugColorModes
  bool cluster_run_ = false;      // the current run takes the cluster path (cluster_tuning ran)
  ImGuiStyle base_style_;         // the panel's style before scaling to the window
  float spread_edit_ = 1.0f;     // the panel's spread slider while it is dragged
  bool editing_spread_ = false;  // the slider is held
  double cursor_x_ = 0, cursor_y_ = 0;
  std::array<bool, GLFW_KEY_LAST + 1> key_down_{};
  int fb_w_ = 0, fb_h_ = 0;  // the framebuffer's size, last read

  // Counts and measurements.
  uint64_t presented_ = 0;  // frames presented in the whole session
  uint32_t outdated_ = 0, lost_ = 0, timeouts_ = 0, suboptimal_ = 0, reconfigured_ = 0;
  uint32_t runs_ = 0, refused_ = 0;
  std::string status_;     // the panel's last message (a refused switch)
  std::string leftovers_;  // handles a run left behind ("Buffer +2 after run 3")
  Rolling interval_, cpu_, math_, gpu_, present_ms_;
  Rolling latency_;  // the summary's medians: the run's last kWindow frames
  std::vector<float> graph_;
  std::optional<CullingCounts> culling_;
  std::vector<GpuSpan> spans_;  // the last finished frame's GPU passes
  std::optional<Image> last_image_;

  // The current run's scene and the blit's binding of its colour target.
  std::optional<Scene> scene_;
  uint32_t scene_count_ = UINT32_MAX;
  float scene_spread_ = 0.0f;
  WGPUTexture bound_texture_ = nullptr;
  gpu::TextureView frame_view_;
  gpu::BindGroup frame_group_;
};

}  // namespace bindery::view
