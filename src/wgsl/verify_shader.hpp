// SPDX-License-Identifier: MIT
// src/wgsl/verify_shader.hpp — private to src/wgsl/ (the layout verifier, layout_verify.hpp): the
// generation of the round trip's compute shader. One walk over a struct's type (ShaderWriter::
// copy) emits, leaf by leaf in leaf order, either the statements that copy each leaf into the
// output words (read) or those that write the shader's pattern into each leaf (write); arrays
// with few leaves are written out element by element, larger ones loop.
#pragma once

#include "wgsl/verify_leaves.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace bindery::wgsl::verify {

/// A word index in the shader: a run-time part (loop variables) plus a constant.
struct Index {
  std::string dyn;
  uint64_t k = 0;
  std::string str() const;
  Index plus(uint64_t n) const { return {dyn, k + n}; }
};

/// What a generated statement does with a leaf: copy it into the output words (Read), or write
/// the shader's pattern of its leaf index into it (Write).
enum class Copy { Read, Write };

/// Generated WGSL statements (`out`) over a module whose output array<u32> is named `words`;
/// loop variables and locals start with `prefix`.
struct ShaderWriter {
  std::string words;  ///< name of the array<u32> output
  std::string prefix;
  Leaves rt{3};
  std::string out;
  ShallowestLeaf sl{};

  /// Read: copies every leaf of `expr` (type t) into words[at + leaf]. Write: writes the shader's
  /// pattern of leaf `at + leaf` into every leaf of `expr`. `depth` numbers the loop variables,
  /// `ind` indents the statements.
  void copy(Copy dir, const WgslType& t, const std::string& expr, const Index& at, int depth,
            const std::string& ind);
  /// copy() of each member of struct `s`, bound as `var`, its first leaf at `at`.
  void copy_struct(Copy dir, const StructLayout& s, const std::string& var, uint64_t at);

  /// Every leaf of `s` (bound as `var`) into words[at + leaf].
  void read_struct(const StructLayout& s, const std::string& var, uint64_t at) {
    copy_struct(Copy::Read, s, var, at);
  }
  /// The shader's pattern of each leaf into every leaf of `s` (bound as `var`).
  void write_struct(const StructLayout& s, const std::string& var) {
    copy_struct(Copy::Write, s, var, 0);
  }

 private:
  void read_leaf(const WgslType& t, const std::string& expr, const Index& at,
                 const std::string& ind);
  void write_leaf(const WgslType& t, const std::string& expr, const Index& at,
                  const std::string& ind);
  std::pair<std::string, const WgslType*> shallow_leaf(const WgslType& t, std::string expr);
  std::string loop_var(int depth) const;
};

/// A prefix for generated names that `source` does not contain.
std::string fresh_prefix(std::string_view source);

}  // namespace bindery::wgsl::verify
