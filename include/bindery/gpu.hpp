// SPDX-License-Identifier: MIT
/// @file
/// bindery/gpu.hpp — move-only RAII owners for webgpu.h handles.
///
/// gpu::Buffer, gpu::BindGroup, ... each own one reference to a webgpu.h object and release it
/// exactly once. Taking ownership of a raw handle is explicit (gpu::Buffer::acquire(raw)); so is
/// handing it back (release_to_c()). get() lends the raw handle without touching ownership.
/// Pattern: Dawn's generated C++ wrapper (Acquire / MoveToCHandle).
///
/// The API header comes from the installed wgpu-native package (scripts/setup.sh), never a copy.
#pragma once

#include <webgpu/webgpu.h>

#include <string_view>
#include <utility>

namespace bindery::gpu {

template <class T>
struct HandleTraits;

/// Owns one reference to a webgpu.h object of raw type T. Move-only; null when default-made.
///
/// The aliases bindery uses, each Handle<WGPUName>: gpu::Instance, gpu::Adapter, gpu::Device,
/// gpu::Queue, gpu::Buffer, gpu::Texture, gpu::TextureView, gpu::Sampler, gpu::ShaderModule,
/// gpu::BindGroupLayout, gpu::BindGroup, gpu::PipelineLayout, gpu::RenderPipeline,
/// gpu::ComputePipeline, gpu::CommandEncoder, gpu::CommandBuffer, gpu::RenderPassEncoder,
/// gpu::ComputePassEncoder, gpu::RenderBundle, gpu::RenderBundleEncoder, gpu::QuerySet.
/// Releasing calls wgpuNameRelease, sharing wgpuNameAddRef.
template <class T>
class Handle {
 public:
  Handle() = default;
  ~Handle() { reset(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  /// Takes over `o`'s reference; `o` becomes null.
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  /// Releases the current reference, then takes over `o`'s; `o` becomes null.
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }

  /// Takes ownership of `raw` (one reference), which the caller must not release again.
  static Handle acquire(T raw) {
    Handle h;
    h.h_ = raw;
    return h;
  }
  /// Adds a reference to `raw` (which the caller keeps) and owns the new one.
  static Handle share(T raw) {
    if (raw) HandleTraits<T>::add_ref(raw);
    return acquire(raw);
  }

  /// Lends the raw handle; ownership stays here.
  T get() const noexcept { return h_; }
  /// True when a handle is owned.
  explicit operator bool() const noexcept { return h_ != nullptr; }
  /// Gives the reference back to C code; this owner becomes null.
  T release_to_c() noexcept { return std::exchange(h_, nullptr); }
  /// Releases the reference now (no-op when null).
  void reset() noexcept {
    if (h_) HandleTraits<T>::release(std::exchange(h_, nullptr));
  }

 private:
  T h_ = nullptr;
};

/// @cond INTERNAL
// The owners themselves: gpu::Instance = Handle<WGPUInstance>, gpu::Buffer = Handle<WGPUBuffer>,
// ... one per line below (the list Handle's documentation gives).
#define BINDERY_GPU_HANDLE(Name)                                  \
  template <>                                                     \
  struct HandleTraits<WGPU##Name> {                               \
    static void release(WGPU##Name h) { wgpu##Name##Release(h); } \
    static void add_ref(WGPU##Name h) { wgpu##Name##AddRef(h); }  \
  };                                                              \
  using Name = Handle<WGPU##Name>;

BINDERY_GPU_HANDLE(Instance)
BINDERY_GPU_HANDLE(Adapter)
BINDERY_GPU_HANDLE(Device)
BINDERY_GPU_HANDLE(Queue)
BINDERY_GPU_HANDLE(Buffer)
BINDERY_GPU_HANDLE(Texture)
BINDERY_GPU_HANDLE(TextureView)
BINDERY_GPU_HANDLE(Sampler)
BINDERY_GPU_HANDLE(ShaderModule)
BINDERY_GPU_HANDLE(BindGroupLayout)
BINDERY_GPU_HANDLE(BindGroup)
BINDERY_GPU_HANDLE(PipelineLayout)
BINDERY_GPU_HANDLE(RenderPipeline)
BINDERY_GPU_HANDLE(ComputePipeline)
BINDERY_GPU_HANDLE(CommandEncoder)
BINDERY_GPU_HANDLE(CommandBuffer)
BINDERY_GPU_HANDLE(RenderPassEncoder)
BINDERY_GPU_HANDLE(ComputePassEncoder)
BINDERY_GPU_HANDLE(RenderBundle)
BINDERY_GPU_HANDLE(RenderBundleEncoder)
BINDERY_GPU_HANDLE(QuerySet)

#undef BINDERY_GPU_HANDLE
/// @endcond

/// A WGPUStringView over `s` (no copy; `s` must outlive the call it is passed to).
inline WGPUStringView sv(std::string_view s) {
  return WGPUStringView{s.data(), s.size()};
}
/// A std::string_view over a WGPUStringView (handles the null-terminated form).
inline std::string_view sv(WGPUStringView s) {
  if (!s.data) return {};
  if (s.length == WGPU_STRLEN) return std::string_view(s.data);
  return std::string_view(s.data, s.length);
}

}  // namespace bindery::gpu
