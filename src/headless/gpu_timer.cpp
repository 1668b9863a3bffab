// SPDX-License-Identifier: MIT
// Named GPU spans of a frame by timestamp queries (bindery/headless/gpu_timer.hpp).
#include "bindery/headless/gpu_timer.hpp"

namespace bindery {

GpuTimer::GpuTimer(const Device& device, bool enable) {
  const CallScope scope(device);
  if (!enable || !device.has_timestamp_query()) return;
  WGPUQuerySetDescriptor qd = WGPU_QUERY_SET_DESCRIPTOR_INIT;
  qd.label = gpu::sv("frame timestamps");
  qd.type = WGPUQueryType_Timestamp;
  qd.count = kMaxSpans * 2;
  queries_ = gpu::QuerySet::acquire(wgpuDeviceCreateQuerySet(device.get(), &qd));
  resolve_ = device.create_buffer("timestamp resolve", bytes(),
                                  WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc);
}

uint32_t GpuTimer::open(std::string_view name) {
  if (!enabled() || names_.size() >= kMaxSpans) return kMaxSpans;
  names_.emplace_back(name);
  return static_cast<uint32_t>(names_.size() - 1);
}

const WGPUPassTimestampWrites* GpuTimer::writes(uint32_t span, bool first_pass, bool last_pass) {
  if (!enabled() || span >= kMaxSpans || !(first_pass || last_pass)) return nullptr;
  // One descriptor per (span, first/last-ness) is enough: a pass that is both gets both indices.
  WGPUPassTimestampWrites& w = writes_[span * 2 + (first_pass ? 0 : 1)];
  w = WGPU_PASS_TIMESTAMP_WRITES_INIT;
  w.querySet = queries_.get();
  w.beginningOfPassWriteIndex = first_pass ? span * 2 : WGPU_QUERY_SET_INDEX_UNDEFINED;
  w.endOfPassWriteIndex = last_pass ? span * 2 + 1 : WGPU_QUERY_SET_INDEX_UNDEFINED;
  return &w;
}

void GpuTimer::resolve(WGPUCommandEncoder encoder, WGPUBuffer dst, uint64_t offset) {
  if (!enabled() || names_.empty()) return;
  const uint32_t count = static_cast<uint32_t>(names_.size()) * 2;
  wgpuCommandEncoderResolveQuerySet(encoder, queries_.get(), 0, count, resolve_.get(), 0);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, resolve_.get(), 0, dst, offset,
                                       uint64_t(count) * sizeof(uint64_t));
}

std::vector<GpuSpan> GpuTimer::spans(const std::vector<std::string>& names,
                                     const uint64_t* ts) const {
  std::vector<GpuSpan> out;
  for (size_t i = 0; i < names.size(); ++i) {
    const uint64_t begin = ts[i * 2], end = ts[i * 2 + 1];
    // webgpu.h: timestamps are nanoseconds; an end before its begin (a reset counter) is dropped.
    if (end >= begin) out.push_back({names[i], double(end - begin) / 1e6});
  }
  return out;
}

}  // namespace bindery
