// SPDX-License-Identifier: MIT
// tests/support/images.hpp — image comparisons of the device tests: the images of a failed
// comparison written next to the test (test-output/NAME_{a,b}.png), and the bound of "nearly the
// same image" that the GPU-side strategies are held to against the CPU-side ones.
#pragma once

#include <bindery/headless/image.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>

namespace bindery::test {

/// Writes `a` and `b` to test-output/NAME_a.png and NAME_b.png when the running test has failed
/// ('/' in `name`, as in a parameterised test's name, written as '_').
inline void dump_on_failure(const std::string& name, const Image& a, const Image& b) {
  if (!::testing::Test::HasFailure()) return;
  std::filesystem::create_directories("test-output");
  std::string file = name;
  std::replace(file.begin(), file.end(), '/', '_');
  write_png("test-output/" + file + "_a.png", a);
  write_png("test-output/" + file + "_b.png", b);
}

/// Pixels differing by more than 2 levels in some channel may be at most 0.1% of the image (issue
/// 10's bound): the GPU's float sin/cos and matrix products round differently from the CPU's
/// (glm), which moves a few edge pixels, never a whole face. Dumps both images on failure.
inline void expect_nearly_same(const Image& a, const Image& b, const std::string& name) {
  const uint64_t allowed = uint64_t(a.width) * a.height / 1000;
  EXPECT_LE(count_differing_pixels(a, b, 2), allowed) << name;
  dump_on_failure(name, a, b);
}

}  // namespace bindery::test
