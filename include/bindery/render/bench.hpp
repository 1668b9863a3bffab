// SPDX-License-Identifier: MIT
/// @file
/// bindery/render/bench.hpp — `bindery bench`: the most objects each strategy draws within a frame
/// budget.
///
/// For one strategy the search renders the cube scene at growing object counts until the median
/// frame time exceeds the budget, then narrows the gap between the last count within budget and
/// the first over it until the two are within `precision` of each other: either each next count
/// predicted from the frame times measured so far (BudgetSearchMode::guided, `bindery bench`'s
/// default: usually two to five probes a search) or by doubling and bisection
/// (BudgetSearchMode::geometric).
/// Frame time is the whole frame (math + uploads + encoding + submit + waiting for the GPU), the
/// median of the measured frames after the warm-up frames (MeasureOptions). The search itself
/// (find_max_within_budget) takes any measuring function, so it is tested without a device; so do
/// the order of repeated searches (interleaved_schedule), their summary (spread_of) and the probe
/// length (probe_long_enough), which `bindery bench --repeat` uses (issue 31).
#pragma once

#include "bindery/core/device.hpp"
#include "bindery/render/renderer.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bindery {

/// One measured point: `objects` drawn at one frame per `frame_ms` (median frame interval: the
/// throughput, which frames in flight improve; with one frame in flight it is the whole frame).
struct BudgetProbe {
  uint32_t objects = 0;  ///< objects drawn per frame
  double frame_ms = 0;   ///< whole frame, median, milliseconds
  double cpu_ms = 0;     ///< uploads + encoding + submit (median)
  double gpu_ms = 0;   ///< the frame's GPU spans by timestamp queries (median; 0 when unavailable)
  double math_ms = 0;  ///< per-object matrices on the CPU (median)
  double latency_ms = 0;                 ///< first CPU work to GPU done (median)
  std::optional<CullingCounts> culling;  ///< the last frame's counts (GPU-driven strategies)
  uint32_t moving_objects = 0;  ///< objects recomputed and uploaded per frame (RenderReport)
  /// RenderReport::cpu_ns_per_moved_object of the probe's run.
  std::optional<double> cpu_ns_per_moved_object;
  uint32_t frames = 0;     ///< frames measured (after the warm-up; 0: not measured)
  double measured_ms = 0;  ///< the measured frames' intervals added up
};

/// Smallest BudgetSearchOptions::growth: steps of at least 10% (at most about 230 probes from 1
/// to 2^32 objects, where 1.0000001 took a probe per object).
inline constexpr double kMinSearchGrowth = 1.1;
/// Largest BudgetSearchOptions::growth: three steps from 1 object reach 10^9; a larger factor
/// only overshoots to max_objects.
inline constexpr double kMaxSearchGrowth = 1000.0;

/// Largest step of a guided search from one count to the next (up or down): a prediction from a
/// small count, where the frame's fixed costs dominate, is not trusted further than this.
inline constexpr double kMaxGuidedStep = 16.0;

/// How a budget search picks its next count.
enum class BudgetSearchMode {
  /// Steps of `growth` from start_objects until the budget is crossed, then bisection.
  geometric,
  /// Each next count predicted from the measured frame times (issue 31): the line through the
  /// last two probes (or, with one, frame time proportional to count) says where the frame
  /// reaches the budget, t. The search measures floor(t x (1 - precision / 2)), expecting it
  /// within budget, and after such a count proved within (or when no count within is predicted
  /// above the largest one so far, good) the closing count floor(good x (1 + precision)),
  /// expecting it over. A step is at most kMaxGuidedStep x (a step cut to that expects nothing).
  /// A probe whose outcome contradicts its expectation (the host changed speed, or the cost is not
  /// linear: a frame time flat in the count) makes the next count a bisection once both sides are
  /// known; while one side is still open, the search steps by `growth` until it crosses the
  /// budget, then predicts again. So a search takes at most about three probes per halving of the
  /// gap, and on a linear cost three or four in all where the geometric search takes ten; its
  /// result obeys the same rule (measured within budget, the first count over it at most
  /// `precision` above).
  guided,
};

/// Options of the search. Throws InvalidArgument (from find_max_within_budget and
/// repeat_search_options) when budget_ms <= 0, start_objects == 0, max_objects < start_objects,
/// precision is not in (0, 1) or growth is not in kMinSearchGrowth..kMaxSearchGrowth.
struct BudgetSearchOptions {
  double budget_ms = 1000.0 / 60.0;  ///< the frame budget (60 fps)
  uint32_t start_objects = 250;      ///< first count measured; the search doubles from here
  uint32_t max_objects = 1'000'000;  ///< the search stops here (result `capped`)
  double precision = 0.05;           ///< stop when (first over - last within) / last within <= this
  /// Smallest count the search may go down to when start_objects is over budget: it halves from
  /// start_objects until a count is within budget or this one is over too (result 0). 0 means
  /// start_objects (no downward search: the result is 0 when start_objects is over).
  uint32_t min_objects = 0;
  /// Factor of each step up from start_objects, and down towards min_objects, before the
  /// bisection (2: doubling; a step always moves by at least one object). A guided search steps
  /// by it only after a contradicted prediction.
  double growth = 2.0;
  /// How the next count is chosen (geometric: growth steps and bisection; guided: predicted).
  BudgetSearchMode mode = BudgetSearchMode::geometric;
};

