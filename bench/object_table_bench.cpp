// SPDX-License-Identifier: MIT
// CPU cost of moving objects through bindery::gpu_driven::ObjectTable (issue 30): set_transform on
// the moved objects plus the flush() that uploads them, per moved object, on a real device
// (lavapipe on CPU-only machines), with the physical limit beside it.
//
//   BM_MoveAndFlush/<order>  one thread. Axes: objects (10k, 100k, 1M, the table full) x moved
//                            share in per mille (1 = 0.1% .. 1000 = 100%) x order of the ids:
//                            contiguous (ids 0 .. moved-1 in order), sorted (a random subset in
//                            ascending order, as an application walking its moving objects does),
//                            random (a random subset in random order), random_batch (the same
//                            through set_transforms() in batches of 4096, which prefetches).
//                            Timed: the set_transform calls and flush() (the encoder is made
//                            before; finish, submit, after_submit and the wait for the GPU after,
//                            untimed), as this thread's CPU time (other processes do not count).
//   BM_Memcpy                the limit: one memcpy of moved x 64 bytes (the moved records' bytes)
//                            between two buffers already touched, same axes, same clock.
//   BM_MemcpyToStaging       the same memcpy into a mapped staging block (StagingRing): the limit
//                            of a write path whose destination is mapped staging (on a discrete
//                            GPU's host its memory type may be slower than the heap).
//   BM_StoreToStaging        the write path's stores alone: per object one 64-byte line (rows and
//                            id, as ObjectTable stages them) stored into mapped staging, in
//                            order, no per-id state, with stores of 16, 32 or 64 bytes
//                            (store_bytes: SSE2, AVX, AVX-512F; skipped where the CPU lacks them),
//                            1: non-temporal 16-byte stores, 2: 16 lines built in a local buffer
//                            and copied with one memcpy of 1 KB.
//   BM_CopyThreads           1..16 threads each memcpy a contiguous share of 100,000 x 64 bytes
//                            into heap memory (dst 0) or mapped staging (dst 1): the machine's
//                            write bandwidth with many writers, the limit of BM_Writers.
//   BM_Writers               1, 2, 4, 8, 16 writer threads (persistent, started together by a
//                            barrier) each moving a contiguous share of a random subset of ids
//                            (sorted 0: in random order, so every thread's ids are scattered over
//                            the whole table and share cache lines of the per-id state with the
//                            other threads'; sorted 1: the subset in ascending order, so each
//                            thread's ids lie in a range of their own, as a parallel loop over an
//                            application's objects gives),
//                            then flush() on the main thread; wall-clock time of both (real time:
//                            what a frame waits), at 1M objects with 10% and 100% moved.
// Reported: ns_per_moved (timed ns / moved objects), records (slots uploaded per flush).
// Numbers and the command that produced them: docs/BENCHMARKS.md "Object table: CPU per moved
// object"; bench/object_table_device.sh runs it on a 16-core host.
#include "bindery/data/staging_ring.hpp"
#include "bindery/device.hpp"
#include "bindery/gpu_driven/object_table.hpp"

#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using bindery::gpu_driven::ObjectId;
using bindery::gpu_driven::ObjectTable;

