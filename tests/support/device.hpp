// SPDX-License-Identifier: MIT
// tests/support/device.hpp — the device a device test program shares: one Device::create() per
// test program, made on first use (lavapipe on CPU-only machines).
#pragma once

#include <bindery/core/device.hpp>

namespace bindery::test {

/// The test program's device (Device::create(), made on first use).
inline const Device& shared_device() {
  static Device device = Device::create();
  return device;
}

}  // namespace bindery::test
