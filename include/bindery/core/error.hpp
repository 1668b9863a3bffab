// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/error.hpp — the catalogue of error kinds every bindery part throws.
///
/// One exception type, bindery::Error, carries an ErrorKind and a message that names the call,
/// the field, the value and the rule or limit it broke, e.g. "setBindGroup(2): dynamic offset
/// 320 is not a multiple of minUniformBufferOffsetAlignment (256)".
/// Tests assert the kind, never the text. Context is added on the way up with with_context().
/// Pattern: sokol's _SG_LOGITEM_XMACRO, Dawn's DAWN_INVALID_IF / DAWN_TRY_CONTEXT.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {

/// The catalogue as an X-macro: X(name, one-line meaning) per kind. Add new kinds at the end of a
/// section; names are stable.
#define BINDERY_ERROR_KINDS(X)                                                                   \
  /* general input */                                                                            \
  X(InvalidArgument, "an argument is outside its documented range")                            \
  X(Io, "a file could not be read or written")                                                  \
  X(NotPowerOfTwo, "an alignment is not a power of two")                                        \
  /* device and implementation */                                                               \
  X(AdapterUnavailable, "no WebGPU adapter could be obtained")                                  \
  X(DeviceCreation, "requestDevice failed or a required limit/feature is not offered")          \
  X(WebGPUValidation, "the WebGPU implementation reported a validation error")                  \
  X(OutOfMemory, "the WebGPU implementation reported out-of-memory")                            \
  X(DeviceLost, "the device was lost")                                                          \
  X(ImplementationLimit, "a limit of this WebGPU implementation or driver that WebGPU does not expose") \
  X(StrategyUnavailable, "the strategy needs a feature or limit this device does not offer")     \
  /* limits and binding rules (WebGPU spec) */                                                  \
  X(DynamicOffsetAlignment, "dynamic offset not a multiple of min*BufferOffsetAlignment")       \
  X(DynamicOffsetOutOfBounds, "binding window moved by a dynamic offset leaves the buffer")     \
  X(DynamicOffsetCount, "dynamic offset count differs from the layout's dynamic bindings")      \
  X(BindingOffsetAlignment, "binding offset not a multiple of min*BufferOffsetAlignment")       \
  X(BindingOutOfBounds, "binding offset + size exceeds the buffer size")                        \
  X(BindingSizeAlignment, "storage binding size not a multiple of 4")                           \
  X(MinBindingSizeTooSmall, "buffer binding smaller than the shader's minimum binding size")    \
  X(TooManyDynamicUniformBuffers, "maxDynamicUniformBuffersPerPipelineLayout exceeded")          \
  X(TooManyDynamicStorageBuffers, "maxDynamicStorageBuffersPerPipelineLayout exceeded")          \
  X(TooManyUniformBuffersPerStage, "maxUniformBuffersPerShaderStage exceeded")                   \
  X(TooManyStorageBuffersPerStage, "maxStorageBuffersPerShaderStage exceeded")                   \
  X(TooManySampledTexturesPerStage, "maxSampledTexturesPerShaderStage exceeded")                 \
  X(TooManySamplersPerStage, "maxSamplersPerShaderStage exceeded")                               \
  X(TooManyBindGroups, "maxBindGroups exceeded (group index too high)")                          \
  X(BindingNumberTooLarge, "binding number >= maxBindingsPerBindGroup")                          \
  X(UniformBindingTooLarge, "uniform binding larger than maxUniformBufferBindingSize")          \
  X(StorageBindingTooLarge, "storage binding larger than maxStorageBufferBindingSize")          \
  X(BufferTooLarge, "buffer larger than maxBufferSize")                                         \
  X(StorageVisibleToVertex, "read-write storage buffer visible to the vertex stage")            \
  X(WriteBufferAlignment, "writeBuffer offset or size not a multiple of 4")                     \
  X(WriteBufferOutOfBounds, "writeBuffer offset + size exceeds the buffer size")                \
  X(TextureSizeOutOfRange, "texture size zero or beyond maxTextureDimension2D")                 \
  X(TooManyDynamicOffsets, "more dynamic offsets in one setBindGroup than a pipeline layout allows") \
  X(ImmediateSizeTooLarge, "immediate data larger than maxImmediateSize")                       \
  /* WGSL reflection and layout (WGSL spec §14.4 memory layout) */                              \
  X(WgslSyntax, "WGSL source could not be parsed")                                              \
  X(WgslType, "a WGSL type is unknown or not host-shareable")                                   \
  X(WgslLayout, "a struct breaks an address-space layout rule")                                 \
  X(StructMismatch, "a C++ struct's layout differs from the reflected WGSL layout")             \
  X(StructViewPath, "StructView: no such field or index out of range")                          \
  X(StructViewType, "StructView: value type differs from the field's WGSL type")               \
  /* bind group planning and draw encoding */                                                   \
  X(PlanInput, "a scene description for the planner is malformed")                              \
  X(Intruder, "a binding changes more often than its group's declared frequency")               \
  /* scenes and models */                                                                       \
  X(ModelLoad, "a glTF model could not be loaded")                                              \
  X(SceneInput, "a scene option is out of range")                                               \
  X(UnsupportedExtension, "a glTF file requires an extension bindery does not implement")    \
  /* long runs */                                                                               \
  X(SoakDrift, "memory, live objects or per-frame work grew or shrank during a soak")         \
  /* windows (bindery view) */                                                                  \
  X(NoDisplay, "no window system to open a window on (DISPLAY unset, or it refused the connection)") \
  X(PresentModeUnsupported, "the window's surface does not offer the requested present mode")  \
  /* adopting the parts (issue 26) */                                                            \
  X(MeshBounds, "a mesh's given bounds do not contain its vertices (or are not a box)")       \
  X(FrameProtocol, "a part's per-frame calls are out of order (e.g. flush without after_submit)") \
  X(FeatureNotRequested, "the device was created without a feature the adapter offers")       \
  /* the last resort */                                                                         \
  X(Internal, "an unexpected fault inside bindery or a library it uses (a bug: please report)")

