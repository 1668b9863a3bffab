// SPDX-License-Identifier: MIT
// The redundant-state tracker alone (bindery::RenderStateTracker, bindery/draw_list.hpp): the
// decision logic behind RenderPassState, no WebGPU calls.
//
// The draw stream is the dynamic-offsets strategy's per draw (src/render/strategies/dynamic_offsets
// encode_range): setPipeline (same pipeline), setBindGroup(0) frame group (same bind group, key
// 0), setBindGroup(1) material group (a new material every `draws_per_material` draws, key =
// material id), setBindGroup(2) object group (same bind group, one dynamic offset = slot * 256,
// key = slot), setVertexBuffer(0) and setIndexBuffer (same buffers), draw. 10,000 draws per pass;
// each iteration is one pass (reset, then every draw).
//
// Axes: implementation (BM_Tracker: the current one; BM_TrackerDescribed: the same with core
// default limits and the object group described with its layout and buffer window, so that every
// dynamic offset rule is checked on each issued setBindGroup (issue 18); BM_BaselineTracker: the
// tracker as it was at commit c974bf2, copied below), draws_per_material (100: the realistic batch; 1: a new
// material every draw), policy (0 = IntruderPolicy::report, what release builds run; 1 =
// IntruderPolicy::ignore). Reported: ns_per_draw (time per draw of tracker work; Google Benchmark
// prints inverted rates with an `s` suffix: `4.2s` there means 4.2 ns). Both implementations run
// one pass first and must agree on every counter, else the benchmark stops with an error.
// Numbers and the command that produced them: docs/BENCHMARKS.md.
#include "bindery/encode/draw_list.hpp"
#include "bindery/core/error.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bindery;

// ---------------------------------------------------------------------------------------------
// BASELINE, for the ratio only: the redundant-state tracker as it was at commit c974bf2
// (include/bindery/draw_list.hpp and src/plan/draw_list.cpp there), renamed BaselineTracker.
// std::map per group and vertex slot, std::vector dynamic offsets, two map walks per draw.
// Not used by bindery; do not fix or tune it here.
// ---------------------------------------------------------------------------------------------

class BaselineTracker {
 public:
  /// `counters` must outlive the tracker.
  explicit BaselineTracker(Counters& counters,
                           IntruderPolicy policy = IntruderPolicy::build_default);

  /// Optional: names for group `group`'s bindings in intruder reports; dynamic offsets map to
  /// the layout's dynamic entries sorted by binding number (shared/cases D05).
  [[maybe_unused]] void describe_group(uint32_t group, const BindGroupLayoutDesc& layout);

  bool set_pipeline(const void* pipeline);
  /// `declared` and `key`: the group's declared frequency and this draw's key of that frequency.
  bool set_bind_group(uint32_t group, const void* bind_group,
                      std::span<const uint32_t> dynamic_offsets, Frequency declared, uint64_t key);
  bool set_vertex_buffer(uint32_t slot, const void* buffer, uint64_t offset, uint64_t size);
  bool set_index_buffer(const void* buffer, uint32_t format, uint64_t offset, uint64_t size);
  /// Call right before each draw: counts it and runs the intruder check. Throws Intruder under
  /// IntruderPolicy::error.
  void draw();
  /// Forgets all bound state (a new pass; after executeBundles).
  void reset();

  /// Intruders found so far, one per (group, binding).
  const std::vector<IntruderReport>& intruders() const { return intruders_; }
  /// The policy in force (build_default resolved).
  IntruderPolicy policy() const { return policy_; }

 private:
  struct Slot {
    bool bound = false;
    const void* bind_group = nullptr;
    std::vector<uint32_t> offsets;
    Frequency declared = Frequency::object;
    uint64_t key = 0;
    // The state the previous draw used (valid when `drawn`).
    bool drawn = false;
    const void* drawn_bind_group = nullptr;
    std::vector<uint32_t> drawn_offsets;
    uint64_t drawn_key = 0;
  };
  struct VertexSlot {
    bool bound = false;
    const void* buffer = nullptr;
    uint64_t offset = 0, size = 0;
  };
  void report(uint32_t group, const Slot& slot);

