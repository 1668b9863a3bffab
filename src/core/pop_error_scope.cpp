// SPDX-License-Identifier: MIT
// implementation::pop_error_scope (internal/implementation.hpp): the one popErrorScope-and-wait
// of bindery, for Device's own scopes and the layout verifier's.
#include "internal/implementation.hpp"

namespace bindery::implementation {

PoppedScope pop_error_scope(WGPUInstance instance, WGPUDevice device) {
  struct Answer {
    bool done = false;
    PoppedScope popped;
  } a;
  WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message,
                   void* userdata1, void*) {
    auto* answer = static_cast<Answer*>(userdata1);
    answer->done = true;
    if (status != WGPUPopErrorScopeStatus_Success) return;
    answer->popped = {true, type, std::string(gpu::sv(message))};
  };
  cb.userdata1 = &a;
  wgpuDevicePopErrorScope(device, cb);
  wait_until(instance, a.done);
  return a.popped;
}

}  // namespace bindery::implementation