/// Every error kind bindery reports. See BINDERY_ERROR_KINDS for the meaning of each.
enum class ErrorKind {
#define BINDERY_X(name, meaning) name,
  BINDERY_ERROR_KINDS(BINDERY_X)
#undef BINDERY_X
};

/// The kind's identifier, e.g. "DynamicOffsetAlignment".
std::string_view to_string(ErrorKind kind) noexcept;

/// The one exception type bindery throws. what() is the full message with context;
/// kind() is what tests and callers branch on.
class Error : public std::runtime_error {
 public:
  /// An error of `kind`; `message` names the call, the field, the value and the rule or limit.
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  /// What went wrong, as a catalogue entry.
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

/// `text` made safe to quote inside a one-line error message: every control byte (0x00-0x1f,
/// 0x7f), the C1 controls (U+0080-U+009F, whose 8-bit form 0x9b is a terminal's CSI), every byte
/// that is not part of well-formed UTF-8 (RFC 3629) and the backslash are escaped, as C writes
/// them (`\n`, `\t`, `\r`, `\\`, else `\xHH` per byte), so no input can break the line, move
/// the cursor or print an escape sequence. Well-formed UTF-8 is kept, but for the invisible
/// format characters that reorder or hide text (bidirectional overrides, embeddings, isolates and
/// marks, zero-width characters, the soft hyphen, U+FEFF), written `\u{202E}`. Every value an input
/// file supplies (a name, a URI, a path) goes through this before it is quoted into an Error.
/// Text longer than kMaxQuotedBytes is quoted up to there (never splitting a UTF-8 sequence) and
/// followed by "... (N bytes in all)", so that a 100 KB argument makes no 100 KB error line.
std::string escape_for_message(std::string_view text);

/// The most bytes of one value escape_for_message() quotes: more than any name or path a person
/// types, far fewer than an argument that would flood the terminal.
inline constexpr size_t kMaxQuotedBytes = 1024;

/// escape_for_message() but for the backslash, which it keeps: for a message whose quoted parts
/// are already escaped, so that nothing else in it can reach a terminal raw.
std::string escape_controls(std::string_view text);

/// " (did you mean 'X'?)" for the candidate X nearest to `typed` (Levenshtein distance: one edit
/// per inserted, removed or replaced byte), when it is at most max(2, typed.size() / 3) edits
/// away; empty text otherwise (and for no candidates). X is quoted through escape_for_message().
/// For a message that names a misspelt name: a strategy, an option's value, a subcommand.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

/// Rethrows `e` with "while <context>: " in front of its message, keeping the kind; a message
/// that already begins "while B: " becomes "while <context> (in B): ".
[[noreturn]] void rethrow_with_context(const Error& e, std::string_view context);

/// Runs f(); a bindery::Error escaping it is rethrown with `context` prepended.
template <class F>
decltype(auto) with_context(std::string_view context, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    rethrow_with_context(e, context);
  }
}

}  // namespace bindery
