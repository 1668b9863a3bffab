// SPDX-License-Identifier: MIT
/// @file
/// bindery/wgsl/wgsl_layout.hpp — WGSL memory layout reflection: struct offsets, sizes, alignments,
/// array strides and per-binding minBindingSize, read from the shader source itself.
///
/// Why: every per-draw mechanism writes bytes at offsets; those offsets must come from the shader
/// (vec3 is 12 bytes but 16-aligned, mat3x3<f32> is 48 bytes, array strides round up to the element
/// alignment), never from hand-counted constants (issue 3, the uniform-buffer note).
///
/// What is parsed: module-scope declarations only — `enable`, `requires`, `struct` (with `@align` /
/// `@size` member attributes), `alias`, `const` integer expressions used as array sizes, and
/// `var<uniform>` / `var<storage, read|read_write>` / texture / sampler variables with
/// `@group` / `@binding`, `var<private>` / `var<workgroup>`. Function bodies are skipped by brace
/// matching, except their `var` declarations, whose address space and store type are checked.
///
/// Address-space rules checked for every variable (WGSL "Address Spaces", "Atomic Types",
/// "Host-shareable types"): a runtime-sized array (or a struct ending in one) only in storage;
/// atomics only in storage with read_write access and in workgroup; bool and other
/// non-host-shareable types not in uniform or storage; textures and samplers only in the handle
/// address space (a module-scope var without one); only `function` inside a function.
///
/// Layout rules (WGSL spec §14.4 "Memory Layout"): AlignOf / SizeOf per type, member offset =
/// roundUp(AlignOfMember, end of previous member), struct size = roundUp(AlignOf(S), end of last
/// member), array element stride = roundUp(AlignOf(E), SizeOf(E)). WGSL has ONE layout for every
/// address space; the uniform address space only adds checks (stride a multiple of 16, struct and
/// array members at multiples of roundUp(16, AlignOf(T)), roundUp(16, SizeOf(S)) bytes after a
/// struct member, no runtime-sized arrays). Violations are reported as errors, never padded away.
/// ReflectOptions::uniform_buffer_standard_layout lifts the stride and struct checks.
/// Test cases: the layout cases (docs/REFERENCES.md) (L, F, B, U).
///
/// Reads no device limits. reflect_wgsl() never throws on bad shader content: it records errors
/// with line:column in Reflection::errors.
#pragma once

#include <bindery/core/error.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {

/// Component type of a scalar, vector, matrix or atomic (WGSL §6.2). bool is not host-shareable.
enum class ScalarKind : uint8_t { Bool, I32, U32, F32, F16 };

/// What a reflected type is.
enum class TypeKind : uint8_t { Scalar, Vector, Matrix, Atomic, Array, Struct };

struct StructLayout;

/// One reflected WGSL type with its layout (WGSL §14.4.1 alignment and size table).
/// Immutable; shared between the struct members and bindings that use it.
struct WgslType {
  /// Which of the fields below apply.
  TypeKind kind = TypeKind::Scalar;
  ScalarKind scalar = ScalarKind::F32;  ///< component type for Scalar / Vector / Matrix / Atomic
  uint32_t columns = 1;                 ///< matrices: C of matCxR
  uint32_t rows = 1;                    ///< vectors: N of vecN; matrices: R of matCxR
  uint32_t count = 0;                   ///< arrays: element count; 0 = runtime-sized array<T>
  std::shared_ptr<const WgslType> element;             ///< arrays: element type
  std::shared_ptr<const StructLayout> struct_layout;   ///< structs: the struct's layout
  uint32_t align = 0;   ///< AlignOf(T) in bytes
  /// SizeOf(T) in bytes. For a runtime-sized array (and a struct ending in one) the array counts
  /// as ONE element, which is also its contribution to minBindingSize (WGSL §14.4.2).
  uint32_t size = 0;
  /// Arrays: element stride = roundUp(AlignOf(E), SizeOf(E)). Matrices: column stride =
  /// AlignOf(vecR<T>) (8 for mat3x2<f32>, 16 for mat3x3<f32>). 0 otherwise.
  uint32_t stride = 0;
  std::string name;     ///< long form: "vec3<f32>", "mat4x4<f32>", "array<vec4<f32>, 4>", struct name
  bool host_shareable = true;  ///< false when the type is or contains bool

