// SPDX-License-Identifier: MIT
// tests/support/render_options.hpp — the options of a small render frozen in time: the same
// strategy, size, frame count and animation time give the same image on every run, so two
// strategies (or two runs) can be compared pixel by pixel.
#pragma once

#include <bindery/render/renderer.hpp>

#include <cstdint>
#include <string>

namespace bindery::test {

/// RenderOptions for `frames` frames of `width` x `height` pixels drawn by `strategy` at the
/// animation time `time_s` (seconds); every other field at its default.
inline RenderOptions frozen(const std::string& strategy, uint32_t width, uint32_t height,
                            uint32_t frames, float time_s) {
  RenderOptions o;
  o.strategy = strategy;
  o.width = width;
  o.height = height;
  o.frames = frames;
  o.time_s = time_s;
  return o;
}

}  // namespace bindery::test
