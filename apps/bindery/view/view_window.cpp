// SPDX-License-Identifier: MIT
// `bindery view`'s window and its surface (view_session.hpp): GLFW's window on X11, the instance,
// surface and a device that presents to it, the surface's format, alpha and present mode, the
// blit of the offscreen frame into the surface texture (a fullscreen triangle, a texel per pixel)
// with the panel on top, and the present.
#include "native_surface.hpp"
#include "view_session.hpp"

#include <bindery/core/error.hpp>
#include <bindery/core/io.hpp>
#include <bindery/data/layout_builder.hpp>
#include <bindery/headless/offscreen.hpp>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>

#include <fmt/format.h>

#include <cstdlib>

namespace bindery::view {
namespace {

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

std::string glfw_error;  // GLFW's last error message (its error callback)

std::string mode_list(const std::vector<WGPUPresentMode>& modes) {
  std::string list;
  for (WGPUPresentMode m : modes) list += (list.empty() ? "" : ", ") + present_mode_name(m);
  return list.empty() ? std::string("no present mode") : list;
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

}  // namespace

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

GlfwSession::~GlfwSession() {
  if (!initialised) return;
  if (imgui) {
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  if (window) glfwDestroyWindow(window);
  glfwTerminate();
}

Surface::~Surface() {
  if (surface && configured) wgpuSurfaceUnconfigure(surface);
  if (surface) wgpuSurfaceRelease(surface);
}

void Surface::configure(uint32_t width, uint32_t height) {
  if (max_extent && (width > max_extent || height > max_extent))
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("view: window {}x{}, valid 1..{} each (maxTextureDimension2D)", width,
                            height, max_extent));
  config.width = width;
  config.height = height;
  wgpuSurfaceConfigure(surface, &config);
  configured = true;
}

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

// A script's resize within what the display and the surface allow: the screen's size (a window
// beyond it cannot be shown; 16384 x 16384 on a 1024 x 768 screen took 22 s a frame and 7 GB)
// and the device's maxTextureDimension2D. Throws InvalidArgument naming the line.
void ViewSession::check_resize(const ScriptEvent& e, uint32_t w, uint32_t h) const {
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

void ViewSession::open_window() {
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
  glfw_.window = glfwCreateWindow(int(o_.width), int(o_.height), "bindery view", nullptr, nullptr);
  install_x11_error_handlers();  // GLFW 3.3 resets the protocol handler after its calls
  if (glfw_.window == nullptr)
    throw Error(ErrorKind::NoDisplay,
                fmt::format("view: GLFW could not create a window on DISPLAY '{}' ({})",
                            escape_for_message(display), escape_for_message(glfw_error)));
}

// Instance, surface, then a device whose adapter can present to it.
void ViewSession::create_device_and_surface() {
  instance_ = Device::create_instance(o_.device.backend);
  surface_.surface = create_window_surface(instance_.get(), window());
  DeviceOptions device_options = o_.device;
  device_options.instance = instance_.get();
  device_options.compatible_surface = surface_.surface;
  device_ = &device_holder_.emplace(Device::create(device_options));
  const uint32_t max = device().limits().maxTextureDimension2D;
  if (o_.width > max || o_.height > max)
    throw Error(ErrorKind::TextureSizeOutOfRange,
                fmt::format("view: --size {}x{}: each side must be 1..{} (maxTextureDimension2D "
                            "of {})",
                            o_.width, o_.height, max, escape_for_message(device().adapter().name)));
}

// The surface's format (the renderer's RGBA8 or BGRA8 first: a texel-exact copy either way),
// alpha mode, present mode and usage; configured at the framebuffer's size.
void ViewSession::configure_surface() {
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
void ViewSession::build_blit_pipeline() {
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

// Waits (events only) while the window is minimised (framebuffer 0x0), or until a script's
// resize has reached the framebuffer. False when the window closed meanwhile.
bool ViewSession::settle_size() {
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

// The blit's bind group for the run's colour target (a new one when the target changes).
void ViewSession::bind_frame(WGPUTexture color) {
  if (color == bound_texture_) return;
  frame_view_ = gpu::TextureView::acquire(wgpuTextureCreateView(color, nullptr));
  // Not through bindery's counted create_bind_group: the view's own group is not the run's.
  const WGPUBindGroupEntry entry = texture_group_entry(0, frame_view_.get());
  WGPUBindGroupDescriptor desc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  desc.layout = blit_layout_.get();
  desc.entryCount = 1;
  desc.entries = &entry;
  frame_group_ = gpu::BindGroup::acquire(wgpuDeviceCreateBindGroup(device().get(), &desc));
  bound_texture_ = color;
}

// The surface's next texture into `st`. False (counted, the frame skipped) on a timeout, or
// an outdated or lost surface (reconfigured); throws for anything else (a lost device says so).
bool ViewSession::acquire_surface_texture(WGPUSurfaceTexture& st) {
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
void ViewSession::blit_and_present(WGPUTexture surface_texture, WGPUTexture color, bool last) {
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

}  // namespace bindery::view
