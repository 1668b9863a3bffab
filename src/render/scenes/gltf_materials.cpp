// SPDX-License-Identifier: MIT
// The glTF loader's materials and samplers (gltf_loader.hpp, stage 3): glTF material i -> scene
// material i, its base colour texture (the decoded image moved into a scene texture) and its
// sampler (glTF 2.0 "Samplers", deduplicated in the scene).
#include "gltf_loader.hpp"
#include "resource_resolver.hpp"

#include <algorithm>

namespace bindery::gltf {
namespace {

// glTF sampler -> SamplerData ("Samplers"; undefined filters: the article's defaults).
SamplerData sampler_data(const tinygltf::Model& model, int index, const std::string& path) {
  SamplerData s;
  s.address_mode_u = s.address_mode_v = AddressMode::repeat;  // no sampler: repeat wrapping
  if (index < 0) return s;
  if (size_t(index) >= model.samplers.size())
    fail(path,
         fmt::format("sampler {} does not exist ({} samplers)", index, model.samplers.size()));
  const tinygltf::Sampler& g = model.samplers[index];
  auto wrap = [&](int mode, const char* field) {
    switch (mode) {
      case TINYGLTF_TEXTURE_WRAP_REPEAT:
        return AddressMode::repeat;
      case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE:
        return AddressMode::clamp_to_edge;
      case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT:
        return AddressMode::mirror_repeat;
    }
    fail(path, fmt::format("sampler {}: {} {} is not 33071, 33648 or 10497", index, field, mode));
  };
  s.address_mode_u = wrap(g.wrapS, "wrapS");
  s.address_mode_v = wrap(g.wrapT, "wrapT");
  switch (g.magFilter) {
    case -1:
      break;
    case TINYGLTF_TEXTURE_FILTER_NEAREST:
      s.mag_filter = FilterMode::nearest;
      break;
    case TINYGLTF_TEXTURE_FILTER_LINEAR:
      s.mag_filter = FilterMode::linear;
      break;
    default:
      fail(path, fmt::format("sampler {}: magFilter {} is not 9728 or 9729", index, g.magFilter));
  }
  const FilterMode n = FilterMode::nearest, l = FilterMode::linear;
  switch (g.minFilter) {
    case -1:
      break;
    case TINYGLTF_TEXTURE_FILTER_NEAREST:
      s.min_filter = n;
      s.use_mipmaps = false;
      break;
    case TINYGLTF_TEXTURE_FILTER_LINEAR:
      s.min_filter = l;
      s.use_mipmaps = false;
      break;
    case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_NEAREST:
      std::tie(s.min_filter, s.mipmap_filter) = std::pair(n, n);
      break;
    case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_NEAREST:
      std::tie(s.min_filter, s.mipmap_filter) = std::pair(l, n);
      break;
    case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_LINEAR:
      std::tie(s.min_filter, s.mipmap_filter) = std::pair(n, l);
      break;
    case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR:
      std::tie(s.min_filter, s.mipmap_filter) = std::pair(l, l);
      break;
    default:
      fail(path, fmt::format("sampler {}: minFilter {} is not 9728, 9729 or 9984..9987", index,
                             g.minFilter));
  }
  return s;
}

}  // namespace

uint32_t GltfLoader::sampler_index(const SamplerData& s) {
  auto it = std::find(scene_.samplers.begin(), scene_.samplers.end(), s);
  if (it != scene_.samplers.end()) return static_cast<uint32_t>(it - scene_.samplers.begin());
  scene_.samplers.push_back(s);
  return static_cast<uint32_t>(scene_.samplers.size() - 1);
}

// A base colour texture -> (scene texture, scene sampler). Its image was decoded to RGBA8 by
// load_image; the pixels move into the scene's texture (no copy).
std::pair<uint32_t, uint32_t> GltfLoader::texture_for(int gltf_texture) {
  if (gltf_texture < 0) return {0, 0};  // no base colour texture: white
  if (size_t(gltf_texture) >= model_.textures.size())
    fail(path_, fmt::format("texture {} does not exist ({} textures)", gltf_texture,
                            model_.textures.size()));
  const tinygltf::Texture& tex = model_.textures[gltf_texture];
  const uint32_t sampler = sampler_index(sampler_data(model_, tex.sampler, path_));
  const int source = tex.source;
  if (source < 0 && tex.extensions.count("KHR_texture_basisu"))
    fail(path_, fmt::format("texture {} has no source bindery can decode: its only image is given "
                            "through KHR_texture_basisu, which bindery does not support (a "
                            "texture's source is a PNG or JPEG image)",
                            gltf_texture));
  if (source < 0)
    fail(path_, fmt::format("texture {} has no source (and no extension bindery supports gives "
                            "one); bindery draws textures from a PNG or JPEG source image",
                            gltf_texture));
  if (size_t(source) >= model_.images.size())
    fail(path_, fmt::format("texture {} names image {}, which does not exist ({} images)",
                            gltf_texture, source, model_.images.size()));
  auto it = texture_of_image_.find(source);
  if (it != texture_of_image_.end()) return {it->second, sampler};
  stage_ = fmt::format("converting image {}", source);
  tinygltf::Image& img = model_.images[source];
  const size_t bytes = size_t(std::max(img.width, 0)) * size_t(std::max(img.height, 0)) * 4;
  if (img.width <= 0 || img.height <= 0 || img.component != 4 || img.bits != 8 ||
      img.image.size() != bytes)
    fail(path_, fmt::format("image {} ('{}') could not be read or decoded", source,
                            gltf::quote_input(img.uri.empty() ? img.name : img.uri)));
  // Named after the file's image, so that a later refusal (a side past the device's
  // maxTextureDimension2D) says which image of the model it is.
  const std::string label = img.name.empty() ? (is_data_uri(img.uri) ? "" : img.uri) : img.name;
  scene_.textures.push_back(make_texture_with_mips(
      label.empty() ? fmt::format("glTF image {}", source)
                    : fmt::format("glTF image {} '{}'", source, gltf::quote_input(label)),
      uint32_t(img.width), uint32_t(img.height), std::move(img.image)));
  const uint32_t t = static_cast<uint32_t>(scene_.textures.size() - 1);
  texture_of_image_[source] = t;
  return {t, sampler};
}

Material GltfLoader::convert_material(const tinygltf::Material& m, size_t index) {
  stage_ = fmt::format("reading material {}", index);
  Material mat;
  const auto& f = m.pbrMetallicRoughness.baseColorFactor;
  if (f.size() == 4) mat.color = glm::vec4(f[0], f[1], f[2], f[3]);
  const double roughness = std::clamp(m.pbrMetallicRoughness.roughnessFactor, 0.0, 1.0);
  mat.shininess = static_cast<float>(2.0 + (1.0 - roughness) * 118.0);
  const tinygltf::TextureInfo& base = m.pbrMetallicRoughness.baseColorTexture;
  std::tie(mat.texture, mat.sampler) = texture_for(base.index);
  if (base.extensions.count("KHR_texture_transform"))
    warn_once("KHR_texture_transform is not applied (textures keep their own placement)");
  if (m.alphaMode == "OPAQUE" || m.alphaMode.empty()) {
    mat.alpha_mode = AlphaMode::opaque;
  } else if (m.alphaMode == "MASK") {
    mat.alpha_mode = AlphaMode::mask;
    if (!(m.alphaCutoff >= 0.0) || !std::isfinite(m.alphaCutoff))
      fail(path_,
           fmt::format("material {}: alphaCutoff {} is not a number >= 0", index, m.alphaCutoff));
    mat.alpha_cutoff = static_cast<float>(m.alphaCutoff);
  } else if (m.alphaMode == "BLEND") {
    mat.alpha_mode = AlphaMode::blend;
  } else {
    fail(path_, fmt::format("material {}: alphaMode '{}' is not OPAQUE, MASK or BLEND", index,
                            escape_for_message(m.alphaMode)));
  }
  return mat;
}

// Stage 3: glTF material i -> scene material i; the default material (every property at its
// default: base colour 1, roughness 1; "Default Material") at the end.
void GltfLoader::build_materials() {
  for (size_t i = 0; i < model_.materials.size(); ++i)
    scene_.materials.push_back(convert_material(model_.materials[i], i));
  default_material_ = static_cast<uint32_t>(scene_.materials.size());
  scene_.materials.push_back(convert_material(default_gltf_material_, default_material_));
}

}  // namespace bindery::gltf
