// SPDX-License-Identifier: MIT
// `bindery view`: render()'s frame loop, unchanged, drawing into its offscreen target; after each
// submit (RenderOptions::after_submit) the target is drawn into the window's surface texture by a
// fullscreen triangle (a texel per pixel, so the window shows the image `render --png` writes;
// it also turns RGBA into the surface's BGRA), the panel on top, then presented. A change that
// needs a new target or strategy (strategy, object count, window size, occlusion) ends render()'s
// run and starts the next one: the old strategy's objects are released, the new ones built.
//
// The session (ViewSession, view_session.hpp) lives by what it does: the run loop, the script and
// the keys here; the window and its surface in view_window.cpp; the orbit camera in
// view_camera.cpp; the panel in view_panel.cpp.
#include "view.hpp"

#include "native_surface.hpp"
#include "view_session.hpp"

#include <bindery/core/error.hpp>
#include <bindery/core/io.hpp>
#include <bindery/core/limits.hpp>
#include <bindery/gpu_driven/indirect_draws.hpp>
#include <bindery/headless/image.hpp>
#include <bindery/render/renderer.hpp>

#include <imgui.h>

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <sstream>

namespace bindery::view {
namespace {

// Each action's number of values: a line with more or fewer is refused (not read in part).
void check_value_count(const ScriptEvent& e) {
  static const std::array<std::pair<std::string_view, size_t>, 14> kValues = {{{"strategy", 1},
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
                                                                               {"lod-error", 1},
                                                                               {"debug-colors", 1},
                                                                               {"quit", 0}}};
  for (const auto& [action, n] : kValues)
    if (e.action == action && e.args.size() != n)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("view: --script line {}: {} takes {} value{}, not {}", e.line,
                              e.action, n, n == 1 ? "" : "s", e.args.size()));
}

}  // namespace

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

bool parse_on_off(const ScriptEvent& e) {
  if (e.args.size() == 1 && (e.args[0] == "on" || e.args[0] == "off")) return e.args[0] == "on";
  throw Error(ErrorKind::InvalidArgument,
              fmt::format("view: --script line {}: {} takes on or off", e.line, e.action));
}

std::vector<ScriptEvent> parse_script(const std::string& path) {
  const std::string text = read_input_file(path, "view: --script", 1 << 20);
  std::vector<ScriptEvent> events;
  std::istringstream in(text);
  std::string line;
  uint32_t number = 0;
  uint64_t last_frame = 0;
  static const std::array<std::string_view, 14> kActions = {
      "strategy", "objects", "spread", "resize",    "pause",        "resume", "occlusion",
      "panel",    "orbit",   "zoom",   "camera",    "lod-error",    "debug-colors", "quit"};
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
                              "zoom, camera, lod-error, debug-colors, quit",
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
    } else if (e.action == "lod-error") {
      parse_float(e, 0, 0.0f, kMaxLodErrorPx);
    } else if (e.action == "debug-colors") {
      debug_color_mode(e.args[0], fmt::format("view: --script line {}: debug-colors", e.line));
    }
  }
  return script;
}

}  // namespace

int debug_color_mode(const std::string& name, const std::string& what) {
  for (size_t i = 0; i < kDebugColorModes.size(); ++i)
    if (name == kDebugColorModes[i]) return int(i);
  throw Error(ErrorKind::InvalidArgument,
              fmt::format("{} '{}' is not one of normal, clusters, levels", what,
                          escape_for_message(name)));
}

ViewSession::ViewSession(const ViewOptions& o) : o_(o), script_(checked_script(o)) {
  pick_present_mode(o.present_mode, kAllModes);  // the name, before a window
  if (!o.png.empty()) check_output_file(o.png, "view: --png");
  open_window();
  create_device_and_surface();
  configure_surface();
  build_blit_pipeline();
  open_panel();
  now_ = {o.strategy, o.count, o.spread, o.occlusion, false, o.panel};
  lod_error_ = o.lod_error_px;
  debug_colors_ = debug_color_mode(o.debug_colors, "view: --debug-colors");
  run_settings_ = now_;
  for (const StrategyInfo& info : strategy_catalog()) names_.emplace_back(info.name);
  gpu_draw_path_ = o.draw_path.empty()
                       ? std::string(gpu_driven::to_string(gpu_driven::best_draw_path(device())))
                       : o.draw_path;
}

/// Runs render() until the window closes, `frames` are presented or the script quits; a
/// change of strategy, count, occlusion or size ends a run and starts the next.
int ViewSession::run() {
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

// The script's events due at the frames presented so far.
void ViewSession::apply_events() {
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
    else if (e.action == "lod-error")
      lod_error_ = parse_float(e, 0, 0.0f, kMaxLodErrorPx);
    else if (e.action == "debug-colors")
      debug_colors_ = debug_color_mode(e.args[0], "view: --script debug-colors");
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
bool ViewSession::pressed(int key) {
  const bool down = glfwGetKey(window(), key) == GLFW_PRESS;
  const bool edge = down && !key_down_[size_t(key)];
  key_down_[size_t(key)] = down;
  return edge && !ImGui::GetIO().WantCaptureKeyboard;
}

void ViewSession::step_strategy(int delta) {
  const int i = int(std::find(names_.begin(), names_.end(), now_.strategy) - names_.begin());
  now_.strategy = names_[size_t((i + delta + int(names_.size())) % int(names_.size()))];
}

void ViewSession::double_count() {
  now_.count =
      uint32_t(std::min<uint64_t>(o_.max_count, std::max<uint64_t>(1, now_.count) * 2));
}

void ViewSession::handle_input() {
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

RenderOptions ViewSession::run_options() {
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
  // The first run checks --debug-colors as render does (refused without the cluster path); the
  // panel's and the script's choices then go to each frame of a cluster run (cluster_tuning), so
  // that a switch to a run without clusters is not refused for them.
  ro.debug_colors = runs_ == 0 ? o_.debug_colors : "normal";
  ro.cluster_tuning = [this](uint32_t, ClusterTuning& tuning) {
    cluster_run_ = true;
    tuning.lod_error_px = lod_error_;
    tuning.debug_colors = kDebugColorModes[size_t(debug_colors_)];
  };
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
void ViewSession::render_run() {
  RenderOptions ro = run_options();
  ro.after_submit = [this, &ro](uint32_t, WGPUTexture color) { return show(ro, color); };
  culling_.reset();
  cluster_run_ = false;
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
bool ViewSession::show(const RenderOptions& ro, WGPUTexture color) {
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

void ViewSession::print_summary() const {
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

int run_view(const ViewOptions& o) {
  ViewSession session(o);
  return session.run();
}

}  // namespace bindery::view
