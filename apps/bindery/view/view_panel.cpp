// SPDX-License-Identifier: MIT
// `bindery view`'s panel (view_session.hpp): Dear ImGui on GLFW, drawn by bindery's webgpu.h
// renderer for ImGui (imgui_webgpu.hpp) on top of the frame; its controls change the session's
// settings (strategy, count, spread, occlusion, pause, camera; with clusters the pixel error and
// the debug colours), its measurements show the last frames' rates and times, the culling counts
// and the surface. It stays small in a small window (issue 26: it covered most of 320x240): text
// and spacing scaled with the window (down to 0.7), the measurements and the keys folded away,
// and at most 60% of the window's width and 75% of its height (scrolling beyond).
#include "view_session.hpp"

#include <bindery/core/limits.hpp>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

namespace bindery::view {

void ViewSession::open_panel() {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  glfw_.imgui = true;
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the working directory
  ImGui::StyleColorsDark();
  base_style_ = ImGui::GetStyle();
  // Set before ImGui's backend installs its callbacks, which then call this one too.
  glfwSetScrollCallback(window(), [](GLFWwindow*, double, double dy) { scroll_y += dy; });
  ImGui_ImplGlfw_InitForOther(window(), true);
  imgui_.emplace(device(), format_);
}

void ViewSession::panel(const RenderOptions& ro) {
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  if (now_.panel) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float scale =
        std::clamp(std::min(display.x / 640.0f, display.y / 480.0f), 0.7f, 1.0f);
    ImGui::GetIO().FontGlobalScale = scale;
    ImGui::GetStyle() = base_style_;
    ImGui::GetStyle().ScaleAllSizes(scale);
    ImGui::SetNextWindowPos(ImVec2(4, 4), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowBgAlpha(0.75f);
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0),
                                        ImVec2(display.x * 0.6f, display.y * 0.75f));
    ImGui::Begin("bindery view", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::PushItemWidth(ImGui::GetFontSize() * 9);
    panel_controls(ro);
    if (cluster_run_) panel_clusters();
    const double ms = interval_.mean();
    ImGui::Text("%.1f fps, frame %.2f ms", ms > 0 ? 1000.0 / ms : 0.0, ms);
    if (!status_.empty()) ImGui::TextWrapped("%s", status_.c_str());
    if (ImGui::CollapsingHeader("measurements")) panel_measurements(ro);
    if (ImGui::CollapsingHeader("keys")) {
      ImGui::TextDisabled("tab panel, space pause, n/b strategy");
      ImGui::TextDisabled("+/- objects, o occlusion, r camera reset");
      ImGui::TextDisabled("drag orbit, wheel zoom, esc quit");
    }
    ImGui::PopItemWidth();
    ImGui::End();
  }
  ImGui::Render();
}

// Strategy, count, occlusion, pause, camera.
void ViewSession::panel_controls(const RenderOptions& ro) {
  const Scene& scene = *scene_;
  const int current = int(std::find(names_.begin(), names_.end(), now_.strategy) - names_.begin());
  if (ImGui::BeginCombo("strategy", now_.strategy.c_str())) {
    for (int i = 0; i < int(names_.size()); ++i)
      if (ImGui::Selectable(names_[size_t(i)].c_str(), i == current))
        now_.strategy = names_[size_t(i)];
    ImGui::EndCombo();
  }
  ImGui::Text("%u %s", now_.count, scene.name == "gltf" ? "copies" : "objects");
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
    ImGui::SliderFloat("spread", &spread_edit_, 0.1f, 10.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    editing_spread_ = ImGui::IsItemActive();
    if (ImGui::IsItemDeactivatedAfterEdit())
      now_.spread = std::clamp(spread_edit_, kMinSpread, kMaxSpread);
  }
  if (ro.strategy == "gpu-driven") {
    ImGui::Checkbox("occlusion", &now_.occlusion);
    ImGui::SameLine();
  }
  ImGui::Checkbox("pause", &now_.paused);
  if (!orbit_.identity()) {
    ImGui::SameLine();
    if (ImGui::Button("camera reset")) orbit_ = Orbit{};
  }
}

// The cluster path's pixel error (ClusterCulling::set_lod_error, each frame) and debug colours
// (RenderOptions::debug_colors), with the levels' legend.
void ViewSession::panel_clusters() {
  // 0..16 px by dragging; ctrl+click types a value up to kMaxLodErrorPx.
  ImGui::SliderFloat("pixel error", &lod_error_, 0.0f, 16.0f, "%.2f px");
  lod_error_ = std::clamp(lod_error_, 0.0f, kMaxLodErrorPx);
  ImGui::Combo("colours", &debug_colors_, kDebugColorModes.data(), int(kDebugColorModes.size()));
  if (kDebugColorModes[size_t(debug_colors_)] != std::string_view("levels")) return;
  // Level 0 (full detail) first; the last stands for 15 and up.
  const float side = ImGui::GetFontSize();
  ImGui::TextUnformatted("0");
  for (size_t l = 0; l < kDebugLevelColors.size(); ++l) {
    const auto& c = kDebugLevelColors[l];
    ImGui::SameLine(0.0f, 1.0f);
    const std::string id = fmt::format("level {}{}", l, l + 1 == kDebugLevelColors.size() ? "+" : "");
    ImGui::ColorButton(id.c_str(), ImVec4(c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, 1.0f),
                       ImGuiColorEditFlags_NoAlpha, ImVec2(side * 0.6f, side));
  }
  ImGui::SameLine(0.0f, 2.0f);
  ImGui::TextUnformatted("15+");
}

// The scene and device, rates, times, culling counts, the surface, the frame-time graph.
void ViewSession::panel_measurements(const RenderOptions& ro) {
  ImGui::Text("%s scene on %s (%s)", scene_->name.c_str(), device().adapter().name.c_str(),
              device().adapter().implementation.c_str());
  ImGui::Text("camera: yaw %.0f, pitch %.0f, zoom %.2f", double(orbit_.yaw),
              double(orbit_.pitch), double(orbit_.zoom));
  ImGui::Text("cpu %.2f ms, math %.2f ms, blit+panel+present %.2f ms", cpu_.mean(), math_.mean(),
              present_ms_.mean());
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
    ImGui::Text("culling: %u objects, %u in frustum, %u unoccluded, %u drawn", culling_->objects,
                culling_->after_frustum, culling_->after_occlusion, culling_->drawn);
  if (ro.strategy == "gpu-driven") ImGui::Text("draw path %s", gpu_draw_path_.c_str());
  ImGui::Text("present %s, %s %ux%u, %u frames in flight", o_.present_mode.c_str(),
              format_name(format_).c_str(), ro.width, ro.height, ro.frames_in_flight);
  ImGui::Text("outdated %u, lost %u, timeouts %u, reconfigured %u", outdated_, lost_, timeouts_,
              reconfigured_);
  if (!graph_.empty()) {
    const float top = std::max(1.0f, *std::max_element(graph_.begin(), graph_.end()));
    ImGui::PlotLines("frame ms", graph_.data(), int(graph_.size()), 0, nullptr, 0.0f, top,
                     ImVec2(ImGui::GetFontSize() * 18, ImGui::GetFontSize() * 4));
  }
}

}  // namespace bindery::view
