// SPDX-License-Identifier: MIT
// CPU cost of moving objects through bindery::gpu_driven::ObjectTable: set_transform on the moved
// objects plus the flush() that uploads them, per moved object, on a real device (lavapipe on
// CPU-only machines). Picks ObjectTableDesc::whole_copy_share: the scatter path (changed records
// packed into staging, one compute dispatch) against the whole copy (every record in one copy).
//
// Axes: objects (1k, 10k, 100k, 1M, table full) x moved share in per mille (1 = 0.1% .. 1000 =
// 100%; a random subset of ids, moved in ascending id order, as an application walking its
// moving objects does) x path (scatter: whole_copy_share = 2, never a whole copy; whole:
// whole_copy_share = 0, always). Timed: the set_transform calls and flush() (the encoder is made
// before, finish/submit/after_submit and the wait for the GPU after, untimed: manual time, measured
// as this thread's CPU time, so other processes on the machine do not count).
// Reported: ns_per_moved (timed CPU ns / moved objects), records (uploaded per flush).
// Numbers and the command that produced them: docs/BENCHMARKS.md "Object table: CPU per moved
// object".
#include "bindery/device.hpp"
#include "bindery/gpu_driven/object_table.hpp"

#include <benchmark/benchmark.h>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using bindery::gpu_driven::ObjectId;
using bindery::gpu_driven::ObjectTable;

const bindery::Device& device() {
  static std::unique_ptr<bindery::Device> d = [] {
    bindery::DeviceOptions o;
    o.want_timestamp_query = false;
    return std::make_unique<bindery::Device>(bindery::Device::create(o));
  }();
  return *d;
}

void submit(WGPUCommandEncoder enc) {
  bindery::gpu::CommandBuffer cb =
      bindery::gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc, nullptr));
  WGPUCommandBuffer raw = cb.get();
  device().submit({&raw, 1});
}

bindery::gpu::CommandEncoder encoder() {
  return bindery::gpu::CommandEncoder::acquire(
      wgpuDeviceCreateCommandEncoder(device().get(), nullptr));
}

// CPU seconds this thread has used (CLOCK_THREAD_CPUTIME_ID): what one thread spends, unaffected
// by other processes on a shared machine (the wall clock would count their time slices too).
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

void BM_MoveAndFlush(benchmark::State& state, bool whole) {
  const uint32_t objects = uint32_t(state.range(0));
  const uint32_t per_mille = uint32_t(state.range(1));
  const uint32_t moved = std::max<uint32_t>(1, uint32_t(uint64_t(objects) * per_mille / 1000));
  bindery::gpu_driven::ObjectTableDesc desc;
  desc.initial_capacity = objects;
  desc.whole_copy_share = whole ? 0.0f : 2.0f;
  ObjectTable table(device(), desc);
  for (uint32_t i = 0; i < objects; ++i)
    table.add(glm::translate(glm::mat4(1.0f), glm::vec3(float(i), 0, 0)), i % 64, i % 16);
  {
    auto enc = encoder();
    table.flush(enc.get());
    submit(enc.get());
    table.after_submit();
    device().poll(true);
  }
  std::vector<ObjectId> ids(objects);
  for (uint32_t i = 0; i < objects; ++i) ids[i] = i;
  std::mt19937 rng(7);
  std::shuffle(ids.begin(), ids.end(), rng);
  ids.resize(moved);
  std::sort(ids.begin(), ids.end());
  std::vector<glm::mat4> worlds(4096);  // the new transforms, reused cyclically
  for (size_t i = 0; i < worlds.size(); ++i)
    worlds[i] = glm::translate(glm::mat4(1.0f), glm::vec3(0, float(i), 1));
  double timed = 0;
  uint32_t records = 0;
  for (auto _ : state) {
    auto enc = encoder();
    const double start = thread_cpu_seconds();
    for (uint32_t i = 0; i < moved; ++i)
      table.set_transform(ids[i], worlds[i & 4095]);
    const bindery::gpu_driven::ObjectFlushStats st = table.flush(enc.get());
    const double s = thread_cpu_seconds() - start;
    state.SetIterationTime(s);
    timed += s;
    records = st.records_uploaded;
    submit(enc.get());
    table.after_submit();
    device().poll(true);
  }
  state.counters["ns_per_moved"] = timed * 1e9 / (double(state.iterations()) * moved);
  state.counters["moved"] = moved;
  state.counters["records"] = records;
  state.counters["staging_blocks"] = table.staging_stats().blocks;
}

void register_all() {
  for (bool whole : {false, true})
    for (int64_t objects : {1'000, 10'000, 100'000, 1'000'000})
      for (int64_t per_mille : {1, 10, 100, 250, 500, 1000}) {
        const int64_t moved = std::max<int64_t>(1, objects * per_mille / 1000);
        // Enough iterations for a stable mean, few enough that 1M-object cases end in seconds.
        const int64_t iterations = std::clamp<int64_t>(4'000'000 / (moved + objects / 8), 5, 2000);
        const std::string name = std::string("BM_MoveAndFlush/") + (whole ? "whole" : "scatter");
        benchmark::RegisterBenchmark(name.c_str(), [whole](benchmark::State& s) { BM_MoveAndFlush(s, whole); })
            ->Args({objects, per_mille})
            ->ArgNames({"objects", "per_mille"})
            ->UseManualTime()
            ->Iterations(iterations)
            ->Unit(benchmark::kMicrosecond);
      }
}

const bool registered = (register_all(), true);

}  // namespace
