// SPDX-License-Identifier: MIT
// libFuzzer target: arbitrary bytes as a .gltf / .glb file through load_gltf_scene()
// (fuzz/targets.hpp: bindery::fuzz::gltf). Built and run by fuzz/run.sh (clang,
// -fsanitize=fuzzer,address,undefined).
#include "targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bindery::fuzz::gltf(data, size);
  return 0;
}
