// SPDX-License-Identifier: MIT
// apps/bindery/view/native_surface.hpp — a WebGPU surface for a GLFW window (internal to view).
#pragma once

#include <webgpu/webgpu.h>

struct GLFWwindow;

namespace bindery::view {

/// A surface on `instance` for `window`'s native X11 window (webgpu.h's
/// WGPUSurfaceSourceXlibWindow, from glfwGetX11Display / glfwGetX11Window). The caller releases
/// it. Throws NoDisplay when GLFW has no X11 window for it, WebGPUValidation when the
/// implementation makes no surface.
WGPUSurface create_window_surface(WGPUInstance instance, GLFWwindow* window);

}  // namespace bindery::view
