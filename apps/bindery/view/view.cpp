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
#include <bindery/core/limits.hpp>
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
  bool initialised = false;  // glfwInit succeeded
  GLFWwindow* window = nullptr;
  bool imgui = false;
  ~GlfwSession() {
    if (!initialised) return;
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
  float spread = 1.0f;
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

// Each action's number of values: a line with more or fewer is refused (not read in part).
void check_value_count(const ScriptEvent& e) {
  static const std::array<std::pair<std::string_view, size_t>, 12> kValues = {{{"strategy", 1},
                                                                               {"objects", 1},
                                                                               {"spread", 1},
                                                                               {"resize", 2},
                                                                               {"pause", 0},
                                                                               {"resume", 0},
                                                                               {"occlusion", 1},
                                                                               {"panel", 1},
                                                                               {"orbit", 2},
                                                                               {"zoom", 1},
                                                                               {"camera", 1},
                                                                               {"quit", 0}}};
  for (const auto& [action, n] : kValues)
    if (e.action == action && e.args.size() != n)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("view: --script line {}: {} takes {} value{}, not {}", e.line,
                              e.action, n, n == 1 ? "" : "s", e.args.size()));
}

}  // namespace

WGPUPresentMode pick_present_mode(const std::string& name,
                                  const std::vector<WGPUPresentMode>& offered) {
  WGPUPresentMode wanted = WGPUPresentMode_Undefined;
  for (WGPUPresentMode m : kAllModes)
    if (name == present_mode_name(m)) wanted = m;
  if (wanted == WGPUPresentMode_Undefined) {
    std::vector<std::string> names;
    for (WGPUPresentMode m : kAllModes) names.push_back(present_mode_name(m));
    throw Error(ErrorKind::InvalidArgument,
                fmt::format("view: --present-mode '{}' is not fifo, fifo-relaxed, mailbox or "
                            "immediate{}",
                            escape_for_message(name), did_you_mean(name, names)));
  }
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
  static const std::array<std::string_view, 12> kActions = {
      "strategy", "objects", "spread", "resize", "pause",  "resume",
      "occlusion", "panel",  "orbit",  "zoom",   "camera", "quit"};
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
                              "objects, spread, resize, pause, resume, occlusion, panel, orbit, "
                              "zoom, camera, quit",
                              number, escape_for_message(e.action)));
    for (std::string w; words >> w;) e.args.push_back(w);
    check_value_count(e);
    events.push_back(std::move(e));
  }
  return events;
}

