// SPDX-License-Identifier: MIT
// src/render/scenes/gltf_files.hpp — private to src/render/scenes/: tinygltf with bindery's file
// reading and an image decoder that cannot throw through it. The file callbacks open only the
// resources the JSON pass resolved (gltf_json.hpp, resource_resolver.hpp); the image callback
// decodes only images a material uses (gltf_image.hpp), within the image budget. An exception in
// a callback is kept in CallbackState and rethrown after tinygltf returns.
#pragma once

#include "gltf_json.hpp"

#include <tiny_gltf.h>

#include <cstdint>
#include <exception>
#include <string>

namespace bindery::gltf {

/// Largest .gltf/.glb/.bin/image file read (tinygltf takes sizes as 32-bit unsigned).
inline constexpr uint64_t kMaxGltfFileBytes = 1ull << 30;

// tinygltf joins each search folder to the URI it decoded and asks the callbacks about the path;
// its folders are the base folder given to it and "." (the current directory). Given this
// base folder, a path that starts with it is a URI to look up among the resources the JSON pass
// resolved; every other path (the "." fallback) exists for nobody. No control byte can start a
// path tinygltf builds from ".", so the two cannot be confused.
inline const std::string kModelFolder = "\x01model-folder";

// What tinygltf's callbacks need, and what they saw go wrong (rethrown after tinygltf returns).
struct CallbackState {
  const gltf::GltfJsonFacts* facts = nullptr;
  uint64_t image_budget_bytes = 0;
  uint64_t image_bytes_used = 0;
  std::exception_ptr error;
};

/// Installs the file callbacks and the image loader on `loader`, with `state` as their user data.
void set_callbacks(tinygltf::TinyGLTF& loader, CallbackState& state);

/// tinygltf's error text `text` as one bindery message.
std::string tinygltf_refusal(std::string text);

}  // namespace bindery::gltf
