// SPDX-License-Identifier: MIT
// The verifier's device work (verify_gpu.hpp): error scopes, shader modules, readback.
#include "wgsl/verify_gpu.hpp"

#include "internal/implementation.hpp"

#include <bindery/core/error.hpp>

#include <cstring>

namespace bindery::wgsl::verify {

std::string one_line(std::string_view message) {
  std::string kept, all;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    std::string_view line =
        message.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? message.size() + 1 : end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    all += (all.empty() ? "" : " ") + std::string(line);
    bool keep = line.starts_with("= ") || line.starts_with("Shader") ||
                line.find("error") != std::string_view::npos;
    if (line.starts_with("= ")) line.remove_prefix(2);
    if (keep && line != "Validation Error") kept += (kept.empty() ? "" : "; ") + std::string(line);
  }
  std::string out = kept.empty() ? all : kept;
  if (out.size() > 600) out = out.substr(0, 600) + "...";
  return out;
}

Scope::Scope(const Device& device) : d(device) {
  wgpuDevicePushErrorScope(d.get(), WGPUErrorFilter_Validation);
}

std::string Scope::pop_raw() {
  const implementation::PoppedScope r = implementation::pop_error_scope(d.instance(), d.get());
  if (!r.answered)
    throw Error(ErrorKind::DeviceLost,
                "popErrorScope: the implementation never reported the scope's result");
  if (r.type == WGPUErrorType_NoError) return std::string();
  return r.message.empty() ? std::string("(the implementation gave no message)") : r.message;
}

gpu::ShaderModule create_module(const Device& d, std::string_view wgsl) {
  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = gpu::sv(wgsl);
  WGPUShaderModuleDescriptor desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  desc.label = gpu::sv("bindery layout verification");
  desc.nextInChain = &source.chain;
  return gpu::ShaderModule::acquire(wgpuDeviceCreateShaderModule(d.get(), &desc));
}

std::vector<std::byte> read_back(const Device& d, WGPUBuffer src, uint64_t size) {
  gpu::Buffer rb = d.create_buffer("layout verification readback", size,
                                   WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  gpu::CommandEncoder enc =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  wgpuCommandEncoderCopyBufferToBuffer(enc.get(), src, 0, rb.get(), 0, size);
  WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc.get(), nullptr);
  wgpuQueueSubmit(d.queue(), 1, &cb);
  wgpuCommandBufferRelease(cb);
  struct Done {
    bool done = false;
    WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
  } done;
  WGPUBufferMapCallbackInfo info = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  info.mode = WGPUCallbackMode_AllowProcessEvents;
  info.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* u, void*) {
    auto* dn = static_cast<Done*>(u);
    dn->done = true;
    dn->status = status;
  };
  info.userdata1 = &done;
  wgpuBufferMapAsync(rb.get(), WGPUMapMode_Read, 0, size_t(size), info);
  for (int i = 0; i < 100000 && !done.done; ++i) {
    d.poll(true);
    wgpuInstanceProcessEvents(d.instance());
  }
  if (!done.done || done.status != WGPUMapAsyncStatus_Success)
    throw Error(ErrorKind::WebGPUValidation, "mapAsync of the layout verification readback failed");
  std::vector<std::byte> out(size);
  std::memcpy(out.data(), wgpuBufferGetConstMappedRange(rb.get(), 0, size_t(size)), size_t(size));
  wgpuBufferUnmap(rb.get());
  return out;
}

}  // namespace bindery::wgsl::verify
