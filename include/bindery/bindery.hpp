// SPDX-License-Identifier: MIT
/// @file
/// bindery/bindery.hpp — every part of bindery (bindery::bindery) in one include: the headers of
/// core/, wgsl/, data/, encode/, headless/ and gpu_driven/. Convenient for a first try; a renderer
/// that cares about compile times includes the parts it uses (docs/GUIDE.md says which part
/// solves which problem). The reference renderer is <bindery/render.hpp> (bindery::render).
/// tests/package_test.cpp checks that this lists every header of those folders.
///
/// What bindery does not do: no window system in the library, no scene graph, no shader
/// translation (it reads WGSL, it does not write or convert it), no asset pipeline; the renderer
/// (bindery::render) is a reference that measures the parts, not an engine. What it takes from
/// the application: the device and queue (Device::adopt(), or Device::create() headless) and the
/// command encoders and passes the parts record into; the surface and frame loop stay the
/// application's.
#pragma once

#include "bindery/core/backend.hpp"
#include "bindery/core/binding.hpp"
#include "bindery/core/bind_group_entries.hpp"
#include "bindery/core/counters.hpp"
#include "bindery/core/device.hpp"
#include "bindery/core/device_checks.hpp"
#include "bindery/core/error.hpp"
#include "bindery/core/features.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/core/io.hpp"
#include "bindery/core/limits.hpp"
#include "bindery/core/version.hpp"
#include "bindery/wgsl/layout_verify.hpp"
#include "bindery/wgsl/struct_check.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"
#include "bindery/data/align.hpp"
#include "bindery/data/buffer_arena.hpp"
#include "bindery/data/data_placement.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/data/frames_in_flight.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/data/scene_data.hpp"
#include "bindery/data/scene_gpu.hpp"
#include "bindery/data/staging_ring.hpp"
#include "bindery/data/storage_array.hpp"
#include "bindery/data/validation.hpp"
#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/encode/draw_list.hpp"
#include "bindery/encode/render_pass_state.hpp"
#include "bindery/encode/sort_key.hpp"
#include "bindery/headless/gpu_timer.hpp"
#include "bindery/headless/image.hpp"
#include "bindery/headless/offscreen.hpp"
#include "bindery/gpu_driven/cluster_culling.hpp"
#include "bindery/gpu_driven/cluster_raster.hpp"
#include "bindery/gpu_driven/cluster_hierarchy.hpp"
#include "bindery/gpu_driven/culling.hpp"
#include "bindery/gpu_driven/depth_pyramid.hpp"
#include "bindery/gpu_driven/gpu_driven_scene.hpp"
#include "bindery/gpu_driven/indirect_draws.hpp"
#include "bindery/gpu_driven/material_table.hpp"
#include "bindery/gpu_driven/mesh_pool.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery/gpu_driven/offset_allocator.hpp"
