// Seeded random and mutated .gltf and .glb files through `bindery render --model FILE --frames 1
// --size 8x8`: every run ends by itself with exit 0, 1 or 2 and only well-formed error lines (the
// rules are listed in tests/random_input.hpp). Seeds: fuzz/corpus/gltf. A mutation that still
// loads is rendered, hence a device test.
#include "random_input.hpp"

namespace bindery::test {
namespace {

TEST(CliRandomInput, GltfThroughRender) {
  const std::vector<std::string> seeds = seeds_in("fuzz/corpus/gltf", ".gltf");
  ASSERT_FALSE(seeds.empty());
  Mutator m(seeds, 9003);
  for (int i = 0, n = random_input_count(100); i < n && !HasFatalFailure(); ++i)
    run_and_check(CliCommand::render, "model.gltf", m.next());
}

TEST(CliRandomInput, GlbThroughRender) {
  const std::vector<std::string> seeds = seeds_in("fuzz/corpus/gltf", ".glb");
  ASSERT_FALSE(seeds.empty());
  Mutator m(seeds, 9004);
  for (int i = 0, n = random_input_count(100); i < n && !HasFatalFailure(); ++i)
    run_and_check(CliCommand::render, "model.glb", m.next());
}

}  // namespace
}  // namespace bindery::test
