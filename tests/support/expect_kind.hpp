// SPDX-License-Identifier: MIT
// tests/support/expect_kind.hpp — EXPECT_KIND(statement, Kind): the statement must throw
// bindery::Error of ErrorKind::Kind. Tests assert the kind of an error, never its text (STYLE.md
// "Errors").
#pragma once

#include <bindery/core/error.hpp>

#include <gtest/gtest.h>

#define EXPECT_KIND(stmt, k)                                    \
  do {                                                          \
    try {                                                       \
      stmt;                                                     \
      ADD_FAILURE() << #stmt " did not throw " #k;              \
    } catch (const ::bindery::Error& e) {                       \
      EXPECT_EQ(e.kind(), ::bindery::ErrorKind::k) << e.what(); \
    }                                                           \
  } while (0)
