// SPDX-License-Identifier: MIT
// libFuzzer target: arbitrary bytes as a `bindery plan` scene description through
// parse_plan_input() and plan_bind_groups() (fuzz/targets.hpp: bindery::fuzz::plan).
// Built and run by fuzz/run.sh (clang, -fsanitize=fuzzer,address,undefined).
#include "targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bindery::fuzz::plan(data, size);
  return 0;
}
