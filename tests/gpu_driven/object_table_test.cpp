// SPDX-License-Identifier: MIT
// The parts of bindery::gpu_driven::ObjectTable that need no device: the WGSL ObjectRecord's
// layout (offsets worked out by hand from WGSL §14.4.1: array<vec4f, 3> is 48 bytes at 0, then
// four u32), the world-matrix rows and the scatter's dispatch grid (hand-computed).
#include "support/expect_kind.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery/struct_check.hpp"
#include "bindery/wgsl_layout.hpp"

#include <gtest/gtest.h>

#include <string>

namespace bindery::gpu_driven {
namespace {

TEST(ObjectTableWgsl, RecordLayoutIsTheDocumentedOne) {
  const Reflection r = reflect_wgsl(ObjectTable::wgsl());
  ASSERT_TRUE(r.errors.empty());
  const StructLayout& s = r.struct_layout("ObjectRecord");
  EXPECT_EQ(s.size, 64u);
  ASSERT_EQ(s.members.size(), 5u);
  const std::pair<const char*, uint32_t> expected[] = {
      {"world_rows", 0}, {"mesh", 48}, {"material", 52}, {"flags", 56}, {"user", 60}};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(s.members[i].name, expected[i].first);
    EXPECT_EQ(s.members[i].offset, expected[i].second) << expected[i].first;
  }
  // The C++ mirror agrees with it (the same check the constructor makes).
  EXPECT_EQ(sizeof(ObjectRecord), 64u);
  EXPECT_EQ(offsetof(ObjectRecord, mesh), 48u);
  EXPECT_EQ(offsetof(ObjectRecord, user), 60u);
}

TEST(ObjectTableWgsl, DeclaresTheFlagConstants) {
  const std::string w(ObjectTable::wgsl());
  EXPECT_NE(w.find("const kObjectLive = 1u;"), std::string::npos);
  EXPECT_NE(w.find("const kObjectPipelineShift = 8u;"), std::string::npos);
  EXPECT_NE(w.find("const kObjectPipelineMask = 0xff00u;"), std::string::npos);
  EXPECT_EQ(kObjectLive, 1u);
  EXPECT_EQ(kObjectPipelineMask, 0xff00u);
}

TEST(ObjectTableRows, RowsAreTheAffineRowsOfTheColumnMajorMatrix) {
  // m[c][r] = 10 * c + r + 1: row r must read (r + 1, r + 11, r + 21, r + 31).
  glm::mat4 m;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) m[c][r] = float(10 * c + r + 1);
  glm::vec4 rows[3];
  world_to_rows(m, rows);
  EXPECT_EQ(rows[0], glm::vec4(1, 11, 21, 31));
  EXPECT_EQ(rows[1], glm::vec4(2, 12, 22, 32));
  EXPECT_EQ(rows[2], glm::vec4(3, 13, 23, 33));
}

TEST(ObjectTableGrid, SmallCountsUseOneRow) {
  EXPECT_EQ(scatter_grid(0, 65535).x, 0u);
  EXPECT_EQ(scatter_grid(1, 65535).x, 1u);
  EXPECT_EQ(scatter_grid(1, 65535).y, 1u);
  EXPECT_EQ(scatter_grid(64, 65535).x, 1u);
  EXPECT_EQ(scatter_grid(65, 65535).x, 2u);
  EXPECT_EQ(scatter_grid(65, 65535).y, 1u);
}

TEST(ObjectTableGrid, PastTheLimitASecondDimension) {
  // 65535 workgroups of 64 = 4,194,240 records fit one row; one more record needs a second row.
  DispatchGrid g = scatter_grid(4'194'240, 65535);
  EXPECT_EQ(g.x, 65535u);
  EXPECT_EQ(g.y, 1u);
  g = scatter_grid(4'194'241, 65535);
  EXPECT_EQ(g.x, 65535u);
  EXPECT_EQ(g.y, 2u);
  // 1000 records = 16 workgroups; rows of at most 5 -> 4 rows.
  g = scatter_grid(1000, 5);
  EXPECT_EQ(g.x, 5u);
  EXPECT_EQ(g.y, 4u);
  EXPECT_GE(uint64_t(g.x) * g.y * 64, 1000u);
}

}  // namespace
}  // namespace bindery::gpu_driven
