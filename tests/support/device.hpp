// SPDX-License-Identifier: MIT
// tests/support/device.hpp — what the cluster device tests share: one device per test program
// and the images of a failed comparison written next to the test (test-output/NAME_{a,b}.png).
#pragma once

#include <bindery/core/device.hpp>
#include <bindery/headless/image.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace bindery::test {

/// The test program's device (Device::create(), made on first use).
inline const Device& shared_device() {
  static Device device = Device::create();
  return device;
}

/// Writes `a` and `b` to test-output/ when the running test has failed.
inline void dump_on_failure(const std::string& name, const Image& a, const Image& b) {
  if (!::testing::Test::HasFailure()) return;
  std::filesystem::create_directories("test-output");
  write_png("test-output/" + name + "_a.png", a);
  write_png("test-output/" + name + "_b.png", b);
}

}  // namespace bindery::test
