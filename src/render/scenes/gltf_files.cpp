// SPDX-License-Identifier: MIT
// tinygltf's file and image callbacks (gltf_files.hpp).
#include "gltf_files.hpp"

#include "bindery/core/error.hpp"
#include "gltf_image.hpp"
#include "resource_resolver.hpp"

#include <fmt/format.h>

#include <optional>

namespace bindery::gltf {
namespace {

// The JSON pass's key for a path tinygltf built from kModelFolder; nullopt for any other path.
std::optional<std::string> resource_key(const std::string& path) {
  if (path.size() <= kModelFolder.size() + 1 || path.compare(0, kModelFolder.size(), kModelFolder))
    return std::nullopt;
  if (path[kModelFolder.size()] != '/') return std::nullopt;
  return path.substr(kModelFolder.size() + 1);
}

bool file_exists(const std::string& path, void* user) {
  const auto* state = static_cast<CallbackState*>(user);
  const std::optional<std::string> key = resource_key(path);
  return key && state->facts->resources.count(*key) > 0;
}

// tinygltf's default expands the path like a shell would (wordexp); a URI is a path, nothing more.
std::string expand_file_path(const std::string& path, void*) {
  return path;
}

bool read_whole_file(std::vector<unsigned char>* out, std::string* err, const std::string& path,
                     void* user) {
  auto* state = static_cast<CallbackState*>(user);
  const std::optional<std::string> key = resource_key(path);
  const auto found = key ? state->facts->resources.find(*key) : state->facts->resources.end();
  const std::string uri = found != state->facts->resources.end()
                              ? gltf::quote_input(state->facts->uri_as_written.at(*key))
                              : std::string("(not resolved)");
  try {
    if (found == state->facts->resources.end())
      throw Error(ErrorKind::ModelLoad, "was not resolved inside the model's folder");
    *out = read_model_resource(found->second, kMaxGltfFileBytes);
    return true;
  } catch (const Error& e) {
    if (!state->error)
      state->error = std::make_exception_ptr(
          Error(e.kind(), fmt::format("resource uri '{}' {}", uri, e.what())));
  } catch (...) {
    if (!state->error) state->error = std::current_exception();
  }
  if (err) *err += "cannot read resource '" + uri + "'";
  return false;
}

bool write_whole_file(std::string* err, const std::string&, const std::vector<unsigned char>&,
                      void*) {
  if (err) *err += "bindery does not write glTF files";
  return false;
}

// Decodes used images (gltf_image.hpp) to RGBA8 into the tinygltf image; leaves the others
// undecoded (bindery draws none of them).
bool load_image(tinygltf::Image* image, const int index, std::string* err, std::string*, int, int,
                const unsigned char* bytes, int size, void* user) {
  auto* state = static_cast<CallbackState*>(user);
  const std::vector<bool>& used = state->facts->image_used;
  if (index < 0 || size_t(index) >= used.size() || !used[size_t(index)]) return true;
  try {
    // glTF 2.0 "Images": the declared media type (mimeType, or a data: URI's) is the bytes' type.
    const std::span<const uint8_t> data(bytes, size_t(std::max(size, 0)));
    const std::string& declared = state->facts->image_media_type.size() > size_t(index)
                                      ? state->facts->image_media_type[size_t(index)]
                                      : std::string();
    const std::string_view format = gltf::image_format_name(data);
    if ((declared == "image/png" && format == "JPEG") ||
        (declared == "image/jpeg" && format == "PNG"))
      throw Error(ErrorKind::ModelLoad,
                  fmt::format("image {} is declared {} but its bytes are a {} file (by their "
                              "signature); glTF 2.0 images must be of their declared media type",
                              index, declared, format));
    gltf::DecodedImage d = gltf::decode_gltf_image(
        std::span(bytes, size_t(std::max(size, 0))), fmt::format("image {}", index),
        state->image_budget_bytes, state->image_bytes_used);
    image->width = static_cast<int>(d.width);
    image->height = static_cast<int>(d.height);
    image->component = 4;
    image->bits = 8;
    image->pixel_type = TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE;
    image->image = std::move(d.rgba);
    return true;
  } catch (...) {
    if (!state->error) state->error = std::current_exception();
  }
  if (err) *err += fmt::format("image {} could not be decoded", index);
  return false;
}

}  // namespace

// tinygltf's error text for a file bindery's own checks let through, as one capped line: its
// folder marker replaced by "the model's folder", every data: URI cut to 80 characters, the
// whole to 300.
std::string tinygltf_refusal(std::string text) {
  if (text.empty()) text = "no reason given";
  for (size_t at = text.find(kModelFolder); at != text.npos; at = text.find(kModelFolder, at))
    text.replace(at, kModelFolder.size(), "(the model's folder)");
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 5, "data:") == 0) {
      const size_t end = std::min(text.find_first_of(" \n", i), text.size());
      out += text.substr(i, std::min<size_t>(end - i, 80));
      if (end - i > 80) out += "...";
      i = end;
    } else {
      out += text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
      ++i;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return "the glTF library refused it: " + gltf::quote_input(out, 300);
}

void set_callbacks(tinygltf::TinyGLTF& loader, CallbackState& state) {
  loader.SetFsCallbacks(
      {&file_exists, &expand_file_path, &read_whole_file, &write_whole_file, &state});
  loader.SetImageLoader(&load_image, &state);
}

}  // namespace bindery::gltf
