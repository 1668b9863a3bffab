// SPDX-License-Identifier: MIT
// libFuzzer target: arbitrary bytes into reflect_wgsl() (fuzz/targets.hpp: bindery::fuzz::wgsl).
// Built and run by fuzz/run.sh (clang, -fsanitize=fuzzer,address,undefined).
#include "targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bindery::fuzz::wgsl(data, size);
  return 0;
}