// The device and the tables live until the process ends and are never destroyed: on the H200
// host a WebGPU device released from a static destructor, after the driver's own teardown at
// exit, crashed the finished run (exit status 139 after its complete output).
const bindery::Device& device() {
  static const bindery::Device* d = [] {
    bindery::DeviceOptions o;
    o.want_timestamp_query = false;
    return new bindery::Device(bindery::Device::create(o));
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

// submit, after_submit, wait for the GPU: the untimed end of a frame.
void end_frame(ObjectTable& table, bindery::gpu::CommandEncoder& enc) {
  submit(enc.get());
  table.after_submit();
  device().poll(true);
}

// CPU seconds this thread has used (CLOCK_THREAD_CPUTIME_ID): what one thread spends, unaffected
// by other processes on a shared machine (the wall clock would count their time slices too).
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// One full table per object count, shared by the cases (a million adds and their upload once).
ObjectTable& table_of(uint32_t objects) {
  static auto* tables = new std::map<uint32_t, std::unique_ptr<ObjectTable>>;
  std::unique_ptr<ObjectTable>& t = (*tables)[objects];
  if (!t) {
    bindery::gpu_driven::ObjectTableDesc desc;
    desc.initial_capacity = objects;
    t = std::make_unique<ObjectTable>(device(), desc);
    for (uint32_t i = 0; i < objects; ++i)
      t->add(glm::translate(glm::mat4(1.0f), glm::vec3(float(i), 0, 0)), i % 64, i % 16);
    auto enc = encoder();
    t->flush(enc.get());
    end_frame(*t, enc);
  }
  return *t;
}

enum class Order { contiguous, sorted, random, random_batch };

std::vector<ObjectId> moved_ids(uint32_t objects, uint32_t moved, Order order) {
  std::vector<ObjectId> ids(objects);
  for (uint32_t i = 0; i < objects; ++i) ids[i] = i;
  if (order != Order::contiguous) {
    std::mt19937 rng(7);
    std::shuffle(ids.begin(), ids.end(), rng);
  }
  ids.resize(moved);
  if (order == Order::sorted) std::sort(ids.begin(), ids.end());
  return ids;
}

uint32_t moved_of(const benchmark::State& state) {
  return std::max<uint32_t>(1, uint32_t(uint64_t(state.range(0)) * state.range(1) / 1000));
}

// The new transforms, reused cyclically (4096 x 64 bytes: in cache, like freshly computed ones).
const std::vector<glm::mat4>& worlds() {
  static const std::vector<glm::mat4> w = [] {
    std::vector<glm::mat4> v(4096);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = glm::translate(glm::mat4(1.0f), glm::vec3(0, float(i), 1));
    return v;
  }();
  return w;
}

void BM_MoveAndFlush(benchmark::State& state, Order order) {
  const uint32_t objects = uint32_t(state.range(0));
  const uint32_t moved = moved_of(state);
  ObjectTable& table = table_of(objects);
  const std::vector<ObjectId> ids = moved_ids(objects, moved, order);
  const std::vector<glm::mat4>& w = worlds();
  double timed = 0;
  uint32_t records = 0;
  for (auto _ : state) {
    auto enc = encoder();
    const double start = thread_cpu_seconds();
    if (order == Order::random_batch) {
      for (uint32_t i = 0; i < moved; i += 4096) {
        const uint32_t k = std::min<uint32_t>(4096, moved - i);
        table.set_transforms({ids.data() + i, k}, {w.data(), k});
      }
    } else {
      for (uint32_t i = 0; i < moved; ++i) table.set_transform(ids[i], w[i & 4095]);
    }
    const bindery::gpu_driven::ObjectFlushStats st = table.flush(enc.get());
    const double s = thread_cpu_seconds() - start;
    state.SetIterationTime(s);
    timed += s;
    records = st.records_uploaded;
    end_frame(table, enc);
  }
  state.counters["ns_per_moved"] = timed * 1e9 / (double(state.iterations()) * moved);
  state.counters["moved"] = moved;
  state.counters["records"] = records;
}

// A mapped staging block of at least `bytes`, acquired once per size and never copied or handed
// back (the benchmarks only write into it).
std::span<std::byte> staging_of(uint64_t bytes) {
  static auto* ring = new bindery::StagingRing(device(), bindery::StagingRingDesc{"bench", 0});
  static auto* blocks = new std::map<uint64_t, bindery::StagingBlock>;
  bindery::StagingBlock& b = (*blocks)[bytes];
  if (b.data.empty()) {
    b = ring->acquire(bytes);
    std::memset(b.data.data(), 0, b.data.size());
  }
  return b.data.subspan(0, bytes);
}

// One memcpy of the moved records' bytes into heap memory (BM_Memcpy) or mapped staging
// (BM_MemcpyToStaging), from a heap buffer already touched.
void memcpy_case(benchmark::State& state, bool to_staging) {
  const uint64_t bytes = uint64_t(moved_of(state)) * 64;
  std::vector<std::byte> src(bytes, std::byte{1}), heap_dst(to_staging ? 0 : bytes, std::byte{0});
  std::byte* dst = to_staging ? staging_of(bytes).data() : heap_dst.data();
  double timed = 0;
  for (auto _ : state) {
    const double start = thread_cpu_seconds();
    std::memcpy(dst, src.data(), bytes);
    benchmark::ClobberMemory();
    const double s = thread_cpu_seconds() - start;
    state.SetIterationTime(s);
    timed += s;
  }
  state.counters["ns_per_moved"] = timed * 1e9 / (double(state.iterations()) * moved_of(state));
  state.counters["moved"] = moved_of(state);
}
void BM_Memcpy(benchmark::State& state) { memcpy_case(state, false); }
void BM_MemcpyToStaging(benchmark::State& state) { memcpy_case(state, true); }

struct alignas(64) Record64 {
  float v[16];
};

// One 64-byte line stored with stores of 16, 32 or 64 bytes (SSE2, AVX, AVX-512F).
void store_line_16(void* dst, const void* src) {
  const auto* s = static_cast<const __m128i*>(src);
  auto* d = static_cast<__m128i*>(dst);
  for (int k = 0; k < 4; ++k) _mm_store_si128(d + k, _mm_loadu_si128(s + k));
}
__attribute__((target("avx"))) void store_line_32(void* dst, const void* src) {
  const auto* s = static_cast<const __m256i*>(src);
  auto* d = static_cast<__m256i*>(dst);
  _mm256_store_si256(d, _mm256_loadu_si256(s));
  _mm256_store_si256(d + 1, _mm256_loadu_si256(s + 1));
}
__attribute__((target("avx512f"))) void store_line_64(void* dst, const void* src) {
  _mm512_store_si512(dst, _mm512_loadu_si512(src));
}
void store_line_nt(void* dst, const void* src) {
  const auto* s = static_cast<const __m128i*>(src);
  auto* d = static_cast<__m128i*>(dst);
  for (int k = 0; k < 4; ++k) _mm_stream_si128(d + k, _mm_loadu_si128(s + k));
}

void BM_StoreToStaging(benchmark::State& state) {
  const uint32_t moved = moved_of(state);
  const int width = int(state.range(2));
  if ((width == 32 && !__builtin_cpu_supports("avx")) ||
      (width == 64 && !__builtin_cpu_supports("avx512f"))) {
    state.SkipWithError("store width not supported by this CPU");
    return;
  }
  void (*store)(void*, const void*) = width == 64   ? store_line_64
                                      : width == 32 ? store_line_32
                                      : width == 1  ? store_line_nt
                                                    : store_line_16;
  const std::span<std::byte> dst = staging_of(uint64_t(moved) * 64 + 128);
  // On a 64-byte boundary, as ObjectTable places its slots (mapped ranges are only 8-aligned).
  auto* lines = reinterpret_cast<Record64*>(
      dst.data() + 64 + ((uint64_t(0) - reinterpret_cast<uintptr_t>(dst.data())) & 63u));
  const std::vector<glm::mat4>& w = worlds();
  double timed = 0;
  for (auto _ : state) {
    const double start = thread_cpu_seconds();
    if (width == 2) {  // 16 lines built in a local buffer, then one memcpy of 1 KB
      Record64 buf[16];
      uint32_t i = 0;
      for (; i + 16 <= moved; i += 16) {
        for (uint32_t k = 0; k < 16; ++k) {
          std::memcpy(buf[k].v, &w[(i + k) & 4095], 48);
          const uint32_t word = (i + k) | 0x80000000u;
          std::memcpy(&buf[k].v[12], &word, 4);
          buf[k].v[13] = buf[k].v[14] = buf[k].v[15] = 0;
        }
        std::memcpy(&lines[i], buf, sizeof(buf));
        benchmark::DoNotOptimize(buf);
      }
    } else {
      for (uint32_t i = 0; i < moved; ++i) {
        Record64 r;
        std::memcpy(r.v, &w[i & 4095], 48);
        const uint32_t word = i | 0x80000000u;
        std::memcpy(&r.v[12], &word, 4);
        r.v[13] = r.v[14] = r.v[15] = 0;
        store(&lines[i], &r);
      }
    }
    _mm_sfence();
    benchmark::ClobberMemory();
    const double s = thread_cpu_seconds() - start;
    state.SetIterationTime(s);
    timed += s;
  }
  state.counters["ns_per_moved"] = timed * 1e9 / (double(state.iterations()) * moved);
  state.counters["moved"] = moved;
}

void BM_CopyThreads(benchmark::State& state) {
  const uint32_t moved = 100'000;
  const uint64_t bytes = uint64_t(moved) * 64;
  const bool to_staging = state.range(0) != 0;
  const uint32_t threads_n = uint32_t(state.range(1));
  std::vector<std::byte> src(bytes, std::byte{1}), heap_dst(bytes, std::byte{0});
  std::byte* dst = to_staging ? staging_of(bytes + 64).data() : heap_dst.data();
  std::barrier start(threads_n + 1), done(threads_n + 1);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < threads_n; ++t)
    threads.emplace_back([&, t] {
      const uint64_t begin = bytes * t / threads_n / 64 * 64;
      const uint64_t end = t + 1 == threads_n ? bytes : bytes * (t + 1) / threads_n / 64 * 64;
      for (;;) {
        start.arrive_and_wait();
        if (stop.load()) return;
        std::memcpy(dst + begin, src.data() + begin, end - begin);
        done.arrive_and_wait();
      }
    });
  double timed = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    start.arrive_and_wait();
    done.arrive_and_wait();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s);
    timed += s;
  }
  stop.store(true);
  start.arrive_and_wait();
  for (std::thread& t : threads) t.join();
  state.counters["ns_per_moved"] = timed * 1e9 / (double(state.iterations()) * moved);
  state.counters["moved"] = moved;
}

