// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/scene_gpu.hpp — the rules that turn scene data (scene_data.hpp) into GPU state,
/// written once for every part and strategy that needs them: the WebGPU sampler descriptor of a
/// SamplerData and the `alphaCutoff` value a shader reads for a Material.
#pragma once

#include "bindery/data/scene_data.hpp"

#include <webgpu/webgpu.h>

namespace bindery {

/// The WebGPU sampler descriptor of a scene sampler: address modes U and V, mag, min and mipmap
/// filters; lodMaxClamp 0 when the sampler does not use mipmaps (only level 0 is sampled). The
/// label is not set. (WebGPU §7.1 GPUSamplerDescriptor.)
WGPUSamplerDescriptor sampler_descriptor(const SamplerData& sampler);

/// The WGSL `alphaCutoff` of a material (shaders/cubes_common.wgsl, MaterialTable's
/// MaterialRecord): 0 for AlphaMode::opaque (nothing is discarded), max(alpha_cutoff, 0) for
/// mask, -1 for blend (ordered-dither coverage).
float shader_alpha_cutoff(const Material& material);

}  // namespace bindery