  /// True for a runtime-sized array<T> (kind Array, count 0): only the last member of a storage
  /// buffer's store type may be one.
  bool is_runtime_array() const noexcept { return kind == TypeKind::Array && count == 0; }
};

/// A small pre-resolved handle to one field of a struct (or an element / member inside it), for
/// hot loops: resolve once with StructLayout::field() or resolve(), then StructView::set(ref, v)
/// is a type tag compare plus memcpy. `type` points into the layout: valid while the Reflection
/// (or the shared StructLayout) that produced it lives.
struct FieldRef {
  uint32_t offset = 0;   ///< bytes from the start of the struct
  uint32_t size = 0;     ///< SizeOf(field type) in bytes (runtime array: one element)
  /// The field type's kind; StructView::set / get accept Scalar, Vector, Matrix and Atomic.
  TypeKind kind = TypeKind::Scalar;
  ScalarKind scalar = ScalarKind::F32;  ///< component type (Scalar / Vector / Matrix / Atomic)
  uint8_t columns = 1;                  ///< matrices: C
  uint8_t rows = 1;                     ///< vectors: N; matrices: R
  uint16_t column_stride = 0;           ///< matrices: bytes between columns
  /// The field's type inside the layout (borrowed); nullptr for a FieldRef never resolved, which
  /// StructView refuses with StructViewPath.
  const WgslType* type = nullptr;
  std::string path;  ///< the path it was resolved from, for error messages (not used when writing)

  /// Arrays: the element `index` (offset + index * stride). Throws StructViewPath when this is not
  /// an array or `index` >= count (runtime-sized arrays are bounded by the view's byte span).
  FieldRef element(uint32_t index) const;
  /// Structs: the member `name`. Throws StructViewPath when absent or this is not a struct.
  FieldRef member(std::string_view name) const;
};

/// One member of a reflected struct (WGSL §14.4.1 "structure member layout").
struct StructMember {
  /// The member's identifier as written.
  std::string name;
  /// The member's type T with its layout (never null in a reflected struct).
  std::shared_ptr<const WgslType> type;
  uint32_t offset = 0;  ///< OffsetOfMember in bytes
  uint32_t size = 0;    ///< SizeOfMember: `@size(n)` when given, else SizeOf(T)
  uint32_t align = 0;   ///< AlignOfMember: `@align(n)` when given, else AlignOf(T)
  uint32_t align_attribute = 0;   ///< n of `@align(n)` as written; 0 when absent
  uint32_t size_attribute = 0;    ///< n of `@size(n)` as written; 0 when absent
  /// Position of the member's name in the source (1-based, columns in Unicode code points).
  ///@{
  uint32_t line = 0, column = 0;
  ///@}
};

/// A reflected WGSL struct: its members with offsets, its alignment and size.
struct StructLayout {
  /// The struct's identifier as written.
  std::string name;
  uint32_t size = 0;   ///< SizeOf(S) = roundUp(align, end of last member) in bytes
  uint32_t align = 0;  ///< AlignOf(S) = max AlignOfMember in bytes
  /// The members in declaration order (at least one).
  std::vector<StructMember> members;
  /// Position of the struct's name in the source (1-based, columns in Unicode code points).
  ///@{
  uint32_t line = 0, column = 0;
  ///@}

  /// The member `name`, or nullptr.
  const StructMember* find_member(std::string_view name) const noexcept;
  /// A handle to the top-level member `name`. Throws StructViewPath when absent.
  FieldRef field(std::string_view name) const;
  /// A handle to a nested path: members separated by '.', array elements by [index],
  /// e.g. "lights[3].color", "m[2]" (a matrix column is not addressable: use the matrix).
  /// Throws StructViewPath naming the path and the failing part.
  FieldRef resolve(std::string_view path) const;
};

