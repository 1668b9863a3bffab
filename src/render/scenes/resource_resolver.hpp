// SPDX-License-Identifier: MIT
// src/render/resource_resolver.hpp — where a glTF model's external resources (buffer and image
// `uri`s) may come from: the model's own folder, nothing else. Private to bindery; the glTF loader
// (scene_gltf.cpp) resolves every external URI here before tinygltf runs, and tinygltf's file
// callbacks open only what was resolved (tests/gltf_hostile_test.cpp, fuzz/resolver_fuzz.cpp).
//
// The rule (README, "What a model may load"): a URI is a relative URI reference (RFC 3986 §4.2)
// to a regular file under the model's folder. Refused, each with a ModelLoad error that quotes
// the URI as written (escape_for_message) and never the resolved path, or whether or how large a
// file outside the folder is:
//   - a URI with a scheme (`file:`, `http:`, ...); data: URIs are the caller's (is_data_uri);
//   - an absolute path (`/...`, `//host/...`), a backslash, a malformed percent escape;
//   - NUL and every other control byte (0x00-0x1f, 0x7f), written raw or percent-encoded;
//   - a path that leaves the model's canonical folder: after percent decoding (`%2e%2e` is
//     `..`) and RFC 3986 dot-segment removal, a leading `..`; then, walking the path from the
//     folder one component at a time and following symbolic links, a `..` at the folder or a
//     link whose target lies outside. Nothing outside the folder is looked at (not even whether
//     it exists), so no message can depend on it. What is accepted is the canonical path of a
//     regular file strictly under the folder (as realpath() would give it);
//   - a path inside that names nothing; or a folder or anything but a regular file (these, and
//     failures to read a file inside, are Io errors, as for any file bindery reads).
// There is no current-directory fallback: a resource missing beside the model is missing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bindery {

/// True when `uri` is a data: URI (RFC 2397; the scheme compared without case), whose bytes are
/// in the URI itself, so nothing is opened.
bool is_data_uri(std::string_view uri);

/// `uri` with its percent escapes decoded (RFC 3986 §2.1: `%` and two hex digits; `+` stays `+`).
/// Throws ModelLoad when a `%` is not followed by two hex digits.
std::string percent_decode_uri(std::string_view uri);

/// The canonical path of the file the relative URI reference `uri` names in the folder
/// `model_dir` (the folder of the .gltf/.glb file; made canonical here). Throws ModelLoad (or Io,
/// for a folder or other non-regular file inside), with a message "uri '<uri as written, escaped>'
/// <the rule broken>", for everything the header comment lists. Reads the file system (lstat
/// and readlink inside the folder) but opens no file.
std::filesystem::path resolve_model_resource(const std::filesystem::path& model_dir,
                                             std::string_view uri);

/// Reads the whole regular file at `resolved` (a path resolve_model_resource returned), at most
/// `max_bytes`, refusing a symbolic link put in its place since it was resolved (O_NOFOLLOW).
/// Throws Io without naming the path (the caller names the URI).
std::vector<unsigned char> read_model_resource(const std::filesystem::path& resolved,
                                               uint64_t max_bytes);

/// For tests only: `observer` is called with the path of every file read_model_resource opens
/// (before it is opened); an empty function removes it. Not thread-safe against concurrent loads.
void set_resource_open_observer(std::function<void(const std::filesystem::path&)> observer);

}  // namespace bindery