/// The result for one strategy: the largest measured count within budget (0 when even
/// start_objects is over), whether the search hit max_objects, and every probe in order.
struct BudgetSearchResult {
  uint32_t max_objects = 0;  ///< largest count measured within budget; 0 when start_objects is over
  bool capped = false;       ///< true when max_objects of the options was reached within budget
  std::vector<BudgetProbe> probes;  ///< every measurement, in the order taken
};

/// The search over a monotone cost: `measure(n)` returns the probe for n objects.
BudgetSearchResult find_max_within_budget(const std::function<BudgetProbe(uint32_t)>& measure,
                                          const BudgetSearchOptions& options);

/// How many frames a probe measures: at least `min_frames`, and more until their intervals add
/// up to `min_ms`, at most `max_frames` (issue 31: a probe chosen from the measured frame time,
/// long enough that CPU time and frame interval agree, rather than a fixed count).
struct ProbeLength {
  uint32_t min_frames = 5;  ///< measured frames at least (>= 1)
  uint32_t max_frames = 5;  ///< measured frames at most (>= min_frames)
  double min_ms = 0;        ///< measured time to reach (0: exactly min_frames frames)
};

/// Whether a probe that has measured `frames` frames taking `measured_ms` in all is done: it has
/// max_frames, or at least min_frames whose intervals add up to min_ms or more.
bool probe_long_enough(const ProbeLength& length, uint32_t frames, double measured_ms);

/// What measure_cubes() renders besides the object count.
struct MeasureOptions {
  /// What render() runs, as SoakOptions does: strategy, width and height, frames_in_flight,
  /// occlusion, draw_path, threads, encode_threads (1..kMaxEncodeThreads; compare_raw_floor()
  /// splits both of its sides' draws the same way, one command encoder per range, one task
  /// each). `frames` is the number of MEASURED frames (default 5; measure_scene: the least,
  /// see probe_ms): the measurements render warm-up frames before them. keep_last_frame,
  /// time_s, moving and the callbacks are the measurements' own.
  RenderOptions render = [] {
    RenderOptions r;
    r.frames = 5;
    return r;
  }();
  /// measure_scene: frames rendered before the measured ones (the first uploads everything), at
  /// least 1. compare_raw_floor renders one.
  uint32_t warmup_frames = 1;
  /// measure_scene: measure frames until their intervals add up to this many ms (at least
  /// render.frames frames, at most max_frames); 0: exactly render.frames frames.
  double probe_ms = 0;
  /// measure_scene: the most frames measured when probe_ms > 0 (below render.frames: that).
  uint32_t max_frames = 1000;
  /// CubeSceneOptions::seed: with one seed, the n cubes of a probe are the first n of every larger
  /// probe, so the probes of a search differ only in object count.
  uint64_t seed = 1;
  float spread = 1.0f;  ///< CubeSceneOptions::spread
};

/// Measures the cube scene (animated) at `objects` objects, as measure_scene().
BudgetProbe measure_cubes(const Device& device, const MeasureOptions& options, uint32_t objects);

/// Measures any scene (the options' seed and spread unused), recomputing Scene::moving_share()
/// of the objects each frame (every cube, the city's cars, no glTF object): renders
/// warmup_frames frames, then measures frames until probe_long_enough() (ProbeLength
/// {render.frames, max_frames, probe_ms}), and returns the medians of the measured frames. A
/// frame counts once it is done on the GPU while the CPU still records the frames after it, so
/// the last frames_in_flight frames, drained with no CPU work between them, are never measured.
BudgetProbe measure_scene(const Device& device, const MeasureOptions& options, const Scene& scene);

/// Whether a probe's CPU work per frame (math_ms + cpu_ms, medians) fits its frame interval
/// (frame_ms) within `factor`: in a steady run the interval holds the CPU work, so a probe where
/// it does not was not steady (too few frames, or the host was busy).
bool cpu_fits_interval(const BudgetProbe& probe, double factor = 1.25);

/// Repeated measurements summed up: the median, the smallest and the largest value.
struct Spread {
  double median = 0;        ///< the lower median: for an even count the smaller middle value
  double min = 0;           ///< the smallest value
  double max = 0;           ///< the largest value
  size_t median_index = 0;  ///< where the median is in the values given (the first such)
};

/// The Spread of `values` (none NaN; all 0 when empty). The median is always one of the values, so
/// the other figures of the run it came from can be printed beside it.
Spread spread_of(const std::vector<double>& values);

/// max / min of `values` (0 when there are fewer than 2 or the smallest is not positive).
double max_over_min(const std::vector<double>& values);

/// One step of a repeated bench: repeat `repeat` of strategy `strategy` (an index into the list).
struct BenchSlot {
  uint32_t repeat = 0;    ///< 0-based repeat
  uint32_t strategy = 0;  ///< index into the strategies measured
  bool operator==(const BenchSlot&) const = default;  ///< the same repeat of the same strategy
};

