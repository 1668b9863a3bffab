// SPDX-License-Identifier: MIT
// src/wgsl/verify_leaves.hpp — private to src/wgsl/ (the layout verifier, layout_verify.hpp): the
// scalar leaves of a reflected struct, how they are counted and visited in leaf order (Leaves,
// ShallowestLeaf, leaf_count, for_each_field), the bit pattern each leaf gets from the host and
// from the shader (pattern, decode), and StructView writes and reads of one field's components
// (write_field, read_field, component).
#pragma once

#include <bindery/wgsl/struct_view.hpp>
#include <bindery/wgsl/wgsl_layout.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bindery::wgsl::verify {

inline uint64_t round_up(uint64_t align, uint64_t n) {
  return (n + align - 1) / align * align;
}

/// Scalar components of field `f`: 1, a vector's rows or a matrix's columns * rows.
inline uint32_t components(const FieldRef& f) {
  return f.kind == TypeKind::Matrix   ? uint32_t(f.columns) * f.rows
         : f.kind == TypeKind::Vector ? f.rows
                                      : 1u;
}

/// Names of the structs that have a round trip of their own in this run: where one of them is
/// nested in another struct, the other's round trip checks it by one leaf only (see Leaves).
using Shallow = std::set<std::string, std::less<>>;

/// How leaves are counted and visited: runtime-sized arrays with `rt` elements; a nested struct
/// named in `shallow` by its shallowest leaf alone (WGSL §14.4: a struct type's layout is the
/// same wherever it is used, so its own round trip checks its inside and one leaf checks where
/// it sits). That keeps the work linear in the source's members: without it a chain of N structs
/// each nesting the previous one has N²/2 leaves (issue 25, H4-02).
struct Leaves {
  uint32_t rt = 3;
  const Shallow* shallow = nullptr;
  Leaves(uint32_t runtime_elements, const Shallow* s = nullptr)
      : rt(runtime_elements), shallow(s) {}
  bool is_shallow(const WgslType& t) const {
    return shallow && t.kind == TypeKind::Struct && shallow->count(t.struct_layout->name) > 0;
  }
};

/// One step from a value to a part of it: a member (by name) or element 0 of an array.
struct Step {
  const std::string* member = nullptr;  ///< nullptr: element 0
  const WgslType* type = nullptr;       ///< the part's type
};

/// The path to the shallowest scalar, vector, matrix or atomic inside struct `s` (fewest steps;
/// the first such in member order), memoised per struct so that shared nested structs are
/// walked once.
class ShallowestLeaf {
 public:
  const std::vector<Step>& of(const StructLayout& s) {
    if (auto it = memo_.find(&s); it != memo_.end()) return it->second;
    std::vector<Step> best;
    bool found = false;
    for (const auto& m : s.members) {
      std::vector<Step> path{{&m.name, m.type.get()}};
      extend(*m.type, path);
      if (!found || path.size() < best.size()) best = std::move(path), found = true;
      if (best.size() == 1) break;
    }
    return memo_[&s] = std::move(best);
  }

 private:
  void extend(const WgslType& t, std::vector<Step>& path) {
    const WgslType* cur = &t;
    while (cur->kind == TypeKind::Array || cur->kind == TypeKind::Struct) {
      if (cur->kind == TypeKind::Array) {
        path.push_back({nullptr, cur->element.get()});
        cur = cur->element.get();
        continue;
      }
      const std::vector<Step>& inner = of(*cur->struct_layout);
      path.insert(path.end(), inner.begin(), inner.end());
      return;
    }
  }
  std::map<const StructLayout*, std::vector<Step>> memo_;
};

/// Scalar leaves of one value of `t` under `rules` (a shallow nested struct: one leaf's worth).
uint64_t leaf_count(const WgslType& t, const Leaves& rules, ShallowestLeaf* sl = nullptr);

/// Scalar leaves of one value of struct `s` under `rules`.
uint64_t leaf_count(const StructLayout& s, const Leaves& rules, ShallowestLeaf* sl = nullptr);

/// Calls fn(FieldRef) for every scalar, vector, matrix and atomic field in leaf order (a shallow
/// nested struct: its shallowest leaf only).
template <class Fn>
void for_each_field(const WgslType& t, const FieldRef& f, const Leaves& rules, ShallowestLeaf& sl,
                    Fn& fn) {
  switch (t.kind) {
    case TypeKind::Scalar:
    case TypeKind::Atomic:
    case TypeKind::Vector:
    case TypeKind::Matrix:
      fn(f);
      return;
    case TypeKind::Array: {
      const uint32_t n = t.count ? t.count : rules.rt;
      for (uint32_t i = 0; i < n; ++i) for_each_field(*t.element, f.element(i), rules, sl, fn);
      return;
    }
    case TypeKind::Struct:
      if (rules.is_shallow(t)) {
        FieldRef leaf = f;
        for (const Step& step : sl.of(*t.struct_layout))
          leaf = step.member ? leaf.member(*step.member) : leaf.element(0);
        fn(leaf);
        return;
      }
      for (const auto& m : t.struct_layout->members)
        for_each_field(*m.type, f.member(m.name), rules, sl, fn);
      return;
  }
}

template <class Fn>
void for_each_field(const StructLayout& s, const Leaves& rules, Fn&& fn) {
  ShallowestLeaf sl;
  for (const auto& m : s.members) for_each_field(*m.type, s.field(m.name), rules, sl, fn);
}

/// The last member of `s` when it is a runtime-sized array, else nullptr.
inline const StructMember* runtime_array_member(const StructLayout& s) {
  if (!s.members.empty() && s.members.back().type->is_runtime_array()) return &s.members.back();
  return nullptr;
}

/// The bit pattern of leaf `k`: written by the host (gpu = false) or by the shader (gpu = true).
uint32_t pattern(ScalarKind s, bool gpu, uint64_t k);

/// Leaf index whose pattern `bits` is, if it is one of scalar `s`'s patterns (modulo the range).
std::optional<std::pair<uint64_t, bool>> decode(ScalarKind s, uint32_t bits);

/// Writes the components `bits` (bit patterns, column-major for matrices) into field `f` of `v`.
void write_field(StructView& v, const FieldRef& f, const uint32_t* bits);

/// Reads field `f` of `v` into `bits`, as write_field() writes them.
void read_field(const StructView& v, const FieldRef& f, uint32_t* bits);

std::pair<std::string, uint32_t> component(const FieldRef& f, uint32_t i);

}  // namespace bindery::wgsl::verify
