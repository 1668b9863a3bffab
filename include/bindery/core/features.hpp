// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/features.hpp — which WebGPU features bindery's parts and paths use, as data, for
/// an application that creates its device itself (Device::adopt) and fills its own
/// WGPUDeviceDescriptor::requiredFeatures.
///
///   const std::vector<WGPUFeatureName> wanted = bindery::best_features(adapter);
///   desc.requiredFeatureCount = wanted.size();
///   desc.requiredFeatures = wanted.data();
///
/// A part that finds its feature missing says which of two cases it is: the device was created
/// without it although the adapter offers it (ErrorKind::FeatureNotRequested: request it), or the
/// adapter does not offer it either (the part's own kind, e.g. StrategyUnavailable).
#pragma once

#include "bindery/core/gpu.hpp"

#include <string>
#include <vector>

namespace bindery {

class Device;

/// One feature a part of bindery, or one of its paths, uses.
struct FeatureNeed {
  WGPUFeatureName feature = WGPUFeatureName(0);  ///< for WGPUDeviceDescriptor::requiredFeatures
  std::string name;     ///< its name: "indirect-first-instance", "wgpu-native MultiDrawIndirectCount"
  std::string used_by;  ///< the part or path, e.g. "gpu_driven::IndirectDraws (every draw path)"
  /// true: the part refuses to work without it; false: only a better path or an option uses it
  /// (the part falls back, or the option is refused).
  bool required = false;
};

/// Every feature bindery's parts and paths use on the WebGPU implementation bindery was built
/// with (wgpu-native's native features from wgpu.h included), the same list for every adapter.
std::vector<FeatureNeed> feature_needs();

/// Of feature_needs(), those `adapter` offers, each once, in that order: the requiredFeatures of a
/// device on which every part takes its best path (what Device::create requests by default, and
/// shader-f16, which it requests only with DeviceOptions::want_shader_f16). Throws
/// InvalidArgument for a null adapter.
std::vector<WGPUFeatureName> best_features(WGPUAdapter adapter);

/// One line for a feature `device` lacks: "the device was created without NAME (the adapter
/// offers it: add it to requiredFeatures, see bindery::best_features())" when its adapter has
/// it, "... which the adapter (NAME) does not offer either" when not, and "... (adopted without
/// its adapter: whether the adapter offers it is unknown)" without one. `adapter_offers` tells
/// the first case (ErrorKind::FeatureNotRequested) from the others.
struct MissingFeature {
  bool adapter_offers = false;  ///< the adapter has it: the device was created without asking
  std::string message;          ///< the line above
};
/// See MissingFeature; `name` names `feature` in the message.
MissingFeature describe_missing_feature(const Device& device, WGPUFeatureName feature,
                                        std::string_view name);

}  // namespace bindery
