// SPDX-License-Identifier: MIT
#include "bindery/data/scene_data.hpp"

#include <algorithm>

namespace bindery {

TextureData make_texture_with_mips(std::string name, uint32_t width, uint32_t height,
                                   std::vector<uint8_t> level0) {
  TextureData t;
  t.name = std::move(name);
  t.width = width;
  t.height = height;
  t.mips.push_back(std::move(level0));
  uint32_t w = width, h = height;
  while (w > 1 || h > 1) {
    const uint32_t nw = std::max(1u, w / 2), nh = std::max(1u, h / 2);
    const std::vector<uint8_t>& src = t.mips.back();
    std::vector<uint8_t> dst(size_t(nw) * nh * 4);
    for (uint32_t y = 0; y < nh; ++y)
      for (uint32_t x = 0; x < nw; ++x)
        for (uint32_t c = 0; c < 4; ++c) {
          uint32_t sum = 0;
          for (uint32_t dy = 0; dy < 2; ++dy)
            for (uint32_t dx = 0; dx < 2; ++dx) {
              const uint32_t sx = std::min(w - 1, x * 2 + dx), sy = std::min(h - 1, y * 2 + dy);
              sum += src[(size_t(sy) * w + sx) * 4 + c];
            }
          dst[(size_t(y) * nw + x) * 4 + c] = static_cast<uint8_t>((sum + 2) / 4);
        }
    t.mips.push_back(std::move(dst));
    w = nw;
    h = nh;
  }
  return t;
}

}  // namespace bindery
