// SPDX-License-Identifier: MIT
// Seeded random and mutated .gltf and .glb files through `bindery render --model FILE --frames 1
// --size 8x8`: every run ends by itself with exit 0, 1 or 2 and only well-formed error lines (the
// rules are listed in tests/cli/random_input.hpp). Seeds: fuzz/corpus/gltf. A mutation that still
// loads is rendered, hence a device test.
#include "random_input.hpp"

namespace bindery::test {
namespace {

TEST(CliRandomInput, GltfThroughRender) {
  const std::vector<std::string> seeds = seeds_in("fuzz/corpus/gltf", ".gltf");
  ASSERT_FALSE(seeds.empty());
  Mutator m(seeds, 9003);
  run_many(CliCommand::render, "model.gltf", m, random_input_count(100));
}

TEST(CliRandomInput, GlbThroughRender) {
  const std::vector<std::string> seeds = seeds_in("fuzz/corpus/gltf", ".glb");
  ASSERT_FALSE(seeds.empty());
  Mutator m(seeds, 9004);
  run_many(CliCommand::render, "model.glb", m, random_input_count(100));
}

}  // namespace
}  // namespace bindery::test
