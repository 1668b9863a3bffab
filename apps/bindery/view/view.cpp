// SPDX-License-Identifier: MIT
// `bindery view`: render()'s frame loop, unchanged, drawing into its offscreen target; after each
// submit (RenderOptions::after_submit) the target is drawn into the window's surface texture by a
// fullscreen triangle (a texel per pixel, so the window shows the image `render --png` writes;
// it also turns RGBA into the surface's BGRA), the panel on top, then presented. A change that
// needs a new target or strategy (strategy, object count, window size, occlusion) ends render()'s
// run and starts the next one: the old strategy's objects are released, the new ones built.
#include "view.hpp"

#include "imgui_webgpu.hpp"
#include "native_surface.hpp"

#include <bindery/core/error.hpp>
#include <bindery/core/io.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/headless/image.hpp>
#include <bindery/headless/offscreen.hpp>
#include <bindery/render/renderer.hpp>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>

#include <fmt/format.h>
#include <glm/glm.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>

namespace bindery::view {
namespace {

using Clock = std::chrono::steady_clock;

// The blit: texel (x, y) of the frame to pixel (x, y) of the surface texture, the same size. For
// an sRGB surface the value is decoded first, so that the surface's encoding gives it back.
constexpr const char* kBlitShader = R"(
@group(0) @binding(0) var frame: texture_2d<f32>;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  let p = vec2f(f32((i << 1u) & 2u), f32(i & 2u));
  return vec4f(p * 2.0 - 1.0, 0.0, 1.0);
}

fn decode(c: vec3f) -> vec3f {
  return select(pow((c + 0.055) / 1.055, vec3f(2.4)), c / 12.92, c <= vec3f(0.04045));
}

@fragment fn fs(@builtin(position) position: vec4f) -> @location(0) vec4f {
  let size = vec2i(textureDimensions(frame));
  let c = textureLoad(frame, min(vec2i(position.xy), size - 1), 0);
  if (SRGB) {
    return vec4f(decode(c.rgb), c.a);
  }
  return c;
}
)";

bool is_srgb(WGPUTextureFormat f) {
  return f == WGPUTextureFormat_RGBA8UnormSrgb || f == WGPUTextureFormat_BGRA8UnormSrgb;
}

std::string present_mode_name(WGPUPresentMode m) {
  switch (m) {
    case WGPUPresentMode_Fifo:
      return "fifo";
    case WGPUPresentMode_FifoRelaxed:
      return "fifo-relaxed";
    case WGPUPresentMode_Immediate:
      return "immediate";
    case WGPUPresentMode_Mailbox:
      return "mailbox";
    default:
      return fmt::format("mode {}", int(m));
  }
}

std::string format_name(WGPUTextureFormat f) {
  switch (f) {
    case WGPUTextureFormat_RGBA8Unorm:
      return "rgba8unorm";
    case WGPUTextureFormat_RGBA8UnormSrgb:
      return "rgba8unorm-srgb";
    case WGPUTextureFormat_BGRA8Unorm:
      return "bgra8unorm";
    case WGPUTextureFormat_BGRA8UnormSrgb:
      return "bgra8unorm-srgb";
    case WGPUTextureFormat_RGB10A2Unorm:
      return "rgb10a2unorm";
    case WGPUTextureFormat_RGBA16Float:
      return "rgba16float";
    default:
      return fmt::format("format {}", int(f));
  }
}

/// GLFW's session: glfwTerminate on the way out.
struct GlfwSession {
  GLFWwindow* window = nullptr;
  bool imgui = false;
  ~GlfwSession() {
    if (imgui) {
      ImGui_ImplGlfw_Shutdown();
      ImGui::DestroyContext();
    }
    if (window) glfwDestroyWindow(window);
    glfwTerminate();
  }
};

std::string glfw_error;  // GLFW's last error message (its error callback)

/// The surface: configured, reconfigured, unconfigured and released here.
struct Surface {
  WGPUSurface surface = nullptr;
  WGPUSurfaceConfiguration config = WGPU_SURFACE_CONFIGURATION_INIT;
  bool configured = false;
  uint32_t max_extent = 0;  // the device's maxTextureDimension2D, once known
  ~Surface() {
    if (surface && configured) wgpuSurfaceUnconfigure(surface);
    if (surface) wgpuSurfaceRelease(surface);
  }
  // Throws TextureSizeOutOfRange for a side past max_extent (wgpu-native would abort the process
  // inside wgpuSurfaceConfigure).
  void configure(uint32_t width, uint32_t height) {
    if (max_extent && (width > max_extent || height > max_extent))
      throw Error(ErrorKind::TextureSizeOutOfRange,
                  fmt::format("view: window {}x{}, valid 1..{} each (maxTextureDimension2D)",
                              width, height, max_extent));
    config.width = width;
    config.height = height;
    wgpuSurfaceConfigure(surface, &config);
    configured = true;
  }
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
  bool occlusion = true;
  bool paused = false;
  bool panel = true;
  bool operator==(const Settings&) const = default;
};