void BM_Writers(benchmark::State& state) {
  const uint32_t objects = uint32_t(state.range(0));
  const uint32_t moved = moved_of(state);
  const uint32_t writers = uint32_t(state.range(2));
  ObjectTable& table = table_of(objects);
  const std::vector<ObjectId> ids =
      moved_ids(objects, moved, state.range(3) == 0 ? Order::random : Order::sorted);
  const std::vector<glm::mat4>& w = worlds();
  std::barrier start(writers + 1), done(writers + 1);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  double flush_timed = 0;
  for (uint32_t t = 0; t < writers; ++t)
    threads.emplace_back([&, t] {
      const uint32_t begin = uint32_t(uint64_t(moved) * t / writers);
      const uint32_t end = uint32_t(uint64_t(moved) * (t + 1) / writers);
      for (;;) {
        start.arrive_and_wait();
        if (stop.load()) return;
        for (uint32_t i = begin; i < end; ++i) table.set_transform(ids[i], w[i & 4095]);
        done.arrive_and_wait();
      }
    });
  double timed = 0;
  uint32_t records = 0;
  for (auto _ : state) {
    auto enc = encoder();
    const auto t0 = std::chrono::steady_clock::now();
    start.arrive_and_wait();
    done.arrive_and_wait();
    const auto t1 = std::chrono::steady_clock::now();
    const bindery::gpu_driven::ObjectFlushStats st = table.flush(enc.get());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(s);
    timed += s;
    flush_timed += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    records = st.records_uploaded;
    end_frame(table, enc);
  }
  stop.store(true);
  start.arrive_and_wait();
  for (std::thread& t : threads) t.join();
  state.counters["ns_per_moved"] = timed * 1e9 / (double(state.iterations()) * moved);
  state.counters["flush_ns_per_moved"] = flush_timed * 1e9 / (double(state.iterations()) * moved);
  state.counters["moved"] = moved;
  state.counters["records"] = records;
}

