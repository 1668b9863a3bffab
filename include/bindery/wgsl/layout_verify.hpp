// SPDX-License-Identifier: MIT
/// @file
/// bindery/wgsl/layout_verify.hpp — bindery's WGSL layout reflection checked against the WebGPU
/// implementation itself (issue 11).
///
/// Two checks, both on the current device (lavapipe on CPU-only machines):
///   1. Compile verdicts: bindery's verdict on a module or on a struct bound in an address space
///      (reflect_wgsl / address_space_errors) against wgpuDeviceCreateShaderModule inside a
///      validation error scope.
///   2. GPU round trips: for each host-shareable struct S, a generated compute shader binds S (as
///      uniform where bindery says that is valid, and as read_write storage) and copies every
///      scalar leaf (vector component, matrix element, array element, nested member; f32, i32,
///      u32, f16, atomics through atomicLoad) into an array<u32> in a fixed order. The host fills
///      the input through StructView at bindery's offsets with distinct bit patterns; then the
///      shader writes other distinct patterns into every leaf of the storage copy and the host
///      reads them back through StructView. A runtime-sized array gets `runtime_array_elements`
///      elements and its arrayLength() is compared with bindery's offset and stride. A nested
///      struct that has a round trip of its own in the same run is checked inside the others by
///      its shallowest leaf (see verify_structs()).
/// The structs are declared in the generated module by the source's own text (directives,
/// aliases, consts and structs copied verbatim; functions and variables left out), so the
/// implementation lays out exactly what the user wrote. Many structs share one module and one
/// pipeline: each behind its own binding, as many per module as maxStorageBuffersPerShaderStage and
/// maxUniformBuffersPerShaderStage of the DEVICE allow.
///
/// Leaf values: f32 bits 0x40000000 + k (host) / 0x41000000 + k (GPU); i32, u32 and atomics
/// 0x10000000 + k / 0x20000000 + k; f16 bits 0x2000 + k % 8192 / 0x4000 + k % 8192, where k is the
/// leaf's index: all normal finite numbers, distinct per leaf, so a mismatch also says whose value
/// was seen. Reads the device limits named above plus minUniform/StorageBufferOffsetAlignment and
/// maxUniform/StorageBufferBindingSize.
#pragma once

#include <bindery/core/device.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {

/// The implementation's verdict on one WGSL module.
struct CompileVerdict {
  /// The module compiled: wgpuDeviceCreateShaderModule raised no validation error.
  bool valid = false;
  std::string message;  ///< the implementation's error on one line; empty when valid
  /// The implementation's error as it wrote it (several lines); empty when valid.
  std::string diagnostic;
};

/// Creates a shader module from `wgsl` inside a validation error scope and returns whether the
/// implementation accepted it. Leaves no uncaptured error behind. Throws DeviceLost when the
/// error scope never reports back.
CompileVerdict compile_verdict(const Device& device, std::string_view wgsl);

/// Whether the implementation accepts `requires uniform_buffer_standard_layout;` (WGSL §4.1.3
/// language extensions). Probed by compiling a module that needs it: wgpu-native's
/// wgpuInstanceHasWGSLLanguageFeature is unimplemented and aborts the process.
bool implementation_has_uniform_buffer_standard_layout(const Device& device);

/// One scalar leaf whose bits differ between what bindery wrote (or expected) and what the GPU
/// saw (or wrote).
struct LeafMismatch {
  std::string direction;  ///< "uniform->gpu", "storage->gpu", "gpu->storage" or "arrayLength"
  std::string path;       ///< the leaf, e.g. "lights[2].color[1]", "m[1][2]"
  uint32_t offset = 0;    ///< bindery's byte offset of the leaf in the struct
  uint32_t expected = 0;  ///< bits bindery wrote (or expects to read)
  uint32_t seen = 0;      ///< bits the GPU saw (or bindery read back); f16 in the low 16 bits
  std::string seen_is;    ///< whose value `seen` is, when it is another leaf's pattern
};

