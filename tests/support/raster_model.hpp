// SPDX-License-Identifier: MIT
// tests/support/raster_model.hpp — a CPU model of the compute rasterizer's coverage and depth
// (shaders/raster_core.wgsl), written from the rules it follows rather than from its code:
// window coordinates of WebGPU (x right, y down, pixel centres at +0.5), positions snapped to
// 1/256 pixel, the top-left fill rule (D3D/Vulkan: a centre on an edge belongs to the triangle
// whose edge is a top edge, horizontal with the interior below, or a left edge, with the interior
// to its right), back faces (clockwise in clip space) culled, depth interpolated linearly in
// window space and clipped to [0, 1]. Exact: 64-bit integer edge functions on absolute subpixel
// positions, depth in double.
#pragma once

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace bindery::test {

/// One pixel of the model's target: the nearest triangle covering its centre.
struct RasterPixel {
  bool covered = false;
  uint32_t triangle = 0;  ///< the caller's triangle number
  double depth = 0;
};

/// The model's target, `width` x `height` pixels, row-major from the top.
struct RasterModel {
  uint32_t width = 0, height = 0;
  std::vector<RasterPixel> pixels;
  RasterModel(uint32_t w, uint32_t h) : width(w), height(h), pixels(size_t(w) * h) {}

  /// Window position (pixels, y down) and depth of clip-space `c` (w > 0).
  static glm::dvec3 window(glm::vec4 c, uint32_t w, uint32_t h) {
    const double x = double(c.x) / c.w, y = double(c.y) / c.w, z = double(c.z) / c.w;
    return {(x + 1.0) / 2.0 * w, (1.0 - y) / 2.0 * h, z};
  }

  /// Draws triangle `id` of clip-space corners a, b, c.
  void draw(glm::vec4 a, glm::vec4 b, glm::vec4 c, uint32_t id) {
    const glm::dvec3 p[3] = {window(a, width, height), window(b, width, height),
                             window(c, width, height)};
    int64_t x[3], y[3];
    for (int i = 0; i < 3; ++i) {
      x[i] = std::llround(p[i].x * 256.0);
      y[i] = std::llround(p[i].y * 256.0);
    }
    // Signed area with y down: a triangle counter-clockwise as seen (front-facing) has a
    // negative cross product in window coordinates.
    const int64_t area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
    if (area >= 0) return;  // back face or degenerate
    // Reverse to a, c, b (clockwise as seen, a positive cross product), so that the interior is
    // where every edge function is positive.
    const int order[3] = {0, 2, 1};
    for (uint32_t j = 0; j < height; ++j)
      for (uint32_t i = 0; i < width; ++i) {
        const int64_t px = int64_t(i) * 256 + 128, py = int64_t(j) * 256 + 128;
        double weights[3] = {};
        bool inside = true;
        for (int e = 0; e < 3 && inside; ++e) {
          const int s = order[e], t = order[(e + 1) % 3];
          const int64_t ex = x[t] - x[s], ey = y[t] - y[s];
          const int64_t f = ex * (py - y[s]) - ey * (px - x[s]);
          // Top edge: horizontal, going right (interior below); left edge: going up.
          const bool top_left = (ey == 0 && ex > 0) || ey < 0;
          if (f < 0 || (f == 0 && !top_left)) inside = false;
          // The edge s -> t weighs the corner opposite it.
          weights[order[(e + 2) % 3]] = double(f);
        }
        if (!inside) continue;
        const double sum = weights[0] + weights[1] + weights[2];
        const double z = (weights[0] * p[0].z + weights[1] * p[1].z + weights[2] * p[2].z) / sum;
        if (z < 0.0 || z > 1.0) continue;
        RasterPixel& out = pixels[size_t(j) * width + i];
        if (!out.covered || z < out.depth) out = {true, id, z};
      }
  }
};

}  // namespace bindery::test
