// SPDX-License-Identifier: MIT
/// @file
/// bindery/bindery.hpp — every public header of bindery in one include. Convenient for a first
/// try; a renderer that cares about compile times includes the parts it uses (docs/GUIDE.md says
/// which part solves which problem). tests/package_test.cpp checks that this lists every header
/// of include/bindery/.
#pragma once

#include "bindery/data/align.hpp"
#include "bindery/render/bench.hpp"
#include "bindery/encode/bind_group_plan.hpp"
#include "bindery/core/binding.hpp"
#include "bindery/data/buffer_arena.hpp"
#include "bindery/core/counters.hpp"
#include "bindery/data/data_placement.hpp"
#include "bindery/core/device.hpp"
#include "bindery/encode/draw_list.hpp"
#include "bindery/data/dynamic_uniform_buffer.hpp"
#include "bindery/core/error.hpp"
#include "bindery/data/frames_in_flight.hpp"
#include "bindery/core/gpu.hpp"
#include "bindery/headless/image.hpp"
#include "bindery/core/io.hpp"
#include "bindery/data/layout_builder.hpp"
#include "bindery/wgsl/layout_verify.hpp"
#include "bindery/core/limits.hpp"
#include "bindery/headless/offscreen.hpp"
#include "bindery/render/renderer.hpp"
#include "bindery/render/scene.hpp"
#include "bindery/render/soak.hpp"
#include "bindery/encode/sort_key.hpp"
#include "bindery/data/staging_ring.hpp"
#include "bindery/data/storage_array.hpp"
#include "bindery/wgsl/struct_check.hpp"
#include "bindery/wgsl/struct_view.hpp"
#include "bindery/data/validation.hpp"
#include "bindery/core/version.hpp"
#include "bindery/wgsl/wgsl_layout.hpp"