/// The verification of one struct.
struct StructVerification {
  /// The struct's WGSL name (StructLayout::name).
  std::string name;
  uint32_t size = 0;    ///< bindery's SizeOf(S)
  /// Scalar leaves one round trip checks per direction: every leaf of one instance (runtime
  /// arrays with their elements), except that a nested struct with its own round trip in the same
  /// run counts its shallowest leaf only (verify_structs()).
  uint32_t leaves = 0;
  /// False when a member is, or contains, bool (not a host-shareable type in WGSL): such a struct
  /// cannot be bound in uniform or storage, and no round trip runs.
  bool host_shareable = true;
  /// Verdicts: S as the store type of var<uniform> and of var<storage, read_write>. bindery_* is
  /// bindery's verdict by the WGSL spec (address_space_errors() empty); expected_* the verdict
  /// bindery predicts for this implementation (the same unless `deviation` is set); gpu_* the
  /// implementation's (compile_verdict() of a module binding S; a copy of expected_* when
  /// VerifyOptions::check_verdicts is false or the declarations did not compile).
  ///@{
  bool bindery_uniform_valid = false;
  bool expected_uniform_valid = false;
  bool gpu_uniform_valid = false;
  bool bindery_storage_valid = false;
  bool expected_storage_valid = false;
  bool gpu_storage_valid = false;
  ///@}
  bool verdicts_checked = false;  ///< false when the declarations could not be compiled at all
  /// The implementation's error for S in uniform / in storage (CompileVerdict::message); empty
  /// when it accepted S or the verdict was not checked.
  ///@{
  std::string gpu_uniform_message, gpu_storage_message;
  ///@}
  // Round trips that ran.
  bool uniform_round_trip = false;  ///< uniform -> GPU
  bool storage_round_trip = false;  ///< storage -> GPU and GPU -> storage
  uint64_t checks = 0;              ///< leaf comparisons made
  uint64_t mismatch_count = 0;      ///< all mismatches (the list keeps the first few)
  /// The first VerifyOptions::max_listed_mismatches mismatches, in the order found.
  std::vector<LeafMismatch> mismatches;
  /// A known implementation deviation from the WGSL layout rules that changes this struct's layout
  /// (docs/LAYOUT.md), naming the first member it moves; empty when none. The round trip and the
  /// verdicts are then checked against the implementation's layout as bindery predicts it.
  std::string deviation;
  std::string error;    ///< an implementation error that stopped a round trip; empty when none
  std::string skipped;  ///< why a verdict or round trip was not run; empty when all ran

  /// bindery's prediction and the implementation agree on both verdicts (true when unchecked).
  bool verdicts_agree() const noexcept {
    return !verdicts_checked || (expected_uniform_valid == gpu_uniform_valid &&
                                 expected_storage_valid == gpu_storage_valid);
  }
  /// Verdicts agree, no mismatch and no implementation error.
  bool ok() const noexcept { return verdicts_agree() && mismatch_count == 0 && error.empty(); }
};

/// Switches for verify_structs() and verify_module().
struct VerifyOptions {
  uint32_t runtime_array_elements = 3;  ///< elements given to a trailing runtime-sized array
  /// Most structs per generated module; 0 = as many as the device's per-stage limits allow.
  uint32_t max_structs_per_module = 0;
  uint32_t max_listed_mismatches = 8;  ///< mismatches listed per struct (all are counted)
  bool check_verdicts = true;          ///< compile S as uniform and as storage, one module each
  bool uniform_round_trip = true;      ///< also bind S as uniform where valid (storage always)
  /// Options of bindery's own verdicts (address_space_errors()) and, in verify_module(), of
  /// reflect_wgsl(): e.g. uniform_buffer_standard_layout.
  ReflectOptions reflect;
};

/// Most structs one verify_structs() call checks (`layout --verify`'s cap): the structs bindery
/// predicts valid in an address space share one verdict module, but each of the others compiles
/// the module's declarations once, so the verdicts can grow with structs x declarations; beyond
/// the cap the call throws InvalidArgument in one line.
inline constexpr size_t kMaxVerifyStructs = 1024;

