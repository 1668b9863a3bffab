// SPDX-License-Identifier: MIT
// The CPU side of DynamicUniformBuffer::flush(): SlotShadow's dirty marks -> upload ranges ->
// a fake queue that copies each range (what queue.writeBuffer does with the bytes: it copies them
// into the implementation's staging memory). No device.
//
// Axes: slots (1000, 10000, 100000) × dirty_pct (100, 1, 0). Element 128 bytes (two mat4x4f) at
// the spec-default stride (Limits::core_defaults(): 256). Each iteration marks the dirty slots
// (every slot, every 100th slot, none), takes the upload ranges and copies them.
// Reported: ns_per_slot (time per slot in the arena), bytes_per_second (bytes copied by the fake
// queue), ranges (writeBuffer calls per flush). BM_MemcpyFloor copies the same number of bytes
// in one plain memcpy, in the same run: the floor a flush cannot beat.
// Numbers and the command that produced them: docs/BENCHMARKS.md.
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/core/limits.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

namespace {

constexpr uint64_t kElementBytes = 128;

std::vector<uint32_t> dirty_slots(uint32_t slots, int64_t dirty_pct) {
  std::vector<uint32_t> v;
  if (dirty_pct == 0) return v;
  const uint32_t step = dirty_pct >= 100 ? 1 : uint32_t(100 / dirty_pct);
  for (uint32_t s = 0; s < slots; s += step) v.push_back(s);
  return v;
}

// Bytes one flush uploads for this case (computed once from the plan, outside the timing).
uint64_t bytes_per_flush(bindery::SlotShadow& shadow, const std::vector<uint32_t>& dirty) {
  for (uint32_t s : dirty) shadow.mark_dirty(s);
  uint64_t n = 0;
  for (const auto& r : shadow.take_upload_ranges()) n += r.size;
  return n;
}

void BM_Flush(benchmark::State& state) {
  const uint32_t slots = uint32_t(state.range(0));
  const int64_t dirty_pct = state.range(1);
  const bindery::Limits limits = bindery::Limits::core_defaults();
  bindery::SlotShadow shadow(bindery::dynamic_uniform_slot_layout(kElementBytes, limits), slots);
  std::vector<std::byte> gpu(shadow.bytes().size());  // the fake queue's destination
  const std::vector<uint32_t> dirty = dirty_slots(slots, dirty_pct);
  const uint64_t bytes = bytes_per_flush(shadow, dirty);
  uint64_t ranges = 0;
  for (auto _ : state) {
    for (uint32_t s : dirty) shadow.mark_dirty(s);
    const std::byte* src = shadow.bytes().data();
    const auto& plan = shadow.take_upload_ranges();
    for (const bindery::UploadRange& r : plan) {
      std::memcpy(gpu.data() + r.buffer_offset, src + r.shadow_offset, r.size);
    }
    ranges = plan.size();
    benchmark::DoNotOptimize(gpu.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
  state.counters["ns_per_slot"] = benchmark::Counter(
      double(slots) * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                benchmark::Counter::kInvert);
  state.counters["bytes_per_flush"] = double(bytes);
  state.counters["ranges"] = double(ranges);
}

void BM_MemcpyFloor(benchmark::State& state) {
  // The same bytes as BM_Flush uploads for (slots, dirty_pct), copied in one memcpy.
  const uint32_t slots = uint32_t(state.range(0));
  const int64_t dirty_pct = state.range(1);
  bindery::SlotShadow shadow(
      bindery::dynamic_uniform_slot_layout(kElementBytes, bindery::Limits::core_defaults()),
      slots);
  const uint64_t bytes = bytes_per_flush(shadow, dirty_slots(slots, dirty_pct));
  std::vector<std::byte> src(bytes + 1), dst(bytes + 1);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
  state.counters["ns_per_slot"] = benchmark::Counter(
      double(slots) * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                benchmark::Counter::kInvert);
  state.counters["bytes_per_flush"] = double(bytes);
}

void Axes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"slots", "dirty_pct"});
  for (int64_t slots : {1000, 10000, 100000}) {
    for (int64_t pct : {100, 1, 0}) b->Args({slots, pct});
  }
}

}  // namespace

BENCHMARK(BM_Flush)->Apply(Axes);
BENCHMARK(BM_MemcpyFloor)->Apply(Axes);
