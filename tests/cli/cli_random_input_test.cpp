// SPDX-License-Identifier: MIT
// Seeded random and mutated WGSL and plan JSON through `bindery layout` and `bindery plan`: every
// run ends by itself with exit 0, 1 or 2 and only well-formed error lines (the rules are listed
// in tests/cli/random_input.hpp). Seeds: the repository's shaders and plan scenes. The glTF / GLB
// half, which may create a device, is cli_random_input_device_test.cpp.
#include "random_input.hpp"

namespace bindery::test {
namespace {

TEST(CliRandomInput, WgslThroughLayout) {
  std::vector<std::string> seeds = seeds_in("shaders", ".wgsl");
  for (const std::string& s : seeds_in("examples/shaders", ".wgsl")) seeds.push_back(s);
  for (const std::string& s : seeds_in("fuzz/corpus/wgsl", ".wgsl")) seeds.push_back(s);
  ASSERT_FALSE(seeds.empty());
  Mutator m(seeds, 9001);
  run_many(CliCommand::layout, "input.wgsl", m, random_input_count(150));
}

TEST(CliRandomInput, PlanJsonThroughPlan) {
  std::vector<std::string> seeds = seeds_in("examples/plan", ".json");
  for (const std::string& s : seeds_in("tests/data/plan", ".json")) seeds.push_back(s);
  for (const std::string& s : seeds_in("fuzz/corpus/plan", ".json")) seeds.push_back(s);
  ASSERT_FALSE(seeds.empty());
  Mutator m(seeds, 9002);
  run_many(CliCommand::plan, "scene.json", m, random_input_count(150));
}

}  // namespace
}  // namespace bindery::test