namespace {

/// The script, every event's values checked before a window opens (a strategy's name, counts,
/// sizes, angles), so that a bad line is refused without one. Throws InvalidArgument naming the
/// line, or what find_strategy throws for an unknown name.
std::vector<ScriptEvent> checked_script(const ViewOptions& o) {
  std::vector<ScriptEvent> script =
      o.script.empty() ? std::vector<ScriptEvent>{} : parse_script(o.script);
  for (const ScriptEvent& e : script) {
    if (e.action == "strategy") {
      try {
        find_strategy(e.args[0]);
      } catch (const Error& unknown) {
        throw Error(unknown.kind(),
                    fmt::format("view: --script line {}: {}", e.line, unknown.what()));
      }
    } else if (e.action == "objects") {
      if (parse_u32(e, 0, o.max_count) < o.min_count)
        throw Error(ErrorKind::InvalidArgument,
                    fmt::format("view: --script line {}: objects {} is below this scene's least, {}",
                                e.line, e.args[0], o.min_count));
    } else if (e.action == "spread") {
      if (!o.spread_applies)
        throw Error(ErrorKind::InvalidArgument,
                    fmt::format("view: --script line {}: spread places the cubes only", e.line));
      parse_float(e, 0, kMinSpread, kMaxSpread);
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
      if (e.args[0] != "reset")
        throw Error(ErrorKind::InvalidArgument,
                    fmt::format("view: --script line {}: camera takes reset", e.line));
    } else if (e.action == "occlusion" || e.action == "panel") {
      parse_on_off(e);
    }
  }
  return script;
}

/// What a surface offers a device's adapter (wgpuSurfaceGetCapabilities, copied out).
struct SurfaceOffer {
  std::vector<WGPUTextureFormat> formats;
  std::vector<WGPUPresentMode> modes;
  std::vector<WGPUCompositeAlphaMode> alphas;
  WGPUTextureUsage usages = WGPUTextureUsage_None;
};

SurfaceOffer surface_offer(WGPUSurface surface, WGPUAdapter adapter) {
  WGPUSurfaceCapabilities caps = WGPU_SURFACE_CAPABILITIES_INIT;
  if (wgpuSurfaceGetCapabilities(surface, adapter, &caps) != WGPUStatus_Success)
    throw Error(ErrorKind::WebGPUValidation, "view: wgpuSurfaceGetCapabilities failed");
  SurfaceOffer offer;
  offer.formats.assign(caps.formats, caps.formats + caps.formatCount);
  offer.modes.assign(caps.presentModes, caps.presentModes + caps.presentModeCount);
  offer.alphas.assign(caps.alphaModes, caps.alphaModes + caps.alphaModeCount);
  offer.usages = caps.usages;
  wgpuSurfaceCapabilitiesFreeMembers(caps);
  return offer;
}

/// One `bindery view` session: the window, a device presenting to it, the blit pipeline, the
/// panel, and the state that the panel, the keys and the script change. The constructor opens
/// everything (in the order of the members, so that they are released in reverse: the surface
/// before its device, the window last); run() is the loop of render() runs.
class ViewSession {
 public:
  explicit ViewSession(const ViewOptions& o) : o_(o), script_(checked_script(o)) {
    pick_present_mode(o.present_mode, kAllModes);  // the name, before a window
    if (!o.png.empty()) check_output_file(o.png, "view: --png");
    open_window();
    create_device_and_surface();
    configure_surface();
    build_blit_pipeline();
    open_panel();
    now_ = {o.strategy, o.count, o.spread, o.occlusion, false, o.panel};
    run_settings_ = now_;
    for (const StrategyInfo& info : strategy_catalog()) names_.emplace_back(info.name);
    gpu_draw_path_ = o.draw_path.empty()
                         ? std::string(gpu_driven::to_string(gpu_driven::best_draw_path(device())))
                         : o.draw_path;
  }

  /// Runs render() until the window closes, `frames` are presented or the script quits; a
  /// change of strategy, count, occlusion or size ends a run and starts the next.
  int run() {
    apply_events();
    while (!quit_) {
      if (!settle_size()) break;
      if (uint32_t(fb_w_) != surface_.config.width || uint32_t(fb_h_) != surface_.config.height ||
          !surface_.configured) {
        surface_.configure(uint32_t(fb_w_), uint32_t(fb_h_));
        ++reconfigured_;
      }
      now_.count = std::max(now_.count, o_.min_count);  // the keys and buttons halve and subtract
      if (!scene_ || scene_count_ != now_.count || scene_spread_ != now_.spread) {
        scene_.reset();
        scene_ = o_.make_scene(now_.count, now_.spread);
        scene_count_ = now_.count;
        scene_spread_ = now_.spread;
      }
      run_settings_ = now_;
      render_run();
    }
    if (last_image_) write_png(o_.png, *last_image_);
    print_summary();
    device().poll(true);
    return 0;
  }

 private:
  const Device& device() const { return *device_; }
  GLFWwindow* window() const { return glfw_.window; }

  // ---- Opening: window, device and surface, blit pipeline, panel.

  // A script's resize within what the display and the surface allow: the screen's size (a window
  // beyond it cannot be shown; 16384 x 16384 on a 1024 x 768 screen took 22 s a frame and 7 GB)
  // and the device's maxTextureDimension2D. Throws InvalidArgument naming the line.
  void check_resize(const ScriptEvent& e, uint32_t w, uint32_t h) const {
    uint32_t screen_w = kMaxX11WindowSide, screen_h = kMaxX11WindowSide;
    if (GLFWmonitor* monitor = glfwGetPrimaryMonitor())
      if (const GLFWvidmode* mode = glfwGetVideoMode(monitor); mode && mode->width > 0)
        screen_w = uint32_t(mode->width), screen_h = uint32_t(mode->height);
    const uint32_t max = device().limits().maxTextureDimension2D;
    if (w > screen_w || h > screen_h || w > max || h > max)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("view: --script line {}: resize {} {} exceeds the screen ({}x{}) or "
                              "the surface's maxTextureDimension2D ({})",
                              e.line, w, h, screen_w, screen_h, max));
  }