  Counters& counters_;
  IntruderPolicy policy_;
  const void* pipeline_ = nullptr;
  bool pipeline_bound_ = false;
  std::map<uint32_t, Slot> groups_;
  std::map<uint32_t, VertexSlot> vertex_;
  VertexSlot index_;
  uint32_t index_format_ = 0;
  std::map<uint32_t, BindGroupLayoutDesc> described_;
  std::vector<IntruderReport> intruders_;
};

BaselineTracker::BaselineTracker(Counters& counters, IntruderPolicy policy)
    : counters_(counters), policy_(policy) {
  if (policy_ == IntruderPolicy::build_default) {
#ifdef NDEBUG
    policy_ = IntruderPolicy::report;
#else
    policy_ = IntruderPolicy::error;
#endif
  }
}

void BaselineTracker::describe_group(uint32_t group, const BindGroupLayoutDesc& layout) {
  described_[group] = layout;
}

bool BaselineTracker::set_pipeline(const void* pipeline) {
  if (pipeline_bound_ && pipeline_ == pipeline) {
    ++counters_.set_pipeline_skipped;
    return false;
  }
  pipeline_ = pipeline;
  pipeline_bound_ = true;
  ++counters_.set_pipeline;
  return true;
}

bool BaselineTracker::set_bind_group(uint32_t group, const void* bind_group,
                                     std::span<const uint32_t> dynamic_offsets, Frequency declared,
                                     uint64_t key) {
  Slot& s = groups_[group];
  s.key = key;
  s.declared = declared;
  if (s.bound && s.bind_group == bind_group &&
      std::equal(s.offsets.begin(), s.offsets.end(), dynamic_offsets.begin(),
                 dynamic_offsets.end())) {
    ++counters_.set_bind_group_skipped;
    return false;
  }
  s.bound = true;
  s.bind_group = bind_group;
  s.offsets.assign(dynamic_offsets.begin(), dynamic_offsets.end());
  ++counters_.set_bind_group;
  return true;
}

bool BaselineTracker::set_vertex_buffer(uint32_t slot, const void* buffer, uint64_t offset,
                                        uint64_t size) {
  VertexSlot& v = vertex_[slot];
  if (v.bound && v.buffer == buffer && v.offset == offset && v.size == size) {
    ++counters_.set_vertex_buffer_skipped;
    return false;
  }
  v = {true, buffer, offset, size};
  ++counters_.set_vertex_buffer;
  return true;
}

bool BaselineTracker::set_index_buffer(const void* buffer, uint32_t format, uint64_t offset,
                                       uint64_t size) {
  if (index_.bound && index_.buffer == buffer && index_format_ == format &&
      index_.offset == offset && index_.size == size) {
    ++counters_.set_index_buffer_skipped;
    return false;
  }
  index_ = {true, buffer, offset, size};
  index_format_ = format;
  ++counters_.set_index_buffer;
  return true;
}

