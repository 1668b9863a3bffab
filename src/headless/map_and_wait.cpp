// SPDX-License-Identifier: MIT
// map_and_wait (src/headless/map_and_wait.hpp): the readback helper of OffscreenTarget's
// TextureReadback, also used by the renderer's strategies.
#include "headless/map_and_wait.hpp"

#include "bindery/core/error.hpp"
#include "internal/implementation.hpp"

#include <string>

namespace bindery {

// Blocks (polling the device) until a mapAsync issued on `buffer` completes. Bounded: a map that
// never completes ends with a DeviceLost-style error instead of a hang.
void map_and_wait(const Device& device, WGPUBuffer buffer, WGPUMapMode mode, uint64_t size) {
  const CallScope scope(device);
  struct State {
    bool done = false;
    WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
    std::string message;
  } st;
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* u1, void*) {
    auto* s = static_cast<State*>(u1);
    s->done = true;
    s->status = status;
    s->message = std::string(gpu::sv(message));
  };
  cb.userdata1 = &st;
  // Not counted in Counters::map_async: this is bindery's own instrumentation (timestamps,
  // frame readback), not a cost of the strategy being measured.
  wgpuBufferMapAsync(buffer, mode, 0, size, cb);
  implementation::wait_until(device.instance(), st.done, implementation::kWaitRounds,
                             [&] { device.poll(true); });
  device.check();
  if (!st.done || st.status != WGPUMapAsyncStatus_Success)
    throw Error(ErrorKind::WebGPUValidation, "mapAsync failed: " + st.message);
}

}  // namespace bindery