  void open_window() {
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
    glfw_.initialised = true;
    install_x11_error_handlers();
    // X11 window sizes are 16-bit: larger ones would wrap (65600 x 65584 opened 64 x 48).
    if (o_.width > kMaxX11WindowSide || o_.height > kMaxX11WindowSide)
      throw Error(ErrorKind::TextureSizeOutOfRange,
                  fmt::format("view: --size {}x{}: an X11 window has sides of 1..{} (and at most "
                              "the device's maxTextureDimension2D)",
                              o_.width, o_.height, kMaxX11WindowSide));
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfw_.window =
        glfwCreateWindow(int(o_.width), int(o_.height), "bindery view", nullptr, nullptr);
    install_x11_error_handlers();  // GLFW 3.3 resets the protocol handler after its calls
    if (glfw_.window == nullptr)
      throw Error(ErrorKind::NoDisplay,
                  fmt::format("view: GLFW could not create a window on DISPLAY '{}' ({})",
                              escape_for_message(display), escape_for_message(glfw_error)));
  }

  // Instance, surface, then a device whose adapter can present to it.
  void create_device_and_surface() {
    instance_ = Device::create_instance(o_.device.backend);
    surface_.surface = create_window_surface(instance_.get(), window());
    DeviceOptions device_options = o_.device;
    device_options.instance = instance_.get();
    device_options.compatible_surface = surface_.surface;
    device_ = &device_holder_.emplace(Device::create(device_options));
    const uint32_t max = device().limits().maxTextureDimension2D;
    if (o_.width > max || o_.height > max)
      throw Error(
          ErrorKind::TextureSizeOutOfRange,
          fmt::format("view: --size {}x{}: each side must be 1..{} (maxTextureDimension2D "
                      "of {})",
                      o_.width, o_.height, max, escape_for_message(device().adapter().name)));
  }

  // The surface's format (the renderer's RGBA8 or BGRA8 first: a texel-exact copy either way),
  // alpha mode, present mode and usage; configured at the framebuffer's size.
  void configure_surface() {
    const SurfaceOffer offer = surface_offer(surface_.surface, device().adapter_handle());
    offered_ = mode_list(offer.modes);
    const WGPUPresentMode wanted_mode = pick_present_mode(o_.present_mode, offer.modes);
    if (offer.formats.empty())
      throw Error(ErrorKind::WebGPUValidation, "view: the surface offers no texture format");
    format_ = offer.formats.front();
    for (WGPUTextureFormat f : {WGPUTextureFormat_BGRA8Unorm, WGPUTextureFormat_RGBA8Unorm})
      if (std::find(offer.formats.begin(), offer.formats.end(), f) != offer.formats.end())
        format_ = f;
    const auto& alphas = offer.alphas;
    const WGPUCompositeAlphaMode alpha =
        std::find(alphas.begin(), alphas.end(), WGPUCompositeAlphaMode_Opaque) != alphas.end()
            ? WGPUCompositeAlphaMode_Opaque
            : (alphas.empty() ? WGPUCompositeAlphaMode_Auto : alphas.front());
    copy_surface_ = (offer.usages & WGPUTextureUsage_CopySrc) != 0;
    surface_.config.device = device().get();
    surface_.max_extent = device().limits().maxTextureDimension2D;
    surface_.config.format = format_;
    surface_.config.usage =
        WGPUTextureUsage_RenderAttachment | (copy_surface_ ? WGPUTextureUsage_CopySrc : 0);
    surface_.config.alphaMode = alpha;
    surface_.config.presentMode = wanted_mode;
    glfwGetFramebufferSize(window(), &fb_w_, &fb_h_);
    if (fb_w_ > 0 && fb_h_ > 0) surface_.configure(uint32_t(fb_w_), uint32_t(fb_h_));
  }

  // The blit pipeline for the surface's format.
  void build_blit_pipeline() {
    std::string source = kBlitShader;
    source.replace(source.find("SRGB"), 4, is_srgb(format_) ? "true" : "false");
    blit_shader_ = device().create_shader_module("view blit", source);
    WGPUColorTargetState target = WGPU_COLOR_TARGET_STATE_INIT;
    target.format = format_;
    target.writeMask = WGPUColorWriteMask_All;
    WGPUFragmentState fragment = WGPU_FRAGMENT_STATE_INIT;
    fragment.module = blit_shader_.get();
    fragment.entryPoint = gpu::sv("fs");
    fragment.targetCount = 1;
    fragment.targets = &target;
    WGPURenderPipelineDescriptor desc = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
    desc.label = gpu::sv("view blit");
    desc.vertex.module = blit_shader_.get();
    desc.vertex.entryPoint = gpu::sv("vs");
    desc.fragment = &fragment;
    blit_ = gpu::RenderPipeline::acquire(wgpuDeviceCreateRenderPipeline(device().get(), &desc));
    blit_layout_ =
        gpu::BindGroupLayout::acquire(wgpuRenderPipelineGetBindGroupLayout(blit_.get(), 0));
    device().check();
  }