/// Where a later repeat of a strategy's search starts (issue 31): at nine tenths of the count
/// `previous` found by its last search, at most options.max_objects, at least the first search's
/// floor (options.min_objects where set and below options.start_objects, else
/// options.start_objects), with steps of 1.25x (growth) instead of doubling, so that a geometric
/// search brackets `previous` within 25% in two probes and bisects that (five probes at a
/// precision of 5%, where doubling up from options.start_objects took ten or more; a guided one,
/// the mode of `options` kept, usually two to five); options themselves when `previous` is 0.
/// The search it returns may go down to that floor (min_objects) when the host got slower. Throws InvalidArgument for options find_max_within_budget() refuses.
BudgetSearchOptions repeat_search_options(const BudgetSearchOptions& options, uint32_t previous);

/// The most repeats `bindery bench --repeat` takes.
inline constexpr uint32_t kMaxBenchRepeats = 100;

/// The order of `bindery bench --repeat`: repeats one after another, each measuring every
/// strategy once, round-robin, so that a drift of the host falls on all of them; repeat r starts
/// at strategy r % strategies and goes on in list order (wrapping), so that no strategy is always
/// the first after the device was created. strategies * repeats slots (none for 0 strategies).
/// Throws InvalidArgument for repeats outside 1..kMaxBenchRepeats.
std::vector<BenchSlot> interleaved_schedule(uint32_t strategies, uint32_t repeats);

/// One round of compare_raw_floor(): the median CPU time per draw of each side's measured frames.
struct RawFloorRound {
  double bindery_ns_per_draw = 0;  ///< the dynamic-offsets strategy through bindery's render()
  double raw_ns_per_draw = 0;      ///< the raw webgpu.h loop
  /// bindery_ns_per_draw / raw_ns_per_draw (0 when the raw side measured nothing).
  double ratio() const { return raw_ns_per_draw > 0 ? bindery_ns_per_draw / raw_ns_per_draw : 0; }
};

/// The raw-floor comparison (`bindery bench --raw-floor`, issue 10 part 1): the frame of the
/// dynamic-offsets strategy drawn by bindery's render() and by a raw loop on webgpu.h, in the same
/// process, on the same device, alternating, round after round.
///
/// The raw loop uses the strategy's own GPU objects (pipeline, frame / material / object bind
/// groups, the per-object uniform buffer, meshes), prepared before it starts, and issues per
/// frame what the strategy issues: one writeBuffer of the frame uniforms, the per-object values
/// packed into a CPU copy at the device's stride and written with one writeBuffer per buffer
/// chunk, a command encoder, render passes of at most default_max_draws_per_pass() draws (the
/// first clears), and per draw setBindGroup(2) with the object's dynamic offset and drawIndexed,
/// with setPipeline, setBindGroup(0 and 1), setVertexBuffer and setIndexBuffer only where the
/// pipeline, material or mesh changes (the draws are in the same material order); then finish
/// and submit. No redundant-state tracker, no arena, no counters on the way (its calls are
/// counted by a local tally). Neither side times its GPU passes (RenderOptions::gpu_timing off).
/// With options.encode_threads N > 1 both sides split the draws into the ranges of
/// RenderOptions::encode_threads, each recorded and finished into its own command encoder by a
/// oneTBB task, and submit them in draw order in one submit: the raw side then shows what
/// wgpu-native itself gains from N recording threads.
///
/// CPU time of a frame = from the end of the per-object maths to the return of submit (what
/// FrameTiming::cpu_ms measures); per draw = that / draws per frame.
struct RawFloorResult {
  uint32_t objects = 0;               ///< cubes drawn per frame (one draw each)
  uint32_t frames = 0;                ///< measured frames per side and round (after one warm-up)
  std::vector<RawFloorRound> rounds;  ///< in the order taken
  double bindery_ns_per_draw = 0;     ///< median over the rounds
  double raw_ns_per_draw = 0;         ///< median over the rounds
  double ratio = 0;                   ///< median over the rounds of bindery / raw
  Counters bindery_per_frame;         ///< bindery's calls in its last frame (Device counters)
  Counters raw_per_frame;  ///< the raw loop's calls in its last frame (its own tally): draws,
                           ///< setPipeline, setBindGroup, setVertexBuffer, setIndexBuffer,
                           ///< writeBuffer calls and bytes
};

/// Runs `rounds` rounds (1..100) of the comparison at `objects` cubes with the scene, size,
/// frames and threads of `options` (its strategy is ignored: dynamic-offsets), both sides with
/// one frame in flight (whatever options.frames_in_flight says): each frame starts once the one
/// before is done on the GPU, so its CPU time holds no wait for, nor competition with, that work.
/// Round r runs bindery then raw when r is even, raw then bindery when odd. Throws
/// InvalidArgument for rounds or objects of 0, and what render() throws.
RawFloorResult compare_raw_floor(const Device& device, const MeasureOptions& options,
                                 uint32_t objects, uint32_t rounds = 5);

}  // namespace bindery
