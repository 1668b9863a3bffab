// SPDX-License-Identifier: MIT
// `bindery view`'s orbit camera (view_session.hpp): degrees around the scene's target and a
// factor on the eye's distance, on top of Scene::view; dragged with the left button, zoomed with
// the wheel, set by the script's orbit, zoom and camera reset.
#include "view_session.hpp"

#include <imgui.h>

#include <glm/glm.hpp>

#include <cmath>

namespace bindery::view {

double scroll_y = 0;

void Orbit::apply(View& view) const {
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

// Drag with the left button to orbit, the wheel to zoom (not over the panel).
void ViewSession::handle_mouse() {
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

}  // namespace bindery::view