uint32_t parse_u32(const ScriptEvent& e, size_t i, uint32_t max) {
  if (i >= e.args.size())
    throw Error(
        ErrorKind::InvalidArgument,
        fmt::format("view: --script line {}: {} needs {} value(s)", e.line, e.action, i + 1));
  const std::string& s = e.args[i];
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v > max)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("view: --script line {}: {} '{}' is not a whole number in 0..{}",
                            e.line, e.action, escape_for_message(s), max));
  return uint32_t(v);
}

float parse_float(const ScriptEvent& e, size_t i, float min, float max) {
  float v = 0;
  const std::string* s = i < e.args.size() ? &e.args[i] : nullptr;
  const auto r =
      s ? std::from_chars(s->data(), s->data() + s->size(), v) : std::from_chars_result{};
  if (!s || r.ec != std::errc() || r.ptr != s->data() + s->size() || !(v >= min && v <= max))
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("view: --script line {}: {} needs a number in {}..{} as value {}",
                            e.line, e.action, min, max, i + 1));
  return v;
}

/// The orbit camera: degrees around the scene's target (yaw about its up axis, pitch towards
/// it) and a factor on the eye's distance, on top of Scene::view. The identity leaves the view
/// untouched (the image of `render`).
struct Orbit {
  float yaw = 0, pitch = 0, zoom = 1;
  bool identity() const { return yaw == 0 && pitch == 0 && zoom == 1; }
  void apply(View& view) const {
    if (identity()) return;
    const glm::vec3 offset = view.eye - view.target;
    const float distance = glm::length(offset);
    if (distance <= 0) return;
    const float yaw0 = std::atan2(offset.x, offset.z);
    const float pitch0 = std::asin(std::clamp(offset.y / distance, -1.0f, 1.0f));
    const float y = yaw0 + glm::radians(yaw);
    const float p =
        std::clamp(pitch0 + glm::radians(pitch), glm::radians(-89.0f), glm::radians(89.0f));
    const float r = distance * zoom;
    view.eye = view.target +
               r * glm::vec3(std::cos(p) * std::sin(y), std::sin(p), std::cos(p) * std::cos(y));
  }
};

double scroll_y = 0;  // GLFW's scroll callback adds here; read (and cleared) once a frame

bool parse_on_off(const ScriptEvent& e) {
  if (e.args.size() == 1 && (e.args[0] == "on" || e.args[0] == "off")) return e.args[0] == "on";
  throw Error(ErrorKind::InvalidArgument,
              fmt::format("view: --script line {}: {} takes on or off", e.line, e.action));
}

const std::vector<WGPUPresentMode> kAllModes = {WGPUPresentMode_Fifo, WGPUPresentMode_FifoRelaxed,
                                                WGPUPresentMode_Mailbox, WGPUPresentMode_Immediate};

std::string mode_list(const std::vector<WGPUPresentMode>& modes) {
  std::string list;
  for (WGPUPresentMode m : modes) list += (list.empty() ? "" : ", ") + present_mode_name(m);
  return list.empty() ? std::string("no present mode") : list;
}

}  // namespace

WGPUPresentMode pick_present_mode(const std::string& name,
                                  const std::vector<WGPUPresentMode>& offered) {
  WGPUPresentMode wanted = WGPUPresentMode_Undefined;
  for (WGPUPresentMode m : kAllModes)
    if (name == present_mode_name(m)) wanted = m;
  if (wanted == WGPUPresentMode_Undefined)
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("view: --present-mode '{}' is not fifo, fifo-relaxed, mailbox or "
                            "immediate",
                            escape_for_message(name)));
  if (std::find(offered.begin(), offered.end(), wanted) == offered.end())
    throw Error(
        ErrorKind::PresentModeUnsupported,
        fmt::format("view: --present-mode {}: this surface offers {}", name, mode_list(offered)));
  return wanted;
}

