// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/gpu.hpp — move-only RAII owners for webgpu.h handles.
///
/// gpu::Buffer, gpu::BindGroup, ... each own one reference to a webgpu.h object and release it
/// exactly once. Taking ownership of a raw handle is explicit (gpu::Buffer::acquire(raw)); so is
/// handing it back (release_to_c()). get() lends the raw handle without touching ownership.
/// Pattern: Dawn's generated C++ wrapper (Acquire / MoveToCHandle).
///
/// The API header comes from the implementation's own package (wgpu-native: scripts/setup.sh;
/// Dawn: scripts/setup_dawn.sh), never a copy.
#pragma once

#include <webgpu/webgpu.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace bindery::gpu {

template <class T>
struct HandleTraits;

/// The webgpu.h object types gpu::Handle owns, in the order of handle_type_names().
inline constexpr std::size_t kHandleTypeCount = 21;

/// @cond INTERNAL
namespace detail {
// References owned through gpu::Handle right now, per type: acquire/share add one, reset
// subtracts one. Relaxed atomics: one increment per created object, counts read between frames.
inline std::array<std::atomic<int64_t>, kHandleTypeCount> live_handle_counts{};
}  // namespace detail
/// @endcond

/// The names of the counted types ("Instance", "Adapter", ..., "QuerySet"), webgpu.h's type
/// names without the WGPU prefix, in the order live_handles() reports them.
std::array<std::string_view, kHandleTypeCount> handle_type_names() noexcept;

/// References to webgpu.h objects owned through gpu::Handle in this process right now, per type
/// (handle_type_names() order): objects acquired or shared minus those released, over every
/// thread and device. Flat over a long run when nothing leaks (`bindery soak`). Objects bindery
/// creates and releases without a Handle (a few transient pass encoders) are not counted.
inline std::array<int64_t, kHandleTypeCount> live_handles() noexcept {
  std::array<int64_t, kHandleTypeCount> counts{};
  for (std::size_t i = 0; i < kHandleTypeCount; ++i)
    counts[i] = detail::live_handle_counts[i].load(std::memory_order_relaxed);
  return counts;
}

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
    if (raw) count(+1);
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
    if (h_) {
      HandleTraits<T>::release(std::exchange(h_, nullptr));
      count(-1);
    }
  }

 private:
  static void count(int64_t delta) noexcept {
    detail::live_handle_counts[HandleTraits<T>::index].fetch_add(delta,
                                                                 std::memory_order_relaxed);
  }
  T h_ = nullptr;
};

/// @cond INTERNAL
// The owners themselves: gpu::Instance = Handle<WGPUInstance>, gpu::Buffer = Handle<WGPUBuffer>,
// ... one per line below (the list Handle's documentation gives).
#define BINDERY_GPU_HANDLE(Name, Index)                           \
  template <>                                                     \
  struct HandleTraits<WGPU##Name> {                               \
    static constexpr std::size_t index = Index;                   \
    static void release(WGPU##Name h) { wgpu##Name##Release(h); } \
    static void add_ref(WGPU##Name h) { wgpu##Name##AddRef(h); }  \
  };                                                              \
  using Name = Handle<WGPU##Name>;

BINDERY_GPU_HANDLE(Instance, 0)
BINDERY_GPU_HANDLE(Adapter, 1)
BINDERY_GPU_HANDLE(Device, 2)
BINDERY_GPU_HANDLE(Queue, 3)
BINDERY_GPU_HANDLE(Buffer, 4)
BINDERY_GPU_HANDLE(Texture, 5)
BINDERY_GPU_HANDLE(TextureView, 6)
BINDERY_GPU_HANDLE(Sampler, 7)
BINDERY_GPU_HANDLE(ShaderModule, 8)
BINDERY_GPU_HANDLE(BindGroupLayout, 9)
BINDERY_GPU_HANDLE(BindGroup, 10)
BINDERY_GPU_HANDLE(PipelineLayout, 11)
BINDERY_GPU_HANDLE(RenderPipeline, 12)
BINDERY_GPU_HANDLE(ComputePipeline, 13)
BINDERY_GPU_HANDLE(CommandEncoder, 14)
BINDERY_GPU_HANDLE(CommandBuffer, 15)
BINDERY_GPU_HANDLE(RenderPassEncoder, 16)
BINDERY_GPU_HANDLE(ComputePassEncoder, 17)
BINDERY_GPU_HANDLE(RenderBundle, 18)
BINDERY_GPU_HANDLE(RenderBundleEncoder, 19)
BINDERY_GPU_HANDLE(QuerySet, 20)
static_assert(kHandleTypeCount == 21, "one index per BINDERY_GPU_HANDLE line");

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
