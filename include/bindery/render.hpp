// SPDX-License-Identifier: MIT
/// @file
/// bindery/render.hpp — bindery's reference renderer (bindery::render) in one include: render()
/// and its options and report, scenes (cubes, glTF), run_bench, run_soak, with every part
/// (<bindery/bindery.hpp>). tests/package_test.cpp checks that this lists every header of
/// include/bindery/render/.
#pragma once

#include "bindery/bindery.hpp"

#include "bindery/render/bench.hpp"
#include "bindery/render/renderer.hpp"
#include "bindery/render/scene.hpp"
#include "bindery/render/soak.hpp"
#include "bindery/render/strategy_info.hpp"
