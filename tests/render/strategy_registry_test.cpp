// SPDX-License-Identifier: MIT
// CPU tests of the strategy registry, the article's reduced phases and the animation's normal
// matrix shortcut.
#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include <glm/gtc/matrix_inverse.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace bindery {
namespace {

TEST(StrategyRegistry, EveryNameOnceAndLookupsAgree) {
  std::set<std::string_view> names;
  for (const StrategyInfo& info : strategy_catalog()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_FALSE(info.summary.empty()) << info.name;
    EXPECT_FALSE(info.article_step.empty()) << info.name;
    EXPECT_EQ(find_strategy(info.name).name, info.name);
  }
  for (const char* required : {"naive", "dynamic-offsets", "mapped-staging", "render-bundles",
                               "storage-instancing", "gpu-culling", "gpu-driven", "bundles-gpu"})
    EXPECT_TRUE(names.count(required)) << required;
  try {
    find_strategy("no-such");
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("gpu-driven"), std::string::npos);  // lists the names
  }
}

// Object i's phases are i, 3.721 i and 9.721 i modulo 2π, computed in double: for i = 999,999,
// 9,720,990.279 / 2π = 1,547,147.6..., so the phase is 9,720,990.279 - 1,547,147 * 2π.
TEST(ArticlePhases, ReducedInDoublePrecision) {
  Object o;
  o.set_article_phases(999'999);
  const double two_pi = 2.0 * 3.14159265358979323846;
  const double expect_z2 = 999999 * 9.721 - std::floor(999999 * 9.721 / two_pi) * two_pi;
  const double expect_z1 = 999999 * 3.721 - std::floor(999999 * 3.721 / two_pi) * two_pi;
  const double expect = 999999.0 - std::floor(999999.0 / two_pi) * two_pi;
  EXPECT_NEAR(o.phase_z2, expect_z2, 1e-5);
  EXPECT_NEAR(o.phase_z1, expect_z1, 1e-5);
  EXPECT_NEAR(o.phase, expect, 1e-5);
  for (float p : {o.phase, o.phase_z1, o.phase_z2}) {
    EXPECT_GE(p, 0.0f);
    EXPECT_LT(p, two_pi);
  }
  // The float product the article's formula would use is off by a visible fraction of a turn.
  EXPECT_GT(std::fabs(std::fmod(double(999999.0f * 9.721f), two_pi) - expect_z2), 0.01);
}

// The animation's normal matrix (mat3(world) / scale²) equals the general inverse transpose.
TEST(ArticlePhases, NormalMatrixShortcutEqualsInverseTranspose) {
  const Scene scene = make_cube_scene({.objects = 50, .seed = 3});
  std::vector<ObjectTransform> out;
  scene.animate(7.25f, out);
  for (const ObjectTransform& t : out) {
    const glm::mat3 general = glm::inverseTranspose(glm::mat3(t.world));
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) EXPECT_NEAR(t.normal[c][r], general[c][r], 1e-5f);
  }
}

TEST(CubeScene, SpreadScalesRadiiAndIsChecked) {
  const Scene a = make_cube_scene({.objects = 10, .seed = 1});
  const Scene b = make_cube_scene({.objects = 10, .seed = 1, .spread = 8.0f});
  for (size_t i = 0; i < a.objects.size(); ++i)
    EXPECT_FLOAT_EQ(b.objects[i].radius, a.objects[i].radius * 8.0f);
  for (float bad : {0.0f, -1.0f, 2000.0f, NAN}) {
    try {
      make_cube_scene({.objects = 1, .spread = bad});
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::SceneInput);
    }
  }
}

}  // namespace
}  // namespace bindery