// Enough iterations for a stable mean, few enough that 1M-object cases end in seconds.
int64_t iterations_for(int64_t moved) { return std::clamp<int64_t>(20'000'000 / (moved + 2000), 5, 2000); }

void register_all() {
  const std::pair<const char*, Order> orders[] = {
      {"contiguous", Order::contiguous}, {"sorted", Order::sorted}, {"random", Order::random},
      {"random_batch", Order::random_batch}};
  for (int64_t objects : {10'000, 100'000, 1'000'000})
    for (int64_t per_mille : {1, 10, 100, 250, 500, 1000}) {
      const int64_t moved = std::max<int64_t>(1, objects * per_mille / 1000);
      for (const auto& named : orders) {
        const Order order = named.second;  // a copy: clang 14 cannot capture a binding
        const std::string full = std::string("BM_MoveAndFlush/") + named.first;
        benchmark::RegisterBenchmark(full.c_str(),
                                     [order](benchmark::State& s) { BM_MoveAndFlush(s, order); })
            ->Args({objects, per_mille})
            ->ArgNames({"objects", "per_mille"})
            ->UseManualTime()
            ->Iterations(iterations_for(moved))
            ->Unit(benchmark::kMicrosecond);
      }
      for (auto [name, fn] : {std::pair{"BM_Memcpy", &BM_Memcpy},
                              std::pair{"BM_MemcpyToStaging", &BM_MemcpyToStaging}})
        benchmark::RegisterBenchmark(name, fn)
            ->Args({objects, per_mille})
            ->ArgNames({"objects", "per_mille"})
            ->UseManualTime()
            ->Iterations(iterations_for(moved))
            ->Unit(benchmark::kMicrosecond);
      for (int64_t width : {16, 32, 64, 1, 2})
        benchmark::RegisterBenchmark("BM_StoreToStaging", BM_StoreToStaging)
            ->Args({objects, per_mille, width})
            ->ArgNames({"objects", "per_mille", "store_bytes"})
            ->UseManualTime()
            ->Iterations(iterations_for(moved))
            ->Unit(benchmark::kMicrosecond);
    }
  for (int64_t dst : {0, 1})
    for (int64_t threads : {1, 2, 4, 8, 16})
      benchmark::RegisterBenchmark("BM_CopyThreads", BM_CopyThreads)
          ->Args({dst, threads})
          ->ArgNames({"staging", "threads"})
          ->UseManualTime()
          ->Iterations(200)
          ->Unit(benchmark::kMicrosecond);
  for (int64_t sorted : {0, 1})
  for (int64_t per_mille : {100, 1000})
    for (int64_t writers : {1, 2, 4, 8, 16})
      benchmark::RegisterBenchmark("BM_Writers", BM_Writers)
          ->Args({1'000'000, per_mille, writers, sorted})
          ->ArgNames({"objects", "per_mille", "writers", "sorted"})
          ->UseManualTime()
          ->Iterations(iterations_for(1'000'000 * per_mille / 1000))
          ->Unit(benchmark::kMicrosecond);
}

const bool registered = (register_all(), true);

}  // namespace
