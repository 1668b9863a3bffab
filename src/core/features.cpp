// SPDX-License-Identifier: MIT
// The features bindery's parts and paths use, as data (bindery/core/features.hpp).
#include "bindery/core/features.hpp"

#include "bindery/core/device.hpp"
#include "bindery/core/error.hpp"
#include "internal/implementation.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bindery {

std::vector<FeatureNeed> feature_needs() {
  std::vector<FeatureNeed> needs = {
      {WGPUFeatureName_IndirectFirstInstance, "indirect-first-instance",
       "gpu_driven::IndirectDraws (every draw path: each bin's instances start at its "
       "firstInstance), so the gpu-driven and gpu-culling strategies",
       true},
      {WGPUFeatureName_TimestampQuery, "timestamp-query",
       "GpuTimer (GPU time per pass in render()'s report)", false},
      {WGPUFeatureName_ShaderF16, "shader-f16", "verify_layout of structs with f16 fields", false},
  };
  for (FeatureNeed& n : implementation::native_feature_needs()) needs.push_back(std::move(n));
  return needs;
}

std::vector<WGPUFeatureName> best_features(WGPUAdapter adapter) {
  if (adapter == nullptr)
    throw Error(ErrorKind::InvalidArgument, "best_features: the adapter must not be null");
  std::vector<WGPUFeatureName> out;
  for (const FeatureNeed& n : feature_needs())
    if (wgpuAdapterHasFeature(adapter, n.feature) &&
        std::find(out.begin(), out.end(), n.feature) == out.end())
      out.push_back(n.feature);
  return out;
}

MissingFeature describe_missing_feature(const Device& device, WGPUFeatureName feature,
                                        std::string_view name) {
  MissingFeature m;
  const WGPUAdapter adapter = device.adapter_handle();
  if (adapter == nullptr) {
    m.message = fmt::format("the device was created without {} (adopted without its adapter: "
                            "whether the adapter offers it is unknown; request it in "
                            "requiredFeatures where it does, see bindery::best_features())",
                            name);
  } else if (wgpuAdapterHasFeature(adapter, feature)) {
    m.adapter_offers = true;
    m.message = fmt::format("the device was created without {} (the adapter, {}, offers it: add "
                            "it to the device descriptor's requiredFeatures, see "
                            "bindery::best_features())",
                            name, device.adapter().name);
  } else {
    m.message = fmt::format("the device was created without {}, which the adapter ({}) does not "
                            "offer either",
                            name, device.adapter().name);
  }
  return m;
}

}  // namespace bindery
