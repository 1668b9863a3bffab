// SPDX-License-Identifier: MIT
// apps/bindery/view/native_surface.hpp — a WebGPU surface for a GLFW window (internal to view).
#pragma once

#include <webgpu/webgpu.h>

#include <cstdint>

struct GLFWwindow;

namespace bindery::view {

/// A surface on `instance` for `window`'s native X11 window (webgpu.h's
/// WGPUSurfaceSourceXlibWindow, from glfwGetX11Display / glfwGetX11Window). The caller releases
/// it. Throws NoDisplay when GLFW has no X11 window for it, WebGPUValidation when the
/// implementation makes no surface.
WGPUSurface create_window_surface(WGPUInstance instance, GLFWwindow* window);

/// Installs bindery's Xlib handlers: an X protocol error (BadWindow, BadValue, ...) or a lost
/// connection to the X server ends the process with one line `bindery: error [NoDisplay]: view:
/// ...` on stderr (the error's name, request and resource; control characters escaped) and exit
/// status 1, instead of Xlib's own multi-line report. Call after glfwInit() and again after GLFW
/// calls that replace the protocol handler (GLFW 3.3 resets it after window creation).
void install_x11_error_handlers();

/// The largest side of an X11 window: X11 sizes are CARD16 and the server takes coordinates as
/// INT16, so each side must be 1..32767 (a larger one wraps: 65600 became 64).
inline constexpr uint32_t kMaxX11WindowSide = 32767;

}  // namespace bindery::view