  void open_panel() {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    glfw_.imgui = true;
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the working directory
    ImGui::StyleColorsDark();
    // Set before ImGui's backend installs its callbacks, which then call this one too.
    glfwSetScrollCallback(window(), [](GLFWwindow*, double, double dy) { scroll_y += dy; });
    ImGui_ImplGlfw_InitForOther(window(), true);
    imgui_.emplace(device(), format_);
  }

  // ---- Input: the script, keys and mouse, the window's size.

  // The script's events due at the frames presented so far.
  void apply_events() {
    while (next_event_ < script_.size() && script_[next_event_].frame <= presented_) {
      const ScriptEvent& e = script_[next_event_++];
      if (e.action == "strategy")
        now_.strategy = e.args[0];
      else if (e.action == "objects")
        now_.count = parse_u32(e, 0, o_.max_count);
      else if (e.action == "spread")
        now_.spread = parse_float(e, 0, kMinSpread, kMaxSpread);
      else if (e.action == "pause" || e.action == "resume")
        now_.paused = e.action == "pause";
      else if (e.action == "occlusion")
        now_.occlusion = parse_on_off(e);
      else if (e.action == "panel")
        now_.panel = parse_on_off(e);
      else if (e.action == "orbit") {
        orbit_.yaw += parse_float(e, 0, -3600.0f, 3600.0f);
        orbit_.pitch =
            std::clamp(orbit_.pitch + parse_float(e, 1, -3600.0f, 3600.0f), -179.0f, 179.0f);
      } else if (e.action == "zoom")
        orbit_.zoom = std::clamp(orbit_.zoom * parse_float(e, 0, 0.01f, 100.0f), 0.01f, 100.0f);
      else if (e.action == "camera")
        orbit_ = Orbit{};
      else if (e.action == "quit")
        final_frame_ = true;  // as esc: one more frame, the last, presented (and --png's)
      else if (e.action == "resize") {
        resize_to_ = {parse_u32(e, 0, 16384), parse_u32(e, 1, 16384)};
        check_resize(e, resize_to_->first, resize_to_->second);
        glfwSetWindowSize(window(), int(resize_to_->first), int(resize_to_->second));
        install_x11_error_handlers();
      }
    }
  }

  // A key's press (its down edge since the last frame).
  bool pressed(int key) {
    const bool down = glfwGetKey(window(), key) == GLFW_PRESS;
    const bool edge = down && !key_down_[size_t(key)];
    key_down_[size_t(key)] = down;
    return edge && !ImGui::GetIO().WantCaptureKeyboard;
  }

  void step_strategy(int delta) {
    const int i = int(std::find(names_.begin(), names_.end(), now_.strategy) - names_.begin());
    now_.strategy = names_[size_t((i + delta + int(names_.size())) % int(names_.size()))];
  }

  void double_count() {
    now_.count =
        uint32_t(std::min<uint64_t>(o_.max_count, std::max<uint64_t>(1, now_.count) * 2));
  }

