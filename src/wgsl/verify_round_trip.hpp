// SPDX-License-Identifier: MIT
// src/wgsl/verify_round_trip.hpp — private to src/wgsl/ (the layout verifier, layout_verify.hpp):
// the GPU round trips. plan_round_trip() says whether a struct gets one (storage, and uniform
// where it may) and with which binding sizes; run_round_trips() groups them into batches within
// the device's per-stage limits; a Verifier runs a batch as one compute module (built by
// ShaderWriter, verify_shader.hpp), fills the host data and compares what the GPU read and wrote
// with bindery's layout, leaf by leaf. The Verifier also compiles the verdict modules.
#pragma once

#include "wgsl/verify_leaves.hpp"

#include <bindery/core/device.hpp>
#include <bindery/wgsl/layout_verify.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bindery::wgsl::verify {

/// One struct's round trip: the layout checked, where its result goes, whether a uniform copy
/// runs too, its leaves and binding sizes.
struct Item {
  const StructLayout* s = nullptr;
  StructVerification* result = nullptr;
  bool uniform = false;
  uint64_t leaves = 0;
  uint64_t storage_size = 0;  ///< binding size in the storage copy
  uint64_t uniform_size = 0;
};

/// The layout verification of one module: its declarations, the name prefix of the generated
/// code, the verdict compiles and the round trip batches, and the work they cost.
class Verifier {
 public:
  Verifier(const Device& d, std::string_view source, const VerifyOptions& o);

  /// The source's declarations (layout_declarations()); empty when it does not parse.
  const std::string& declarations() const { return decls_; }

  /// The structs with a round trip of their own in this run (see Leaves).
  void set_shallow(Shallow names) { shallow_ = std::move(names); }
  /// How this run counts and visits leaves.
  Leaves leaves() const { return Leaves(o_.runtime_array_elements, &shallow_); }

  /// The implementation's verdict on a module binding `s` in address space `space`.
  CompileVerdict verdict_in(const StructLayout& s, std::string_view space);

  /// Whether the implementation accepts one module declaring a variable in `space` of every
  /// struct in `list` (one binding each).
  bool all_valid_in(const std::vector<const StructLayout*>& list, std::string_view space);

  /// Straight-line statements the round trip of `it` generates (see kMaxVerifyStatements).
  uint64_t statements(const Item& it) const;

  /// What this verifier has done so far.
  VerifyWork& work() { return work_; }

  /// Runs the round trips of `batch` in one module, results into each item's StructVerification;
  /// a batch the implementation refuses is run again one struct per module, to name the one.
  void run_batch(std::vector<Item>& batch);

 private:
  // Where one struct of a batch lives: its bindings, its byte offsets in the storage and uniform
  // buffers, and the output words its leaves (and arrayLength) are written to.
  struct Placement {
    uint32_t storage_binding, uniform_binding;
    uint64_t storage_offset, uniform_offset;
    uint64_t storage_words, uniform_words, length_word;
  };

  // The verification module of a batch and where each struct sits in its buffers.
  struct BatchModule {
    std::string wgsl;
    std::vector<Placement> place;
    uint64_t storage_bytes = 0, uniform_bytes = 0, word_count = 0;
  };

  // What the GPU returned for a batch: the output words and the storage buffer's bytes.
  struct BatchReadback {
    std::vector<std::byte> words, storage;
  };

  std::string try_batch(std::vector<Item>& batch);
  BatchModule build_module(std::vector<Item>& batch);
  static void dump_module(const std::string& wgsl, const std::string& name);
  static std::vector<WGPUBindGroupEntry> build_entries(const std::vector<Item>& batch,
                                                       const BatchModule& m, WGPUBuffer words,
                                                       uint64_t words_bytes, WGPUBuffer storage,
                                                       WGPUBuffer uniform);
  std::string run_module(const std::vector<Item>& batch, const BatchModule& m,
                         const std::vector<std::byte>& storage,
                         const std::vector<std::byte>& uniform, BatchReadback& back);
  void check_batch(std::vector<Item>& batch, const BatchModule& m, BatchReadback& back);
  void fill(const StructLayout& s, std::span<std::byte> bytes);
  void add(StructVerification& r, LeafMismatch m);
  std::string whose(const StructLayout& s, ScalarKind scalar, uint32_t seen);
  template <class Word>
  void compare_words(const StructLayout& s, StructVerification& r, const char* direction,
                     Word&& word);
  void compare_view(const StructLayout& s, StructVerification& r, const StructView& v);

  const Device& d_;
  const VerifyOptions& o_;
  std::string prefix_;
  std::string decls_;
  std::string last_module_;
  Shallow shallow_;
  VerifyWork work_;
};

// The round trip of `used` (storage, and uniform where it may and can run), or nullopt with
// r.skipped saying why none runs. r.skipped also names a uniform round trip left out.
std::optional<Item> plan_round_trip(const StructLayout& used, const VerifyOptions& options,
                                    const Limits& lim, StructVerification& r);

// Runs the round trips in batches within the per-stage limits (one storage binding is the words
// array) and options.max_structs_per_module.
void run_round_trips(Verifier& v, const std::vector<Item>& todo, const VerifyOptions& options,
                     const Limits& lim);

}  // namespace bindery::wgsl::verify