/// How a module-scope variable is bound (WebGPU GPUBufferBindingType spelling for buffers).
enum class BindingSpace : uint8_t {
  Uniform,          ///< var<uniform>                      → "uniform"
  Storage,          ///< var<storage, read_write>          → "storage"
  ReadOnlyStorage,  ///< var<storage> / var<storage, read> → "read-only-storage"
  Texture,          ///< texture_1d/2d/.../depth/multisampled → "texture"
  StorageTexture,   ///< texture_storage_*                 → "storage-texture"
  ExternalTexture,  ///< texture_external                  → "external-texture"
  Sampler,          ///< sampler                           → "sampler"
  ComparisonSampler ///< sampler_comparison                → "comparison-sampler"
};

/// "uniform", "storage", "read-only-storage", "texture", ... (see BindingSpace).
std::string_view to_string(BindingSpace space) noexcept;

/// One resource variable with `@group(g) @binding(b)`.
struct BindingInfo {
  /// g of `@group(g)`: the bind group index (below the device's maxBindGroups to be usable).
  uint32_t group = 0;
  /// b of `@binding(b)`: the binding number inside the group.
  uint32_t binding = 0;
  /// The variable's identifier.
  std::string name;
  /// The address space or resource type it is bound as.
  BindingSpace space = BindingSpace::Uniform;
  std::string type;  ///< store type in long form (struct name for structs); texture/sampler type text
  std::shared_ptr<const WgslType> store_type;  ///< buffers only; null for textures and samplers
  /// Buffers: SizeOf(store type), a runtime-sized array counted as one element (WGSL §14.4.2,
  /// layout.md rule 3). 0 for textures and samplers.
  uint64_t min_binding_size = 0;
  /// Uniform: roundUp(16, min_binding_size), which Dawn requires; other spaces: min_binding_size.
  uint64_t portable_min_binding_size = 0;
  /// Position of the variable's name in the source (1-based, columns in Unicode code points).
  ///@{
  uint32_t line = 0, column = 0;
  ///@}

  /// Storage buffers whose store type is or ends in a runtime-sized array: the element count
  /// arrayLength() gives for a binding of `binding_size` bytes =
  /// floor((binding_size - offset of the array) / stride). Throws InvalidArgument when there is
  /// no runtime-sized array, MinBindingSizeTooSmall when binding_size < min_binding_size and
  /// BindingSizeAlignment when binding_size is not a multiple of 4 (WebGPU createBindGroup).
  uint64_t runtime_array_length(uint64_t binding_size) const;
};

/// A module-scope `var<immediate>` (WGSL language extension immediate_address_space; wgpu-native's
/// Immediates feature): no `@group` / `@binding`, read-only, its bytes set per draw with
/// setImmediates. Its store type must be host-shareable and fixed-size (no runtime-sized array).
struct ImmediateInfo {
  std::string name;  ///< the variable's name
  std::string type;  ///< store type in long form (struct name for structs)
  std::shared_ptr<const WgslType> store_type;  ///< the resolved store type
  /// SizeOf(store type), bytes: what a pipeline layout's immediateSize must cover.
  uint64_t size = 0;
  uint32_t line = 0;    ///< 1-based line of the variable's name
  uint32_t column = 0;  ///< 1-based column (code points) of the variable's name
};

/// One problem found in the shader: position of the offending token (1-based line and column in
/// Unicode code points), the kind (WgslSyntax, WgslType or WgslLayout) and a message naming the
/// struct, member, rule, required and actual values.
struct ReflectionError {
  /// 1-based line of the offending token.
  uint32_t line = 0;
  /// 1-based column of the offending token, in Unicode code points.
  uint32_t column = 0;
  /// WgslSyntax (cannot be parsed), WgslType (an unknown, invalid or recursive type) or
  /// WgslLayout (an address-space layout rule broken).
  ErrorKind kind = ErrorKind::WgslSyntax;
  /// What is wrong, naming the struct, member, rule, required and actual values; no position.
  std::string message;
};

/// Switches for reflect_wgsl().
struct ReflectOptions {
  /// The WGSL language extension `uniform_buffer_standard_layout`: the uniform address space uses
  /// the storage checks (no stride-16 / struct-offset rules). Runtime-sized arrays stay forbidden
  /// in uniform. A `requires uniform_buffer_standard_layout;` directive in the source also sets it.
  bool uniform_buffer_standard_layout = false;
};