  void handle_input() {
    glfwPollEvents();
    if (glfwWindowShouldClose(window()) && !final_frame_) final_frame_ = true;
    if (pressed(GLFW_KEY_ESCAPE) || pressed(GLFW_KEY_Q)) final_frame_ = true;
    if (pressed(GLFW_KEY_SPACE)) now_.paused = !now_.paused;
    if (pressed(GLFW_KEY_TAB)) now_.panel = !now_.panel;
    if (pressed(GLFW_KEY_N)) step_strategy(1);
    if (pressed(GLFW_KEY_B)) step_strategy(-1);
    if (pressed(GLFW_KEY_O)) now_.occlusion = !now_.occlusion;
    if (pressed(GLFW_KEY_R)) orbit_ = Orbit{};
    handle_mouse();
    if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD)) double_count();
    if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT)) now_.count = now_.count / 2;
  }

  // Drag with the left button to orbit, the wheel to zoom (not over the panel).
  void handle_mouse() {
    double x = 0, y = 0;
    glfwGetCursorPos(window(), &x, &y);
    const bool drag = glfwGetMouseButton(window(), GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS &&
                      !ImGui::GetIO().WantCaptureMouse;
    if (drag && dragging_) {
      orbit_.yaw -= float(x - cursor_x_) * 0.3f;
      orbit_.pitch = std::clamp(orbit_.pitch + float(y - cursor_y_) * 0.3f, -179.0f, 179.0f);
    }
    dragging_ = drag;
    cursor_x_ = x;
    cursor_y_ = y;
    if (scroll_y != 0 && !ImGui::GetIO().WantCaptureMouse)
      orbit_.zoom = std::clamp(orbit_.zoom * std::pow(0.9f, float(scroll_y)), 0.01f, 100.0f);
    scroll_y = 0;
  }

  // Waits (events only) while the window is minimised (framebuffer 0x0), or until a script's
  // resize has reached the framebuffer. False when the window closed meanwhile.
  bool settle_size() {
    for (int i = 0;; ++i) {
      glfwGetFramebufferSize(window(), &fb_w_, &fb_h_);
      const bool zero = fb_w_ <= 0 || fb_h_ <= 0;
      const bool waiting = resize_to_ && (uint32_t(fb_w_) != resize_to_->first ||
                                          uint32_t(fb_h_) != resize_to_->second);
      if (!zero && (!waiting || i >= 200)) break;
      if (glfwWindowShouldClose(window()) || quit_) return false;
      glfwWaitEventsTimeout(0.01);
    }
    resize_to_.reset();
    return true;
  }

  // ---- The panel.

  void panel(const RenderOptions& ro) {
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    if (now_.panel) {
      ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
      ImGui::Begin("bindery view", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
      panel_controls(ro);
      ImGui::Separator();
      panel_measurements(ro);
      ImGui::TextDisabled("tab panel, space pause, n/b strategy, +/- objects, o occlusion");
      ImGui::TextDisabled("drag orbit, wheel zoom, r camera reset, esc quit");
      ImGui::End();
    }
    ImGui::Render();
  }

  // Strategy, count, occlusion, pause, camera.
  void panel_controls(const RenderOptions& ro) {
    const Scene& scene = *scene_;
    ImGui::Text("%s scene on %s (%s)", scene.name.c_str(), device().adapter().name.c_str(),
                device().adapter().implementation.c_str());
    const int current =
        int(std::find(names_.begin(), names_.end(), now_.strategy) - names_.begin());
    if (ImGui::BeginCombo("strategy (n/b)", now_.strategy.c_str())) {
      for (int i = 0; i < int(names_.size()); ++i)
        if (ImGui::Selectable(names_[size_t(i)].c_str(), i == current))
          now_.strategy = names_[size_t(i)];
      ImGui::EndCombo();
    }
    ImGui::Text("%s: %u", scene.name == "gltf" ? "copies" : "objects", now_.count);
    ImGui::SameLine();
    if (ImGui::Button("/2")) now_.count /= 2;
    ImGui::SameLine();
    if (ImGui::Button("-100")) now_.count = now_.count > 100 ? now_.count - 100 : 0;
    ImGui::SameLine();
    if (ImGui::Button("+100")) now_.count = std::min(o_.max_count, now_.count + 100);
    ImGui::SameLine();
    if (ImGui::Button("x2")) double_count();
    if (o_.spread_applies) {
      // Applied when the slider is let go: each new spread is a new scene and run.
      if (!editing_spread_) spread_edit_ = now_.spread;
      ImGui::SliderFloat("spread", &spread_edit_, 0.1f, 10.0f, "%.2f",
                         ImGuiSliderFlags_Logarithmic);
      editing_spread_ = ImGui::IsItemActive();
      if (ImGui::IsItemDeactivatedAfterEdit())
        now_.spread = std::clamp(spread_edit_, kMinSpread, kMaxSpread);
    }
    if (ro.strategy == "gpu-driven") ImGui::Checkbox("occlusion culling (o)", &now_.occlusion);
    ImGui::Checkbox("pause animation (space)", &now_.paused);
    ImGui::Text("camera: yaw %.0f, pitch %.0f, zoom %.2f", double(orbit_.yaw),
                double(orbit_.pitch), double(orbit_.zoom));
    ImGui::SameLine();
    if (ImGui::Button("reset (r)")) orbit_ = Orbit{};
  }

  // Rates, times, culling counts, the surface, the frame-time graph, the last message.
  void panel_measurements(const RenderOptions& ro) {
    const double ms = interval_.mean();
    ImGui::Text("%.1f fps, frame %.2f ms", ms > 0 ? 1000.0 / ms : 0.0, ms);
    ImGui::Text("cpu %.2f ms, math %.2f ms, blit+panel+present %.2f ms", cpu_.mean(),
                math_.mean(), present_ms_.mean());
    if (!gpu_.values.empty())
      ImGui::Text("gpu %.2f ms", gpu_.mean());
    else
      ImGui::Text("gpu n/a (no timestamp queries)");
    if (spans_.size() > 1) {
      std::string line = "passes:";
      for (const GpuSpan& span : spans_) line += fmt::format(" {} {:.2f}", span.name, span.ms);
      ImGui::TextUnformatted(line.c_str());
    }
    if (culling_)
      ImGui::Text("culling: %u objects, %u in frustum, %u unoccluded, %u drawn",
                  culling_->objects, culling_->after_frustum, culling_->after_occlusion,
                  culling_->drawn);
    if (ro.strategy == "gpu-driven") ImGui::Text("draw path %s", gpu_draw_path_.c_str());
    ImGui::Text("present %s, %s %ux%u, %u frames in flight", o_.present_mode.c_str(),
                format_name(format_).c_str(), ro.width, ro.height, ro.frames_in_flight);
    ImGui::Text("outdated %u, lost %u, timeouts %u, reconfigured %u", outdated_, lost_,
                timeouts_, reconfigured_);
    if (!graph_.empty()) {
      const float top = std::max(1.0f, *std::max_element(graph_.begin(), graph_.end()));
      ImGui::PlotLines("frame ms", graph_.data(), int(graph_.size()), 0, nullptr, 0.0f, top,
                       ImVec2(240, 50));
    }
    if (!status_.empty()) ImGui::TextWrapped("%s", status_.c_str());
  }

  // ---- One run of render(): its options, its frames, its end.

  RenderOptions run_options() {
    RenderOptions ro;
    ro.strategy = now_.strategy;
    ro.width = uint32_t(fb_w_);
    ro.height = uint32_t(fb_h_);
    ro.frames = 1'000'000;
    ro.moving = o_.moving_from_scene ? scene_->moving_share() : o_.moving;
    ro.keep_last_frame = false;
    ro.keep_frame_timings = false;
    ro.frames_in_flight = o_.frames_in_flight;
    ro.occlusion = now_.occlusion;
    ro.draw_path = o_.draw_path;
    ro.material_backend = o_.material_backend;
    ro.clusters = o_.clusters;
    ro.lod_error_px = o_.lod_error_px;
    ro.rasterizer = o_.rasterizer;
    ro.raster_rung = o_.raster_rung;
    ro.threads = o_.threads;
    ro.encode_threads = o_.encode_threads;
    ro.extra_color_usage = WGPUTextureUsage_TextureBinding;
    ro.frame_time = [this](uint32_t) { return o_.time_s ? *o_.time_s : anim_time_; };
    ro.camera = [this](uint32_t, View& view) { orbit_.apply(view); };
    ro.on_frame_done = [this](uint32_t, const FrameTiming& t, const Counters&) {
      interval_.add(t.interval_ms);
      latency_.add(t.frame_ms);
      cpu_.add(t.cpu_ms);
      math_.add(t.math_ms);
      if (t.gpu_ms) gpu_.add(*t.gpu_ms);
      culling_ = t.culling;
      spans_ = t.gpu_spans;
      graph_.push_back(float(t.interval_ms));
      if (graph_.size() > 120) graph_.erase(graph_.begin());
    };
    return ro;
  }

  // One render() run. A switch the device or scene refuses before its first frame goes back to
  // the settings that ran, said in the panel; anything else, or a refusal at start, is the
  // command's error. Every object of the run is released with it: the live handle counts are
  // back where they were before it, or the summary names what was left.
  void render_run() {
    RenderOptions ro = run_options();
    ro.after_submit = [this, &ro](uint32_t, WGPUTexture color) { return show(ro, color); };
    culling_.reset();
    gpu_.clear();
    spans_.clear();
    ++runs_;
    const uint64_t presented_before = presented_;
    const std::array<int64_t, gpu::kHandleTypeCount> handles_before = gpu::live_handles();
    try {
      render(device(), *scene_, ro);
      good_ = run_settings_;
    } catch (const Error& e) {
      const bool refusal =
          e.kind() == ErrorKind::StrategyUnavailable || e.kind() == ErrorKind::InvalidArgument;
      if (!good_ || presented_ != presented_before || !refusal) throw;
      status_ = fmt::format("{} refused: {}", now_.strategy, e.what());
      // The whole run's settings go back (a count the strategy cannot hold would otherwise be
      // retried frame after frame).
      now_.strategy = good_->strategy;
      now_.count = good_->count;
      now_.spread = good_->spread;
      now_.occlusion = good_->occlusion;
      ++refused_;
      if (!o_.quiet) fmt::print(stderr, "bindery view: {}\n", escape_for_message(status_));
    }
    frame_group_.reset();
    frame_view_.reset();
    bound_texture_ = nullptr;
    const std::array<int64_t, gpu::kHandleTypeCount> handles_after = gpu::live_handles();
    for (size_t i = 0; i < handles_after.size(); ++i)
      if (handles_after[i] != handles_before[i])
        leftovers_ +=
            fmt::format("{}{} {:+} after run {}", leftovers_.empty() ? "" : ", ",
                        gpu::handle_type_names()[i], handles_after[i] - handles_before[i], runs_);
  }

  // After frame f is submitted (RenderOptions::after_submit): draw it into the surface texture,
  // the panel on top, present. False ends the run (resized, a new strategy, count or occlusion,
  // or the last frame); pause and panel do not need a new run.
  bool show(const RenderOptions& ro, WGPUTexture color) {
    const Clock::time_point t0 = Clock::now();
    if (!o_.time_s && !now_.paused) anim_time_ += 1.0f / 60.0f;
    handle_input();
    glfwGetFramebufferSize(window(), &fb_w_, &fb_h_);
    if (uint32_t(fb_w_) != ro.width || uint32_t(fb_h_) != ro.height) return false;  // resized
    bind_frame(color);
    WGPUSurfaceTexture st = WGPU_SURFACE_TEXTURE_INIT;
    if (!acquire_surface_texture(st)) return true;  // skipped (timeout, reconfigured)
    const gpu::Texture surface_texture = gpu::Texture::acquire(st.texture);
    panel(ro);
    const bool last = final_frame_ || (o_.frames && presented_ + 1 >= o_.frames);
    blit_and_present(surface_texture.get(), color, last);
    if (st.status == WGPUSurfaceGetCurrentTextureStatus_SuccessSuboptimal) {
      ++suboptimal_;
      surface_.configure(surface_.config.width, surface_.config.height);
      ++reconfigured_;
    }
    present_ms_.add(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    apply_events();
    if (last) quit_ = true;
    if (quit_) return false;
    return now_.strategy == run_settings_.strategy && now_.count == run_settings_.count &&
           now_.spread == run_settings_.spread && now_.occlusion == run_settings_.occlusion &&
           !resize_to_;
  }

  // The blit's bind group for the run's colour target (a new one when the target changes).
  void bind_frame(WGPUTexture color) {
    if (color == bound_texture_) return;
    frame_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(color, nullptr));
    WGPUBindGroupEntry entry = WGPU_BIND_GROUP_ENTRY_INIT;
    entry.binding = 0;
    entry.textureView = frame_view_.get();
    WGPUBindGroupDescriptor desc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    desc.layout = blit_layout_.get();
    desc.entryCount = 1;
    desc.entries = &entry;
    frame_group_ = gpu::BindGroup::acquire(wgpuDeviceCreateBindGroup(device().get(), &desc));
    bound_texture_ = color;
  }

  // The surface's next texture into `st`. False (counted, the frame skipped) on a timeout, or
  // an outdated or lost surface (reconfigured); throws for anything else (a lost device says so).
  bool acquire_surface_texture(WGPUSurfaceTexture& st) {
    wgpuSurfaceGetCurrentTexture(surface_.surface, &st);
    switch (st.status) {
      case WGPUSurfaceGetCurrentTextureStatus_SuccessOptimal:
      case WGPUSurfaceGetCurrentTextureStatus_SuccessSuboptimal:
        return true;
      case WGPUSurfaceGetCurrentTextureStatus_Timeout:
        ++timeouts_;
        if (st.texture) wgpuTextureRelease(st.texture);
        return false;
      case WGPUSurfaceGetCurrentTextureStatus_Outdated:
      case WGPUSurfaceGetCurrentTextureStatus_Lost:
        ++(st.status == WGPUSurfaceGetCurrentTextureStatus_Lost ? lost_ : outdated_);
        if (st.texture) wgpuTextureRelease(st.texture);
        surface_.configure(surface_.config.width, surface_.config.height);
        ++reconfigured_;
        return false;
      default:
        if (st.texture) wgpuTextureRelease(st.texture);
        device().check();
        throw Error(ErrorKind::WebGPUValidation,
                    fmt::format("view: the surface gave no texture (status {})", int(st.status)));
    }
  }

  // The frame `color` into `surface_texture` (fullscreen triangle), the panel on top; submitted
  // and presented. On the `last` frame with --png, the image read back: the surface texture
  // where it allows copies, else the offscreen frame.
  void blit_and_present(WGPUTexture surface_texture, WGPUTexture color, bool last) {
    const gpu::TextureView target =
        gpu::TextureView::acquire(wgpuTextureCreateView(surface_texture, nullptr));
    gpu::CommandEncoder encoder =
        gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device().get(), nullptr));
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
    wgpuRenderPassEncoderSetPipeline(pass, blit_.get());
    wgpuRenderPassEncoderSetBindGroup(pass, 0, frame_group_.get(), 0, nullptr);
    wgpuRenderPassEncoderDraw(pass, 3, 1, 0, 0);
    if (ImDrawData* data = ImGui::GetDrawData()) imgui_->draw(*data, pass);
    wgpuRenderPassEncoderEnd(pass);
    wgpuRenderPassEncoderRelease(pass);
    std::optional<TextureReadback> readback;
    if (last && !o_.png.empty() && copy_surface_) {
      readback.emplace(device(), surface_texture);
      readback->record_copy(encoder.get());
    }
    const gpu::CommandBuffer commands =
        gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(encoder.get(), nullptr));
    const WGPUCommandBuffer raw = commands.get();
    device().submit({&raw, 1});
    wgpuSurfacePresent(surface_.surface);
    ++presented_;
    if (last && !o_.png.empty())
      last_image_ = readback ? readback->read() : read_back(device(), color);
  }

  // ---- The end.

  void print_summary() const {
    if (!o_.quiet)
      fmt::print(stderr,
                 "bindery view: {} frames presented ({}, {} {}), strategy {}, {} {}; "
                 "{} run{} ({} refused), handles left over: {}; outdated {}, lost {}, suboptimal "
                 "{}, timeouts {}; last {} frames, medians: interval {:.2f} ms ({:.1f} fps), "
                 "present {:.2f} ms, cpu {:.2f} ms, latency {:.2f} ms (first CPU work to GPU "
                 "done), {} frames in flight; the surface offers {}\n",
                 presented_, o_.present_mode, format_name(format_),
                 copy_surface_ ? "surface copied" : "offscreen image", now_.strategy, now_.count,
                 scene_ && scene_->name == "gltf" ? "copies" : "objects", runs_,
                 runs_ == 1 ? "" : "s", refused_,
                 leftovers_.empty() ? std::string("none") : leftovers_, outdated_, lost_,
                 suboptimal_, timeouts_, interval_.values.size(), interval_.median(),
                 interval_.median() > 0 ? 1000.0 / interval_.median() : 0.0,
                 present_ms_.median(), cpu_.median(), latency_.median(), o_.frames_in_flight,
                 offered_);
    if (!o_.png.empty() && last_image_)
      write_stdout(fmt::format("wrote {} ({})\n", escape_for_message(o_.png),
                               copy_surface_ ? "the presented surface texture"
                                             : "the offscreen frame blitted into the surface"));
  }

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
  Settings run_settings_;        // what the current run draws
  std::optional<Settings> good_;  // the settings of the last run that ended without an error
  std::optional<std::pair<uint32_t, uint32_t>> resize_to_;  // a script's resize, waited for
  size_t next_event_ = 0;
  bool quit_ = false;
  bool final_frame_ = false;  // the next frame presented is the last (window closed, --frames)
  float anim_time_ = 0.0f;
  Orbit orbit_;
  bool dragging_ = false;
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

}  // namespace

int run_view(const ViewOptions& o) {
  ViewSession session(o);
  return session.run();
}

}  // namespace bindery::view
