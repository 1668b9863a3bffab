// SPDX-License-Identifier: MIT
// libFuzzer target: arbitrary bytes as a glTF resource URI through resolve_model_resource()
// against a folder tree with symbolic links in and out (fuzz/targets.hpp:
// bindery::fuzz::resolver): whatever it accepts lies inside the model's folder. Built and run by
// fuzz/run.sh (clang, -fsanitize=fuzzer,address,undefined).
#include "targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bindery::fuzz::resolver(data, size);
  return 0;
}