void BaselineTracker::report(uint32_t group, const Slot& slot) {
  // Observed frequency: the lowest declared frequency above this group's among the groups whose
  // key did change since the previous draw; with none, the binding changes on every draw.
  Frequency observed = Frequency::object;
  for (const auto& [g, other] : groups_) {
    if (g != group && other.drawn && other.key != other.drawn_key && other.declared > slot.declared)
      observed = std::min(observed, other.declared);
  }
  auto described = described_.find(group);
  const std::string group_name = described != described_.end() && !described->second.label.empty()
                                     ? described->second.label
                                     : fmt::format("group {}", group);
  std::vector<std::pair<std::string, const char*>> changed;  // (binding name, what changed)
  if (slot.bind_group != slot.drawn_bind_group) changed.emplace_back(group_name, "bind group");
  std::vector<const BindingLayoutEntry*> dynamic;
  if (described != described_.end()) {
    for (const BindingLayoutEntry& e : described->second.entries)
      if (e.has_dynamic_offset) dynamic.push_back(&e);
    std::sort(dynamic.begin(), dynamic.end(),
              [](auto* a, auto* b) { return a->binding < b->binding; });
  }
  for (size_t i = 0; i < std::max(slot.offsets.size(), slot.drawn_offsets.size()); ++i) {
    if (i < slot.offsets.size() && i < slot.drawn_offsets.size() &&
        slot.offsets[i] == slot.drawn_offsets[i])
      continue;
    changed.emplace_back(
        i < dynamic.size() ? dynamic[i]->name : fmt::format("{} dynamic offset {}", group_name, i),
        "dynamic offset");
  }
  for (const auto& change : changed) {
    const std::string& name = change.first;
    const auto& what = change.second;
    const bool seen =
        std::any_of(intruders_.begin(), intruders_.end(),
                    [&](const IntruderReport& r) { return r.group == group && r.binding == name; });
    if (seen) continue;
    IntruderReport r{group, name, slot.declared, observed,
                     fmt::format("intruder: @group({}) '{}' is declared {} but its {} changed "
                                 "between two draws with the same {} key ({}): it changes per {}",
                                 group, name, to_string(slot.declared), what,
                                 to_string(slot.declared), slot.key, to_string(observed))};
    intruders_.push_back(r);
    if (policy_ == IntruderPolicy::error) throw Error(ErrorKind::Intruder, r.message);
  }
}

void BaselineTracker::draw() {
  ++counters_.draws;
  if (policy_ != IntruderPolicy::ignore) {
    for (const auto& [g, s] : groups_) {
      const bool state_changed = s.bind_group != s.drawn_bind_group || s.offsets != s.drawn_offsets;
      if (s.drawn && s.declared < Frequency::object && state_changed && s.key == s.drawn_key)
        report(g, s);
    }
  }
  for (auto& [g, s] : groups_) {
    s.drawn = s.bound;
    s.drawn_bind_group = s.bind_group;
    s.drawn_offsets = s.offsets;
    s.drawn_key = s.key;
  }
}

void BaselineTracker::reset() {
  pipeline_bound_ = false;
  pipeline_ = nullptr;
  groups_.clear();
  vertex_.clear();
  index_ = {};
  index_format_ = 0;
}

// --------------------------------------------------------------------------------------------
// End of the baseline.
// --------------------------------------------------------------------------------------------

constexpr uint32_t kDrawsPerPass = 10000;
constexpr uint32_t kObjectStride = 256;  // the object group's dynamic offset step, bytes

/// One draw of the stream: the material bind group's index and the object slot.
struct StreamDraw {
  uint32_t material = 0;
  uint32_t slot = 0;
};

/// Opaque stand-ins for the handles: distinct addresses, as WebGPU handles are.
struct Handles {
  int pipeline = 0, frame = 0, object = 0, vertices = 0, indices = 0;
  std::vector<int> materials;
};

std::vector<StreamDraw> make_stream(uint32_t draws_per_material) {
  std::vector<StreamDraw> s(kDrawsPerPass);
  for (uint32_t i = 0; i < kDrawsPerPass; ++i) s[i] = {i / draws_per_material, i};
  return s;
}

/// One pass through `tracker`: what RenderEncoderState asks it before each webgpu.h call.
/// Returns the number of calls the tracker let through (what would reach wgpu-native).
template <class Tracker>
uint64_t encode_pass(Tracker& t, const std::vector<StreamDraw>& stream, const Handles& h) {
  uint64_t issued = 0;
  t.reset();
  for (const StreamDraw& d : stream) {
    issued += t.set_pipeline(&h.pipeline);
    issued += t.set_bind_group(0, &h.frame, {}, Frequency::frame, 0);
    issued += t.set_bind_group(1, &h.materials[d.material], {}, Frequency::material, d.material);
    const uint32_t offset = d.slot * kObjectStride;
    issued += t.set_bind_group(2, &h.object, {&offset, 1}, Frequency::object, d.slot);
    issued += t.set_vertex_buffer(0, &h.vertices, 0, 1536);
    issued += t.set_index_buffer(&h.indices, 1, 0, 72);
    t.draw();
  }
  return issued;
}

