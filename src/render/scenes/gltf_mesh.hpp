// SPDX-License-Identifier: MIT
// src/render/gltf_mesh.hpp — what the glTF loader does to a primitive's triangles so that one
// pipeline (triangle list, cull back faces, counter-clockwise front: create_scene_pipeline) draws
// it as glTF 2.0 says, for every strategy alike. Private to bindery; tested without a device.
//
//   triangle_list()    "Meshes": TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN as one triangle list.
//   make_flat_normals() "Meshes": without NORMAL, flat normals (one vertex per triangle corner).
//   reverse_winding()  "Transformations": under a world transform with a negative determinant,
//                      clockwise triangles are front-facing; reversing the copy's winding makes
//                      them counter-clockwise again.
//   add_back_faces()   "Double Sided": no back-face culling, and back faces lit with the normal
//                      reversed. Adding every triangle again, reversed, with negated normals
//                      draws the same image as turning culling off with two-sided lighting
//                      (each side is drawn by the copy that faces the viewer, lit with the normal
//                      on the viewer's side) while keeping the one cull-back pipeline.
#pragma once

#include "bindery/render/scene.hpp"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace bindery::gltf {

/// glTF primitive.mode values (glTF 2.0, "Meshes"; 4 when absent).
inline constexpr int kPoints = 0, kLines = 1, kLineLoop = 2, kLineStrip = 3, kTriangles = 4,
                     kTriangleStrip = 5, kTriangleFan = 6;

/// "POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN";
/// "" for any other value.
std::string_view mode_name(int mode);

/// The triangle list (3 indices per triangle) of the vertex sequence `v` (the primitive's
/// indices, or 0..count-1 without indices) drawn with a triangle `mode`:
///   TRIANGLES:      triangle i = (v[3i], v[3i+1], v[3i+2]); a trailing 1 or 2 are dropped;
///   TRIANGLE_STRIP: triangle i = (v[i], v[i+1+i%2], v[i+2-i%2]) for i < n-2;
///   TRIANGLE_FAN:   triangle i = (v[i+1], v[i+2], v[0]) for i < n-2.
/// Empty when `v` holds fewer than 3 or `mode` is not one of the three.
std::vector<uint32_t> triangle_list(int mode, std::span<const uint32_t> v);

/// Reverses the winding of every triangle of a triangle list: (a, b, c) -> (a, c, b).
void reverse_winding(std::vector<uint32_t>& triangles);

/// Gives `mesh` flat normals: every triangle gets three vertices of its own whose normal is the
/// triangle's unit face normal, normalize(cross(b - a, c - a)) (counter-clockwise front); the
/// indices become 0, 1, 2, .... A triangle of zero area gets (0, 1, 0). Where the cross product
/// overflows float (edges near 1e19 or longer), it is computed in double.
void make_flat_normals(Mesh& mesh);

/// Appends the back faces of `mesh`: every vertex again with its normal negated, every triangle
/// again with its winding reversed over those vertices. Vertex and index counts double.
void add_back_faces(Mesh& mesh);

}  // namespace bindery::gltf
