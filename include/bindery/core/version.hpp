// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/version.hpp — the library's version, as macros (for preprocessor tests) and
/// constants.
///
/// Semantic versioning; while the major version is 0 a minor version may break the API, so the
/// CMake package accepts the same minor version only (find_package(bindery 0.2) finds 0.2.x).
/// Kept equal to project(VERSION) in CMakeLists.txt and the newest CHANGELOG.md heading by
/// tests/version_test.cpp.
#pragma once

/// Major version: incompatible API changes once 1.0 is out.
#define BINDERY_VERSION_MAJOR 0
/// Minor version: new features (before 1.0, also breaking changes).
#define BINDERY_VERSION_MINOR 2
/// Patch version: fixes only.
#define BINDERY_VERSION_PATCH 0
/// "MAJOR.MINOR.PATCH".
#define BINDERY_VERSION_STRING "0.2.0"

/// bindery: per-draw data for native WebGPU renderers (see docs/GUIDE.md for the parts).
namespace bindery {

/// The version as one comparable number: MAJOR × 10000 + MINOR × 100 + PATCH (0.2.0 → 200).
inline constexpr int kVersion =
    BINDERY_VERSION_MAJOR * 10000 + BINDERY_VERSION_MINOR * 100 + BINDERY_VERSION_PATCH;
/// BINDERY_VERSION_STRING as a constant.
inline constexpr const char* kVersionString = BINDERY_VERSION_STRING;

}  // namespace bindery