bool same_counts(const Counters& a, const Counters& b) {
  return a.draws == b.draws && a.set_pipeline == b.set_pipeline &&
         a.set_pipeline_skipped == b.set_pipeline_skipped && a.set_bind_group == b.set_bind_group &&
         a.set_bind_group_skipped == b.set_bind_group_skipped &&
         a.set_vertex_buffer == b.set_vertex_buffer &&
         a.set_vertex_buffer_skipped == b.set_vertex_buffer_skipped &&
         a.set_index_buffer == b.set_index_buffer &&
         a.set_index_buffer_skipped == b.set_index_buffer_skipped;
}

/// How the benchmarked RenderStateTracker is set up.
enum class Setup {
  plain,      ///< no limits (as before issue 18)
  described,  ///< core default limits and group 2 described with its layout and window: every
              ///< dynamic offset rule checked (count, alignment, window)
};

template <class Tracker, Setup kSetup = Setup::plain>
void run(benchmark::State& state) {
  const uint32_t draws_per_material = uint32_t(state.range(0));
  const IntruderPolicy policy =
      state.range(1) == 0 ? IntruderPolicy::report : IntruderPolicy::ignore;
  const std::vector<StreamDraw> stream = make_stream(draws_per_material);
  Handles h;
  h.materials.resize(stream.back().material + 1);

  // Both implementations must take the same decisions on this stream, and issue per pass: the
  // pipeline, the frame group, the vertex and the index buffer once, the material group once per
  // material and the object group every draw.
  const uint64_t expected_issued = 4 + kDrawsPerPass / draws_per_material + kDrawsPerPass;
  Counters current, baseline;
  RenderStateTracker check_current(current, policy);
  BaselineTracker check_baseline(baseline, policy);
  if (encode_pass(check_current, stream, h) != expected_issued ||
      encode_pass(check_baseline, stream, h) != expected_issued ||
      !same_counts(current, baseline) || !check_current.intruders().empty() ||
      !check_baseline.intruders().empty()) {
    state.SkipWithError("the current and the baseline tracker disagree on this stream");
    return;
  }

  Counters counters;
  const Limits limits = Limits::core_defaults();  // offsets aligned to 256 = kObjectStride
  std::unique_ptr<Tracker> owned;
  if constexpr (kSetup == Setup::described)
    owned = std::make_unique<Tracker>(counters, policy, &limits);
  else
    owned = std::make_unique<Tracker>(counters, policy);
  Tracker& tracker = *owned;
  if constexpr (kSetup == Setup::described) {
    BindingLayoutEntry object{0, BindingKind::uniform_buffer};
    object.has_dynamic_offset = true;
    const BufferBindingWindow window{0, 0, kObjectStride, uint64_t{kDrawsPerPass} * kObjectStride};
    tracker.describe_group(2, BindGroupLayoutDesc{"object", {object}}, {&window, 1});
  }
  uint64_t issued = 0;
  for (auto _ : state) {
    issued = encode_pass(tracker, stream, h);
    benchmark::DoNotOptimize(issued);
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_draw"] = benchmark::Counter(
      double(kDrawsPerPass) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["issued_per_pass"] = double(issued);
}

void BM_Tracker(benchmark::State& state) {
  run<RenderStateTracker>(state);
}
void BM_TrackerDescribed(benchmark::State& state) {
  run<RenderStateTracker, Setup::described>(state);
}
void BM_BaselineTracker(benchmark::State& state) {
  run<BaselineTracker>(state);
}

void Axes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"draws_per_material", "policy"});
  // With --benchmark_repetitions: the fastest repetition too (the shared machine's noise only
  // ever adds time).
  b->ComputeStatistics(
      "min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
  for (int64_t batch : {100, 1})
    for (int64_t policy : {0, 1}) b->Args({batch, policy});
}

}  // namespace

BENCHMARK(BM_Tracker)->Apply(Axes);
BENCHMARK(BM_TrackerDescribed)->Apply(Axes);
BENCHMARK(BM_BaselineTracker)->Apply(Axes);
