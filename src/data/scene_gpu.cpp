// SPDX-License-Identifier: MIT
// The scene-to-GPU rules of include/bindery/data/scene_gpu.hpp.
#include "bindery/data/scene_gpu.hpp"

#include <algorithm>

namespace bindery {
namespace {

WGPUAddressMode address_mode(AddressMode m) {
  switch (m) {
    case AddressMode::repeat:
      return WGPUAddressMode_Repeat;
    case AddressMode::mirror_repeat:
      return WGPUAddressMode_MirrorRepeat;
    default:
      return WGPUAddressMode_ClampToEdge;
  }
}

WGPUFilterMode filter_mode(FilterMode f) {
  return f == FilterMode::nearest ? WGPUFilterMode_Nearest : WGPUFilterMode_Linear;
}

}  // namespace

WGPUSamplerDescriptor sampler_descriptor(const SamplerData& s) {
  WGPUSamplerDescriptor sd = WGPU_SAMPLER_DESCRIPTOR_INIT;
  sd.addressModeU = address_mode(s.address_mode_u);
  sd.addressModeV = address_mode(s.address_mode_v);
  sd.magFilter = filter_mode(s.mag_filter);
  sd.minFilter = filter_mode(s.min_filter);
  sd.mipmapFilter = s.mipmap_filter == FilterMode::nearest ? WGPUMipmapFilterMode_Nearest
                                                           : WGPUMipmapFilterMode_Linear;
  // Without mipmapping (glTF minFilter NEAREST or LINEAR) only level 0 is sampled.
  if (!s.use_mipmaps) sd.lodMaxClamp = 0.0f;
  return sd;
}

float shader_alpha_cutoff(const Material& m) {
  switch (m.alpha_mode) {
    case AlphaMode::mask:
      return std::max(m.alpha_cutoff, 0.0f);
    case AlphaMode::blend:
      return -1.0f;
    default:
      return 0.0f;
  }
}

}  // namespace bindery