std::vector<ScriptEvent> parse_script(const std::string& path) {
  const std::string text = read_input_file(path, "view: --script", 1 << 20);
  std::vector<ScriptEvent> events;
  std::istringstream in(text);
  std::string line;
  uint32_t number = 0;
  uint64_t last_frame = 0;
  static const std::array<std::string_view, 11> kActions = {
      "strategy", "objects", "resize", "pause",  "resume", "occlusion",
      "panel",    "orbit",   "zoom",   "camera", "quit"};
  while (std::getline(in, line)) {
    ++number;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string frame_text;
    if (!(words >> frame_text)) continue;
    ScriptEvent e;
    e.line = number;
    auto r = std::from_chars(frame_text.data(), frame_text.data() + frame_text.size(), e.frame);
    if (r.ec != std::errc() || r.ptr != frame_text.data() + frame_text.size())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("view: --script line {}: '{}' is not a frame number (lines are "
                              "FRAME ACTION [VALUES])",
                              number, escape_for_message(frame_text)));
    if (e.frame < last_frame)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("view: --script line {}: frame {} comes before frame {} of the "
                              "line above",
                              number, e.frame, last_frame));
    last_frame = e.frame;
    if (!(words >> e.action) ||
        std::find(kActions.begin(), kActions.end(), e.action) == kActions.end())
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("view: --script line {}: action '{}' is not one of strategy, "
                              "objects, resize, pause, resume, occlusion, panel, orbit, zoom, "
                              "camera, quit",
                              number, escape_for_message(e.action)));
    for (std::string w; words >> w;) e.args.push_back(w);
    events.push_back(std::move(e));
  }
  return events;
}

