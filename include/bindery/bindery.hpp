// SPDX-License-Identifier: MIT
/// @file
/// bindery/bindery.hpp — every public header of bindery in one include. Convenient for a first
/// try; a renderer that cares about compile times includes the parts it uses (docs/GUIDE.md says
/// which part solves which problem). tests/package_test.cpp checks that this lists every header
/// of include/bindery/.
#pragma once

#include "bindery/align.hpp"
#include "bindery/bench.hpp"
#include "bindery/bind_group_plan.hpp"
#include "bindery/binding.hpp"
#include "bindery/buffer_arena.hpp"
#include "bindery/counters.hpp"
#include "bindery/data_placement.hpp"
#include "bindery/device.hpp"
#include "bindery/draw_list.hpp"
#include "bindery/dynamic_uniform_buffer.hpp"
#include "bindery/error.hpp"
#include "bindery/frames_in_flight.hpp"
#include "bindery/gpu.hpp"
#include "bindery/image.hpp"
#include "bindery/io.hpp"
#include "bindery/layout_builder.hpp"
#include "bindery/layout_verify.hpp"
#include "bindery/limits.hpp"
#include "bindery/offscreen.hpp"
#include "bindery/renderer.hpp"
#include "bindery/scene.hpp"
#include "bindery/soak.hpp"
#include "bindery/sort_key.hpp"
#include "bindery/staging_ring.hpp"
#include "bindery/storage_array.hpp"
#include "bindery/struct_check.hpp"
#include "bindery/struct_view.hpp"
#include "bindery/validation.hpp"
#include "bindery/version.hpp"
#include "bindery/wgsl_layout.hpp"
