// SPDX-License-Identifier: MIT
// src/wgsl/verify_deviation.hpp — private to src/wgsl/ (the layout verifier, layout_verify.hpp):
// the layout an implementation gives where it deviates from WGSL §14.4.1 (NagaModel: naga 29,
// gfx-rs/wgpu#4377), and the first place where that layout differs from bindery's.
#pragma once

#include <bindery/wgsl/wgsl_layout.hpp>

#include <map>
#include <memory>
#include <string>
#include <utility>

namespace bindery::wgsl::verify {

/// The layout wgpu-native's WGSL front end (naga 29) gives: WGSL §14.4.1 except that AlignOf of a
/// struct is the largest AlignOf of its member TYPES, @align ignored (gfx-rs/wgpu#4377). Member
/// offsets honour @align, and a struct's size rounds up to its largest AlignOfMember with @align.
class NagaModel {
 public:
  /// naga = false recomputes the spec's layout with the same code, to tell bindery's own layout
  /// apart from the deviation.
  explicit NagaModel(bool naga = true) : naga_(naga) {}

  std::shared_ptr<const StructLayout> layout(const StructLayout& s) { return model(s).first; }

 private:
  using Pair = std::pair<std::shared_ptr<StructLayout>, std::shared_ptr<WgslType>>;

  std::shared_ptr<const WgslType> type(const std::shared_ptr<const WgslType>& t);
  Pair model(const StructLayout& s);

  bool naga_;
  std::map<const StructLayout*, Pair> done_;
};

/// The deviation of `s` (see first_difference) when bindery's layout is what the spec's rules give
/// and naga's differs; empty otherwise (a bindery error is then left for the round trip to show).
std::string naga_deviation(const StructLayout& s, NagaModel& spec, NagaModel& naga,
                           std::shared_ptr<const StructLayout>& model);

}  // namespace bindery::wgsl::verify
