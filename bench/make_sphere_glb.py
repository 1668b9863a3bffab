#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes a UV sphere of about N triangles as a binary glTF (positions, normals, uint32 indices;
# one opaque default material): the meshes of bench/raster_device.sh, whose triangles shrink on
# screen as N grows. Usage: make_sphere_glb.py TRIANGLES OUT.glb [--order rows|shuffled]
#   --order rows (default): the triangles ring by ring, each ring's quads in turn (a row-order
#     grid: good vertex reuse);
#   --order shuffled: the same triangles, each with its corners as in rows (same winding), in a
#     random order (seeded, reproducible): nearly every corner misses the GPU's post-transform
#     vertex cache, about 3 vertices shaded per triangle (bench/vertex_order_device.sh).
# A sphere whose indices pass bindery's limit of 16,777,216 elements per glTF accessor is written
# as bands of rings, one primitive each (its own vertices: a band's edge ring twice), of one mesh.
import argparse
import json
import math
import random
import struct

parser = argparse.ArgumentParser(description="UV sphere as a binary glTF")
parser.add_argument("triangles", type=int)
parser.add_argument("out")
parser.add_argument("--order", choices=["rows", "shuffled"], default="rows")
parser.add_argument("--seed", type=int, default=1, help="--order shuffled's random seed")
args = parser.parse_args()
triangles = args.triangles
out = args.out
# rings x segments quads, two triangles each (the pole rows are triangles fans of degenerate
# quads, skipped): T = 2 * segments * (rings - 1).
segments = max(8, int(math.sqrt(triangles)))
rings = max(4, triangles // (2 * segments) + 1)
kMaxIndices = 15_000_000  # below bindery's 16,777,216 elements per accessor
bands = max(1, -(-(6 * segments * rings) // kMaxIndices))


def band(first, last):
    """Rings [first, last) of quads: vertices of rings first..last, their triangles."""
    positions, indices = [], []
    for r in range(first, last + 1):
        theta = math.pi * r / rings
        for s in range(segments + 1):
            phi = 2 * math.pi * s / segments
            positions.append((math.sin(theta) * math.cos(phi), math.cos(theta),
                              math.sin(theta) * math.sin(phi)))
    for r in range(first, last):
        for s in range(segments):
            a = (r - first) * (segments + 1) + s
            b = a + segments + 1
            # counter-clockwise seen from outside
            if r != 0:
                indices += [a, a + 1, b]
            if r != rings - 1:
                indices += [a + 1, b + 1, b]
    if args.order == "shuffled":
        tris = [indices[i : i + 3] for i in range(0, len(indices), 3)]
        random.Random(args.seed + first).shuffle(tris)
        indices = [i for t in tris for i in t]
    return positions, indices


binary = b""
views, accessors, primitives = [], [], []
total_triangles = total_vertices = 0


def add_view(data, target):
    global binary
    views.append({"buffer": 0, "byteOffset": len(binary), "byteLength": len(data), "target": target})
    binary += data
    return len(views) - 1


for k in range(bands):
    positions, indices = band(rings * k // bands, rings * (k + 1) // bands)
    pos = b"".join(struct.pack("<3f", *p) for p in positions)  # unit sphere: normal = position
    idx = struct.pack(f"<{len(indices)}I", *indices)
    p_view, n_view, i_view = add_view(pos, 34962), add_view(pos, 34962), add_view(idx, 34963)
    lo = [min(p[c] for p in positions) for c in range(3)]
    hi = [max(p[c] for p in positions) for c in range(3)]
    accessors += [
        {"bufferView": p_view, "componentType": 5126, "count": len(positions), "type": "VEC3",
         "min": lo, "max": hi},
        {"bufferView": n_view, "componentType": 5126, "count": len(positions), "type": "VEC3"},
        {"bufferView": i_view, "componentType": 5125, "count": len(indices), "type": "SCALAR"},
    ]
    primitives.append({"attributes": {"POSITION": 3 * k, "NORMAL": 3 * k + 1}, "indices": 3 * k + 2})
    total_triangles += len(indices) // 3
    total_vertices += len(positions)
gltf = {
    "asset": {"version": "2.0", "generator": "bindery bench/make_sphere_glb.py"},
    "scene": 0,
    "scenes": [{"nodes": [0]}],
    "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": primitives}],
    "buffers": [{"byteLength": len(binary)}],
    "bufferViews": views,
    "accessors": accessors,
}
text = json.dumps(gltf).encode()
text += b" " * (-len(text) % 4)
binary += b"\0" * (-len(binary) % 4)
with open(out, "wb") as f:
    f.write(struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(text) + 8 + len(binary)))
    f.write(struct.pack("<II", len(text), 0x4E4F534A) + text)
    f.write(struct.pack("<II", len(binary), 0x004E4942) + binary)
print(f"{out}: {total_triangles} triangles, {total_vertices} vertices, {args.order} order, "
      f"{bands} primitive(s)")
