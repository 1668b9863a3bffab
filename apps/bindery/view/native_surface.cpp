// SPDX-License-Identifier: MIT
// The one file of bindery view that sees X11 (Xlib's macros stay out of the others).
#include "native_surface.hpp"

#include <bindery/core/error.hpp>
#include <bindery/core/gpu.hpp>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#define GLFW_EXPOSE_NATIVE_X11
#include <GLFW/glfw3native.h>

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

}  // namespace bindery::view
