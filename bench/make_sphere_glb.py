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
positions, normals, indices = [], [], []
for r in range(rings + 1):
    theta = math.pi * r / rings
    for s in range(segments + 1):
        phi = 2 * math.pi * s / segments
        n = (math.sin(theta) * math.cos(phi), math.cos(theta), math.sin(theta) * math.sin(phi))
        positions.append(n)
        normals.append(n)
for r in range(rings):
    for s in range(segments):
        a = r * (segments + 1) + s
        b = a + segments + 1
        # counter-clockwise seen from outside
        if r != 0:
            indices += [a, a + 1, b]
        if r != rings - 1:
            indices += [a + 1, b + 1, b]
if args.order == "shuffled":
    tris = [indices[i : i + 3] for i in range(0, len(indices), 3)]
    random.Random(args.seed).shuffle(tris)
    indices = [i for t in tris for i in t]
pos = b"".join(struct.pack("<3f", *p) for p in positions)
nor = b"".join(struct.pack("<3f", *n) for n in normals)
idx = struct.pack(f"<{len(indices)}I", *indices)
binary = pos + nor + idx
gltf = {
    "asset": {"version": "2.0", "generator": "bindery bench/make_sphere_glb.py"},
    "scene": 0,
    "scenes": [{"nodes": [0]}],
    "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2}]}],
    "buffers": [{"byteLength": len(binary)}],
    "bufferViews": [
        {"buffer": 0, "byteOffset": 0, "byteLength": len(pos), "target": 34962},
        {"buffer": 0, "byteOffset": len(pos), "byteLength": len(nor), "target": 34962},
        {"buffer": 0, "byteOffset": len(pos) + len(nor), "byteLength": len(idx), "target": 34963},
    ],
    "accessors": [
        {"bufferView": 0, "componentType": 5126, "count": len(positions), "type": "VEC3",
         "min": [-1, -1, -1], "max": [1, 1, 1]},
        {"bufferView": 1, "componentType": 5126, "count": len(normals), "type": "VEC3"},
        {"bufferView": 2, "componentType": 5125, "count": len(indices), "type": "SCALAR"},
    ],
}
text = json.dumps(gltf).encode()
text += b" " * (-len(text) % 4)
binary += b"\0" * (-len(binary) % 4)
with open(out, "wb") as f:
    f.write(struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(text) + 8 + len(binary)))
    f.write(struct.pack("<II", len(text), 0x4E4F534A) + text)
    f.write(struct.pack("<II", len(binary), 0x004E4942) + binary)
print(f"{out}: {len(indices) // 3} triangles, {len(positions)} vertices, {args.order} order")