/// What reflect_wgsl() found: all structs that could be laid out (declaration order), all
/// resource bindings (declaration order), and every error (sorted by line, column).
struct Reflection {
  /// Every struct that could be laid out, in declaration order (shared: FieldRef and WgslType
  /// point into them).
  std::vector<std::shared_ptr<const StructLayout>> structs;
  /// Every resource variable with `@group` / `@binding`, in declaration order.
  std::vector<BindingInfo> bindings;
  std::vector<ImmediateInfo> immediates;  ///< every `var<immediate>`, declaration order
  /// Every problem found, sorted by line then column; empty when the source reflected cleanly.
  std::vector<ReflectionError> errors;
  bool f16_enabled = false;  ///< `enable f16;` present

  /// True when errors is empty.
  bool ok() const noexcept { return errors.empty(); }
  /// True when some error has kind WgslSyntax (the source could not be parsed).
  bool has_syntax_error() const noexcept;
  /// Throws a bindery::Error with the first error's kind and all messages ("L:C: ...") when
  /// errors is not empty.
  void throw_if_errors() const;

  /// The struct `name`, or nullptr.
  const StructLayout* find_struct(std::string_view name) const noexcept;
  /// The struct `name`. Throws StructViewPath when the shader declares no such struct (or it could
  /// not be laid out).
  const StructLayout& struct_layout(std::string_view name) const;
  /// The binding at `@group(group) @binding(binding)`, or nullptr.
  const BindingInfo* find_binding(uint32_t group, uint32_t binding) const noexcept;
  /// The binding whose variable is called `name`, or nullptr.
  const BindingInfo* find_binding(std::string_view name) const noexcept;
  /// The `var<immediate>` called `name`, or nullptr.
  const ImmediateInfo* find_immediate(std::string_view name) const noexcept;
};

/// The deepest nesting bindery's WGSL reader accepts: open brackets '(' '[' '{', open template
/// lists (`array<vec4<...`) and prefix operators in a row (`- - !x`) count together, anywhere in
/// the module, function bodies included. Deeper source is a WgslSyntax error at the token that
/// goes past it, found before anything else reads the module: `bindery layout --verify`
/// (verify_module) hands such a module to no shader compiler, whose recursive parsers a few
/// thousand levels exhaust. WGSL sets no limit; 256 is far beyond hand-written or generated
/// shaders (bindery's own nest at most 8).
inline constexpr uint32_t kMaxWgslNestingDepth = 256;

/// The nesting error (kMaxWgslNestingDepth) of `source`, or nullopt when it nests within the
/// limit or fails to lex for another reason. Bounded work, never throws.
std::optional<ReflectionError> wgsl_nesting_error(std::string_view source);

/// Reflects the memory layout of `source` (WGSL text). Never throws for bad shader content:
/// syntax, type and layout errors go into Reflection::errors with line:column. Bounded work and
/// stack depth for arbitrary bytes (fuzzed by fuzz/wgsl_fuzz.cpp).
Reflection reflect_wgsl(std::string_view source, const ReflectOptions& options = {});

/// The address-space layout errors (WGSL §14.4.4) of a buffer variable in `space` whose store type
/// is the struct `store_type`: host-shareability (bool), atomics outside read_write storage,
/// runtime-sized arrays in uniform, and the uniform rules of layout.md rule 1 unless
/// options.uniform_buffer_standard_layout is set. Positions are those of the struct members.
/// Empty when such a variable is valid. Never throws.
std::vector<ReflectionError> address_space_errors(const StructLayout& store_type, BindingSpace space,
                                                 const ReflectOptions& options = {});

/// The `bindery layout --json` document for `reflection` (issue 3's fixed shape: structs with
/// name/size/align/members{name,type,offset,size,align[,stride]}, bindings with
/// group/binding/name/space/type/minBindingSize/portableMinBindingSize, errors with
/// line/column/message), pretty-printed with `indent` spaces (-1: one line).
std::string layout_json(const Reflection& reflection, int indent = 2);

/// A readable table: per struct its size and align; per member offset, size, align, stride and
/// the padding before it; then the bindings and the errors as "line:column: message".
std::string layout_table(const Reflection& reflection);

}  // namespace bindery