int run_view(const ViewOptions& o) {
  // Everything that can be refused without a window first.
  const std::vector<ScriptEvent> script =
      o.script.empty() ? std::vector<ScriptEvent>{} : parse_script(o.script);
  for (const ScriptEvent& e : script) {
    if (e.action == "strategy") {
      if (e.args.size() != 1)
        throw Error(ErrorKind::InvalidArgument,
                    fmt::format("view: --script line {}: strategy takes one name", e.line));
      with_context(fmt::format("view: --script line {}", e.line),
                   [&] { return find_strategy(e.args[0]); });
    } else if (e.action == "objects") {
      parse_u32(e, 0, o.max_count);
    } else if (e.action == "resize") {
      if (parse_u32(e, 0, 16384) == 0 || parse_u32(e, 1, 16384) == 0)
        throw Error(
            ErrorKind::InvalidArgument,
            fmt::format("view: --script line {}: resize needs a size of at least 1x1", e.line));
    } else if (e.action == "orbit") {
      parse_float(e, 0, -3600.0f, 3600.0f);
      parse_float(e, 1, -3600.0f, 3600.0f);
    } else if (e.action == "zoom") {
      parse_float(e, 0, 0.01f, 100.0f);
    } else if (e.action == "camera") {
      if (e.args.size() != 1 || e.args[0] != "reset")
        throw Error(ErrorKind::InvalidArgument,
                    fmt::format("view: --script line {}: camera takes reset", e.line));
    } else if (e.action == "occlusion" || e.action == "panel") {
      parse_on_off(e);
    }
  }
  pick_present_mode(o.present_mode, kAllModes);  // the name, before a window
  if (!o.png.empty()) check_output_file(o.png, "view: --png");

  // The window.
  const char* display = std::getenv("DISPLAY");
  if (display == nullptr || *display == '\0')
    throw Error(ErrorKind::NoDisplay,
                "view: no display: DISPLAY is not set (bindery view opens an X11 window; on a "
                "machine without a screen run it under Xvfb, e.g. xvfb-run -a bindery view)");
  glfwSetErrorCallback([](int, const char* message) { glfw_error = message ? message : ""; });
  if (!glfwInit())
    throw Error(ErrorKind::NoDisplay,
                fmt::format("view: no display: GLFW could not open DISPLAY '{}' ({})",
                            escape_for_message(display), escape_for_message(glfw_error)));
  GlfwSession glfw;
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  glfw.window = glfwCreateWindow(int(o.width), int(o.height), "bindery view", nullptr, nullptr);
  if (glfw.window == nullptr)
    throw Error(ErrorKind::NoDisplay,
                fmt::format("view: GLFW could not create a window on DISPLAY '{}' ({})",
                            escape_for_message(display), escape_for_message(glfw_error)));
  GLFWwindow* window = glfw.window;

  // Instance, surface, then a device whose adapter can present to it.
  gpu::Instance instance = Device::create_instance(o.device.backend);
  // Declared before the surface so that it outlives it: the surface is unconfigured and
  // released while its device is still alive (Dawn's swap chain needs the device to let go).
  std::optional<Device> device_holder;
  Surface surface;
  surface.surface = create_window_surface(instance.get(), window);
  DeviceOptions device_options = o.device;
  device_options.instance = instance.get();
  device_options.compatible_surface = surface.surface;
  const Device& device = device_holder.emplace(Device::create(device_options));

  WGPUSurfaceCapabilities caps = WGPU_SURFACE_CAPABILITIES_INIT;
  if (wgpuSurfaceGetCapabilities(surface.surface, device.adapter_handle(), &caps) !=
      WGPUStatus_Success)
    throw Error(ErrorKind::WebGPUValidation, "view: wgpuSurfaceGetCapabilities failed");
  const std::vector<WGPUTextureFormat> formats(caps.formats, caps.formats + caps.formatCount);
  const std::vector<WGPUPresentMode> modes(caps.presentModes,
                                           caps.presentModes + caps.presentModeCount);
  const std::vector<WGPUCompositeAlphaMode> alphas(caps.alphaModes,
                                                   caps.alphaModes + caps.alphaModeCount);
  const WGPUTextureUsage surface_usages = caps.usages;
  wgpuSurfaceCapabilitiesFreeMembers(caps);
  const std::string offered = mode_list(modes);
  const WGPUPresentMode wanted_mode = pick_present_mode(o.present_mode, modes);
  if (formats.empty())
    throw Error(ErrorKind::WebGPUValidation, "view: the surface offers no texture format");
  // The renderer's RGBA8 first, then BGRA8 (a texel-exact copy either way), else what is offered.
  WGPUTextureFormat format = formats.front();
  for (WGPUTextureFormat f : {WGPUTextureFormat_BGRA8Unorm, WGPUTextureFormat_RGBA8Unorm})
    if (std::find(formats.begin(), formats.end(), f) != formats.end()) format = f;
  const WGPUCompositeAlphaMode alpha =
      std::find(alphas.begin(), alphas.end(), WGPUCompositeAlphaMode_Opaque) != alphas.end()
          ? WGPUCompositeAlphaMode_Opaque
          : (alphas.empty() ? WGPUCompositeAlphaMode_Auto : alphas.front());
  const bool copy_surface = (surface_usages & WGPUTextureUsage_CopySrc) != 0;
  surface.config.device = device.get();
  surface.max_extent = device.limits().maxTextureDimension2D;
  surface.config.format = format;
  surface.config.usage =
      WGPUTextureUsage_RenderAttachment | (copy_surface ? WGPUTextureUsage_CopySrc : 0);
  surface.config.alphaMode = alpha;
  surface.config.presentMode = wanted_mode;
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window, &fb_w, &fb_h);
  if (fb_w > 0 && fb_h > 0) surface.configure(uint32_t(fb_w), uint32_t(fb_h));

  // The blit pipeline for the surface's format.
  std::string blit_source = kBlitShader;
  blit_source.replace(blit_source.find("SRGB"), 4, is_srgb(format) ? "true" : "false");
  gpu::ShaderModule blit_shader = device.create_shader_module("view blit", blit_source);
  WGPUColorTargetState blit_target = WGPU_COLOR_TARGET_STATE_INIT;
  blit_target.format = format;
  blit_target.writeMask = WGPUColorWriteMask_All;
  WGPUFragmentState blit_fragment = WGPU_FRAGMENT_STATE_INIT;
  blit_fragment.module = blit_shader.get();
  blit_fragment.entryPoint = gpu::sv("fs");
  blit_fragment.targetCount = 1;
  blit_fragment.targets = &blit_target;
  WGPURenderPipelineDescriptor blit_desc = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  blit_desc.label = gpu::sv("view blit");
  blit_desc.vertex.module = blit_shader.get();
  blit_desc.vertex.entryPoint = gpu::sv("vs");
  blit_desc.fragment = &blit_fragment;
  const gpu::RenderPipeline blit =
      gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device.get(), &blit_desc));
  const gpu::BindGroupLayout blit_layout =
      gpu::BindGroupLayout::acquire(wgpuRenderPipelineGetBindGroupLayout(blit.get(), 0));
  device.check();

  // The panel.
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  glfw.imgui = true;
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the working directory
  ImGui::StyleColorsDark();
  // Set before ImGui's backend installs its callbacks, which then call this one too.
  glfwSetScrollCallback(window, [](GLFWwindow*, double, double dy) { scroll_y += dy; });
  ImGui_ImplGlfw_InitForOther(window, true);
  ImGuiRenderer imgui(device, format);

  // The state of the session.
  Settings now{o.strategy, o.count, o.occlusion, false, o.panel};
  Settings run_settings = now;                             // what the current run draws
  std::optional<std::pair<uint32_t, uint32_t>> resize_to;  // a script's resize, waited for
  uint64_t presented = 0;                                  // frames presented in the whole session
  size_t next_event = 0;
  bool quit = false;
  bool final_frame = false;  // the next frame presented is the last (window closed, --frames)
  float anim_time = 0.0f;
  uint32_t outdated = 0, lost = 0, timeouts = 0, suboptimal = 0, reconfigured = 0;
  std::string status;  // the panel's last message (a refused switch)
  Rolling interval, cpu, math, gpu, present_ms;
  // The summary's medians: the last kWindow frames of the run, whatever the panel shows.
  Rolling latency;
  std::vector<float> graph;
  std::optional<CullingCounts> culling;
  std::vector<GpuSpan> spans;  // the last finished frame's GPU passes
  std::optional<Image> last_image;
  uint32_t runs = 0, refused = 0;
  std::optional<Settings> good;  // the settings of the last run that ended without an error
  std::string leftovers;         // handles a run left behind ("Buffer +2 after run 3")
  std::array<bool, GLFW_KEY_LAST + 1> key_down{};
  std::vector<std::string> names;
  for (const StrategyInfo& info : strategy_catalog()) names.emplace_back(info.name);
  const std::string gpu_draw_path =
      o.draw_path.empty() ? std::string(gpu_driven::to_string(gpu_driven::best_draw_path(device)))
                          : o.draw_path;

  Orbit orbit;
  bool dragging = false;
  double cursor_x = 0, cursor_y = 0;

  auto apply_events = [&] {
    while (next_event < script.size() && script[next_event].frame <= presented) {
      const ScriptEvent& e = script[next_event++];
      if (e.action == "strategy")
        now.strategy = e.args[0];
      else if (e.action == "objects")
        now.count = parse_u32(e, 0, o.max_count);
      else if (e.action == "pause")
        now.paused = true;
      else if (e.action == "resume")
        now.paused = false;
      else if (e.action == "occlusion")
        now.occlusion = parse_on_off(e);
      else if (e.action == "panel")
        now.panel = parse_on_off(e);
      else if (e.action == "orbit") {
        orbit.yaw += parse_float(e, 0, -3600.0f, 3600.0f);
        orbit.pitch =
            std::clamp(orbit.pitch + parse_float(e, 1, -3600.0f, 3600.0f), -179.0f, 179.0f);
      } else if (e.action == "zoom")
        orbit.zoom = std::clamp(orbit.zoom * parse_float(e, 0, 0.01f, 100.0f), 0.01f, 100.0f);
      else if (e.action == "camera")
        orbit = Orbit{};
      else if (e.action == "quit")
        final_frame = true;  // as esc: one more frame, the last, presented (and --png's)
      else if (e.action == "resize") {
        resize_to = {parse_u32(e, 0, 16384), parse_u32(e, 1, 16384)};
        glfwSetWindowSize(window, int(resize_to->first), int(resize_to->second));
      }
    }
  };
  // A key's press (its down edge since the last frame).
  auto pressed = [&](int key) {
    const bool down = glfwGetKey(window, key) == GLFW_PRESS;
    const bool edge = down && !key_down[size_t(key)];
    key_down[size_t(key)] = down;
    return edge && !ImGui::GetIO().WantCaptureKeyboard;
  };
  auto step_strategy = [&](int delta) {
    auto it = std::find(names.begin(), names.end(), now.strategy);
    const int i = int(it - names.begin());
    now.strategy = names[size_t((i + delta + int(names.size())) % int(names.size()))];
  };
  auto handle_input = [&] {
    glfwPollEvents();
    if (glfwWindowShouldClose(window) && !final_frame) final_frame = true;
    if (pressed(GLFW_KEY_ESCAPE) || pressed(GLFW_KEY_Q)) final_frame = true;
    if (pressed(GLFW_KEY_SPACE)) now.paused = !now.paused;
    if (pressed(GLFW_KEY_TAB)) now.panel = !now.panel;
    if (pressed(GLFW_KEY_N)) step_strategy(1);
    if (pressed(GLFW_KEY_B)) step_strategy(-1);
    if (pressed(GLFW_KEY_O)) now.occlusion = !now.occlusion;
    if (pressed(GLFW_KEY_R)) orbit = Orbit{};
    // The mouse: drag with the left button to orbit, the wheel to zoom (not over the panel).
    double x = 0, y = 0;
    glfwGetCursorPos(window, &x, &y);
    const bool drag = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS &&
                      !ImGui::GetIO().WantCaptureMouse;
    if (drag && dragging) {
      orbit.yaw -= float(x - cursor_x) * 0.3f;
      orbit.pitch = std::clamp(orbit.pitch + float(y - cursor_y) * 0.3f, -179.0f, 179.0f);
    }
    dragging = drag;
    cursor_x = x;
    cursor_y = y;
    if (scroll_y != 0 && !ImGui::GetIO().WantCaptureMouse)
      orbit.zoom = std::clamp(orbit.zoom * std::pow(0.9f, float(scroll_y)), 0.01f, 100.0f);
    scroll_y = 0;
    if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD))
      now.count = uint32_t(std::min<uint64_t>(o.max_count, std::max<uint64_t>(1, now.count) * 2));
    if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT)) now.count = now.count / 2;
  };
  // Waits (events only) while the window is minimised (framebuffer 0x0), or until a script's
  // resize has reached the framebuffer.
  auto settle_size = [&] {
    for (int i = 0;; ++i) {
      glfwGetFramebufferSize(window, &fb_w, &fb_h);
      const bool zero = fb_w <= 0 || fb_h <= 0;
      const bool waiting =
          resize_to && (uint32_t(fb_w) != resize_to->first || uint32_t(fb_h) != resize_to->second);
      if (!zero && (!waiting || i >= 200)) break;
      if (glfwWindowShouldClose(window) || quit) return false;
      glfwWaitEventsTimeout(0.01);
    }
    resize_to.reset();
    return true;
  };

  auto panel = [&](const RenderOptions& ro, const Scene& scene) {
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    if (now.panel) {
      ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
      ImGui::Begin("bindery view", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
      ImGui::Text("%s scene on %s (%s)", scene.name.c_str(), device.adapter().name.c_str(),
                  device.adapter().implementation.c_str());
      int current = int(std::find(names.begin(), names.end(), now.strategy) - names.begin());
      if (ImGui::BeginCombo("strategy (n/b)", now.strategy.c_str())) {
        for (int i = 0; i < int(names.size()); ++i)
          if (ImGui::Selectable(names[size_t(i)].c_str(), i == current))
            now.strategy = names[size_t(i)];
        ImGui::EndCombo();
      }
      ImGui::Text("%s: %u", scene.name == "gltf" ? "copies" : "objects", now.count);
      ImGui::SameLine();
      if (ImGui::Button("/2")) now.count /= 2;
      ImGui::SameLine();
      if (ImGui::Button("-100")) now.count = now.count > 100 ? now.count - 100 : 0;
      ImGui::SameLine();
      if (ImGui::Button("+100")) now.count = std::min(o.max_count, now.count + 100);
      ImGui::SameLine();
      if (ImGui::Button("x2"))
        now.count = uint32_t(std::min<uint64_t>(o.max_count, std::max<uint64_t>(1, now.count) * 2));
      if (scene.name == "gltf" && now.count == 0) now.count = 1;
      if (ro.strategy == "gpu-driven") ImGui::Checkbox("occlusion culling (o)", &now.occlusion);
      ImGui::Checkbox("pause animation (space)", &now.paused);
      ImGui::Text("camera: yaw %.0f, pitch %.0f, zoom %.2f", double(orbit.yaw), double(orbit.pitch),
                  double(orbit.zoom));
      ImGui::SameLine();
      if (ImGui::Button("reset (r)")) orbit = Orbit{};
      ImGui::Separator();
      const double ms = interval.mean();
      ImGui::Text("%.1f fps, frame %.2f ms", ms > 0 ? 1000.0 / ms : 0.0, ms);
      ImGui::Text("cpu %.2f ms, math %.2f ms, blit+panel+present %.2f ms", cpu.mean(), math.mean(),
                  present_ms.mean());
      if (!gpu.values.empty())
        ImGui::Text("gpu %.2f ms", gpu.mean());
      else
        ImGui::Text("gpu n/a (no timestamp queries)");
      if (spans.size() > 1) {
        std::string line = "passes:";
        for (const GpuSpan& span : spans) line += fmt::format(" {} {:.2f}", span.name, span.ms);
        ImGui::TextUnformatted(line.c_str());
      }
      if (culling)
        ImGui::Text("culling: %u objects, %u in frustum, %u unoccluded, %u drawn", culling->objects,
                    culling->after_frustum, culling->after_occlusion, culling->drawn);
      if (ro.strategy == "gpu-driven") ImGui::Text("draw path %s", gpu_draw_path.c_str());
      ImGui::Text("present %s, %s %ux%u, %u frames in flight", o.present_mode.c_str(),
                  format_name(format).c_str(), ro.width, ro.height, ro.frames_in_flight);
      ImGui::Text("outdated %u, lost %u, timeouts %u, reconfigured %u", outdated, lost, timeouts,
                  reconfigured);
      if (!graph.empty()) {
        const float top = std::max(1.0f, *std::max_element(graph.begin(), graph.end()));
        ImGui::PlotLines("frame ms", graph.data(), int(graph.size()), 0, nullptr, 0.0f, top,
                         ImVec2(240, 50));
      }
      if (!status.empty()) ImGui::TextWrapped("%s", status.c_str());
      ImGui::TextDisabled("tab panel, space pause, n/b strategy, +/- objects, o occlusion");
      ImGui::TextDisabled("drag orbit, wheel zoom, r camera reset, esc quit");
      ImGui::End();
    }
    ImGui::Render();
  };

  apply_events();
  std::optional<Scene> scene;
  uint32_t scene_count = UINT32_MAX;
  while (!quit) {
    if (!settle_size()) break;
    if (uint32_t(fb_w) != surface.config.width || uint32_t(fb_h) != surface.config.height ||
        !surface.configured) {
      surface.configure(uint32_t(fb_w), uint32_t(fb_h));
      ++reconfigured;
    }
    if (!scene || scene_count != now.count) {
      scene.reset();
      scene = o.make_scene(now.count);
      scene_count = now.count;
    }
    run_settings = now;
    RenderOptions ro;
    ro.strategy = now.strategy;
    ro.width = uint32_t(fb_w);
    ro.height = uint32_t(fb_h);
    ro.frames = 1'000'000;
    ro.moving = o.moving_from_scene ? scene->moving_share() : o.moving;
    ro.keep_last_frame = false;
    ro.keep_frame_timings = false;
    ro.frames_in_flight = o.frames_in_flight;
    ro.occlusion = now.occlusion;
    ro.draw_path = o.draw_path;
    ro.material_backend = o.material_backend;
    ro.threads = o.threads;
    ro.encode_threads = o.encode_threads;
    ro.extra_color_usage = WGPUTextureUsage_TextureBinding;
    ro.frame_time = [&](uint32_t) { return o.time_s ? *o.time_s : anim_time; };
    ro.camera = [&](uint32_t, View& view) { orbit.apply(view); };
    culling.reset();
    gpu.clear();
    spans.clear();
    WGPUTexture bound_texture = nullptr;
    gpu::TextureView frame_view;
    gpu::BindGroup frame_group;
    ro.on_frame_done = [&](uint32_t, const FrameTiming& t, const Counters&) {
      interval.add(t.interval_ms);
      latency.add(t.frame_ms);
      cpu.add(t.cpu_ms);
      math.add(t.math_ms);
      if (t.gpu_ms) gpu.add(*t.gpu_ms);
      culling = t.culling;
      spans = t.gpu_spans;
      graph.push_back(float(t.interval_ms));
      if (graph.size() > 120) graph.erase(graph.begin());
    };
    // After frame f is submitted: draw it into the surface texture, the panel on top, present.
    ro.after_submit = [&](uint32_t, WGPUTexture color) -> bool {
      const Clock::time_point t0 = Clock::now();
      if (!o.time_s && !now.paused) anim_time += 1.0f / 60.0f;
      handle_input();
      glfwGetFramebufferSize(window, &fb_w, &fb_h);
      if (uint32_t(fb_w) != ro.width || uint32_t(fb_h) != ro.height) return false;  // resized
      if (color != bound_texture) {
        frame_view = gpu::TextureView::acquire(wgpuTextureCreateView(color, nullptr));
        WGPUBindGroupEntry entry = WGPU_BIND_GROUP_ENTRY_INIT;
        entry.binding = 0;
        entry.textureView = frame_view.get();
        WGPUBindGroupDescriptor bd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
        bd.layout = blit_layout.get();
        bd.entryCount = 1;
        bd.entries = &entry;
        frame_group = gpu::BindGroup::acquire(wgpuDeviceCreateBindGroup(device.get(), &bd));
        bound_texture = color;
      }
      WGPUSurfaceTexture st = WGPU_SURFACE_TEXTURE_INIT;
      wgpuSurfaceGetCurrentTexture(surface.surface, &st);
      switch (st.status) {
        case WGPUSurfaceGetCurrentTextureStatus_SuccessOptimal:
        case WGPUSurfaceGetCurrentTextureStatus_SuccessSuboptimal:
          break;
        case WGPUSurfaceGetCurrentTextureStatus_Timeout:
          ++timeouts;
          if (st.texture) wgpuTextureRelease(st.texture);
          return true;
        case WGPUSurfaceGetCurrentTextureStatus_Outdated:
        case WGPUSurfaceGetCurrentTextureStatus_Lost:
          ++(st.status == WGPUSurfaceGetCurrentTextureStatus_Lost ? lost : outdated);
          if (st.texture) wgpuTextureRelease(st.texture);
          surface.configure(surface.config.width, surface.config.height);
          ++reconfigured;
          return true;
        default:
          if (st.texture) wgpuTextureRelease(st.texture);
          device.check();  // a lost device says so
          throw Error(ErrorKind::WebGPUValidation,
                      fmt::format("view: the surface gave no texture (status {})", int(st.status)));
      }
      const gpu::Texture surface_texture = gpu::Texture::acquire(st.texture);
      const gpu::TextureView target =
          gpu::TextureView::acquire(wgpuTextureCreateView(surface_texture.get(), nullptr));
      panel(ro, *scene);

      gpu::CommandEncoder encoder =
          gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device.get(), nullptr));
      WGPURenderPassColorAttachment attachment = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
      attachment.view = target.get();
      attachment.loadOp = WGPULoadOp_Clear;
      attachment.storeOp = WGPUStoreOp_Store;
      attachment.clearValue = {0, 0, 0, 1};
      WGPURenderPassDescriptor pd = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
      pd.label = gpu::sv("view present");
      pd.colorAttachmentCount = 1;
      pd.colorAttachments = &attachment;
      WGPURenderPassEncoder pass = wgpuCommandEncoderBeginRenderPass(encoder.get(), &pd);
      wgpuRenderPassEncoderSetPipeline(pass, blit.get());
      wgpuRenderPassEncoderSetBindGroup(pass, 0, frame_group.get(), 0, nullptr);
      wgpuRenderPassEncoderDraw(pass, 3, 1, 0, 0);
      if (ImDrawData* data = ImGui::GetDrawData()) imgui.draw(*data, pass);
      wgpuRenderPassEncoderEnd(pass);
      wgpuRenderPassEncoderRelease(pass);
      const bool last = final_frame || (o.frames && presented + 1 >= o.frames);
      std::optional<TextureReadback> readback;
      if (last && !o.png.empty() && copy_surface) {
        readback.emplace(device, surface_texture.get());
        readback->record_copy(encoder.get());
      }
      const gpu::CommandBuffer commands =
          gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
      const WGPUCommandBuffer raw = commands.get();
      device.submit({&raw, 1});
      wgpuSurfacePresent(surface.surface);
      if (st.status == WGPUSurfaceGetCurrentTextureStatus_SuccessSuboptimal) {
        ++suboptimal;
        surface.configure(surface.config.width, surface.config.height);
        ++reconfigured;
      }
      ++presented;
      if (last && !o.png.empty())
        last_image = readback ? readback->read() : read_back(device, color);
      present_ms.add(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      apply_events();
      if (last) quit = true;
      if (quit) return false;
      // A new strategy, count or occlusion setting needs a new run; pause and panel do not.
      return now.strategy == run_settings.strategy && now.count == run_settings.count &&
             now.occlusion == run_settings.occlusion && !resize_to;
    };
    ++runs;
    const uint64_t presented_before = presented;
    const std::array<int64_t, gpu::kHandleTypeCount> handles_before = gpu::live_handles();
    try {
      render(device, *scene, ro);
      good = run_settings;
    } catch (const Error& e) {
      // A switch the device or scene refuses (before its first frame): back to the strategy
      // that ran, said in the panel. Anything else, or a refusal at start, is the command's error.
      const bool refusal =
          e.kind() == ErrorKind::StrategyUnavailable || e.kind() == ErrorKind::InvalidArgument;
      if (!good || presented != presented_before || !refusal) throw;
      status = fmt::format("{} refused: {}", now.strategy, e.what());
      // The whole run's settings go back (a count the strategy cannot hold would otherwise be
      // retried frame after frame).
      now.strategy = good->strategy;
      now.count = good->count;
      now.occlusion = good->occlusion;
      ++refused;
      if (!o.quiet) fmt::print(stderr, "bindery view: {}\n", escape_for_message(status));
    }
    // Every object of the run released with it (render()'s and the view's blit group): the live
    // handle counts are back where they were before it.
    frame_group.reset();
    frame_view.reset();
    const std::array<int64_t, gpu::kHandleTypeCount> handles_after = gpu::live_handles();
    for (size_t i = 0; i < handles_after.size(); ++i)
      if (handles_after[i] != handles_before[i])
        leftovers +=
            fmt::format("{}{} {:+} after run {}", leftovers.empty() ? "" : ", ",
                        gpu::handle_type_names()[i], handles_after[i] - handles_before[i], runs);
  }

  if (last_image) write_png(o.png, *last_image);
  if (!o.quiet)
    fmt::print(stderr,
               "bindery view: {} frames presented ({}, {} {}), strategy {}, {} {}; "
               "{} runs ({} refused), handles left over: {}; outdated {}, lost {}, suboptimal "
               "{}, timeouts {}; last {} frames, medians: interval {:.2f} ms ({:.1f} fps), "
               "present {:.2f} ms, cpu {:.2f} ms, latency {:.2f} ms (first CPU work to GPU "
               "done), {} frames in flight; the surface offers {}\n",
               presented, o.present_mode, format_name(format),
               copy_surface ? "surface copied" : "offscreen image", now.strategy, now.count,
               scene && scene->name == "gltf" ? "copies" : "objects", runs, refused,
               leftovers.empty() ? std::string("none") : leftovers, outdated, lost, suboptimal,
               timeouts, interval.values.size(), interval.median(),
               interval.median() > 0 ? 1000.0 / interval.median() : 0.0, present_ms.median(),
               cpu.median(), latency.median(), o.frames_in_flight, offered);
  if (!o.png.empty() && last_image)
    fmt::print("wrote {} ({})\n", escape_for_message(o.png),
               copy_surface ? "the presented surface texture"
                            : "the offscreen frame blitted into the surface");
  device.poll(true);
  return 0;
}

}  // namespace bindery::view