/// Most straight-line shader statements one struct's round trip may need (a statement per scalar,
/// vector component or matrix element read or written; arrays of more than 256 leaves loop, and a
/// struct nested in another is checked there by one leaf): lavapipe's compile time grows faster
/// than linearly in one function's straight-line code (a struct of 2,000 f32 members took 38 s).
/// Beyond it verify_structs() throws InvalidArgument in one line naming the struct.
inline constexpr uint64_t kMaxVerifyStatements = 4096;

/// What a verification did, for tests that bound its work without a clock: shader modules
/// compiled (verdicts and round trips), straight-line statements generated for round trips and
/// bytes of WGSL handed to the implementation.
struct VerifyWork {
  uint64_t compiles = 0;    ///< shader modules compiled
  uint64_t statements = 0;  ///< straight-line statements generated for round trips
  uint64_t wgsl_bytes = 0;  ///< bytes of WGSL handed to the implementation
};

/// Verifies `structs`, which belong to `reflection` = reflect_wgsl(source). Each struct gets its
/// verdicts and round trips (see the header comment); a struct that is not host-shareable, or uses
/// f16 on a device without "shader-f16", is skipped with the reason in `skipped`. Implementation
/// errors are recorded per struct, never thrown; throws DeviceLost, and InvalidArgument beyond
/// kMaxVerifyStructs or kMaxVerifyStatements. The work is linear in the source's members for the
/// round trips (a struct nested in another one that has its own round trip is checked there by
/// its shallowest leaf: a struct type's layout does not depend on where it is used, WGSL §14.4)
/// and, for the verdicts, one module per address space for the structs predicted valid plus one
/// per other struct. `work`, when given, accumulates what was done.
std::vector<StructVerification> verify_structs(const Device& device, std::string_view source,
                                               const Reflection& reflection,
                                               std::span<const StructLayout* const> structs,
                                               const VerifyOptions& options = {},
                                               VerifyWork* work = nullptr);

/// The verification of one WGSL module (`bindery layout FILE --verify`).
struct ModuleVerification {
  bool bindery_valid = false;   ///< reflect_wgsl found no error (see `deviation`)
  std::string bindery_message;  ///< first error as "line:column: [Kind] message"; empty when valid
  bool gpu_valid = false;       ///< the implementation compiled the whole module
  /// The implementation's error on one line (CompileVerdict::message); empty when gpu_valid.
  std::string gpu_message;
  /// The implementation's error as it wrote it (several lines; CompileVerdict::diagnostic).
  std::string gpu_diagnostic;
  /// False when the module was handed to no shader compiler: it nests deeper than
  /// kMaxWgslNestingDepth (bindery_message says where). ok() is then false.
  bool gpu_checked = true;
  /// A known implementation deviation that changes a bound struct's layout; bindery_valid is then
  /// bindery's prediction for this implementation. Empty when none applies.
  std::string deviation;
  std::vector<StructVerification> structs;  ///< every struct bindery reflected
  VerifyWork work;                          ///< what the verification did (see VerifyWork)

  /// bindery's module verdict equals the implementation's (bindery_valid == gpu_valid).
  bool verdict_agrees() const noexcept { return bindery_valid == gpu_valid; }
  /// The module verdicts agree and every struct is ok().
  bool ok() const noexcept;
};

/// Reflects `source`, compares bindery's verdict on the whole module with the implementation's,
/// then verify_structs() on every reflected struct. A module nested deeper than
/// kMaxWgslNestingDepth is handed to no shader compiler (gpu_checked false).
ModuleVerification verify_module(const Device& device, std::string_view source,
                                 const VerifyOptions& options = {});

/// One line for `s`: name, size, leaves, verdicts, round trips, checks and mismatches.
std::string describe(const StructVerification& s);

/// The WGSL text of the module-scope directives, aliases, consts and structs of `source`
/// (verbatim, in source order), as verify_structs() declares them. Empty when `source` does not
/// parse.
std::string layout_declarations(std::string_view source);

}  // namespace bindery
