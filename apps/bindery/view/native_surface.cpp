// SPDX-License-Identifier: MIT
// The one file of bindery view that sees X11 (Xlib's macros stay out of the others).
#include "native_surface.hpp"

#include <bindery/core/error.hpp>
#include <bindery/core/gpu.hpp>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#define GLFW_EXPOSE_NATIVE_X11
#include <GLFW/glfw3native.h>

#include <X11/Xlib.h>

#include <cstdio>
#include <string>
#include <unistd.h>

namespace bindery::view {

WGPUSurface create_window_surface(WGPUInstance instance, GLFWwindow* window) {
  Display* display = glfwGetX11Display();
  const ::Window xwindow = glfwGetX11Window(window);
  if (display == nullptr || xwindow == 0)
    throw Error(ErrorKind::NoDisplay, "view: GLFW has no X11 window to draw into");
  WGPUSurfaceSourceXlibWindow source = WGPU_SURFACE_SOURCE_XLIB_WINDOW_INIT;
  source.display = display;
  source.window = static_cast<uint64_t>(xwindow);
  WGPUSurfaceDescriptor desc = WGPU_SURFACE_DESCRIPTOR_INIT;
  desc.nextInChain = &source.chain;
  desc.label = gpu::sv("bindery view");
  WGPUSurface surface = wgpuInstanceCreateSurface(instance, &desc);
  if (surface == nullptr)
    throw Error(ErrorKind::WebGPUValidation,
                "view: wgpuInstanceCreateSurface made no surface for the X11 window");
  return surface;
}

namespace {

// One line on stderr and exit 1: Xlib's handlers must not return for a lost connection, and a
// protocol error means a window or request bindery relies on failed.
[[noreturn]] void x11_fail(const std::string& message) {
  std::fflush(stdout);
  const std::string line = "bindery: error [NoDisplay]: " + escape_controls(message) + "\n";
  (void)!::write(2, line.data(), line.size());
  _exit(1);
}

int on_x11_error(Display* display, XErrorEvent* event) {
  char text[256] = {};
  XGetErrorText(display, event->error_code, text, sizeof text);
  x11_fail("view: the X server refused a request: " + std::string(text) + " (error code " +
           std::to_string(int(event->error_code)) + ", request " +
           std::to_string(int(event->request_code)) + "." + std::to_string(int(event->minor_code)) +
           ", resource 0x" +
           [&] {
             char hex[32];
             std::snprintf(hex, sizeof hex, "%lx", static_cast<unsigned long>(event->resourceid));
             return std::string(hex);
           }() +
           ")");
}

int on_x11_io_error(Display*) {
  x11_fail("view: the connection to the X server was lost (the server exited or closed it)");
}

}  // namespace

void install_x11_error_handlers() {
  XSetErrorHandler(on_x11_error);
  XSetIOErrorHandler(on_x11_io_error);
}

}  // namespace bindery::view
