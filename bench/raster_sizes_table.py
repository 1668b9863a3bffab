#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The table "what a triangle costs each rasterizer, by size" of docs/BENCHMARKS.md ("Compute
# rasterizer") from the outputs of `bench/raster_device.sh spheres` (unpacked spheres.tar.gz) or
# `bench/lod_device.sh sizes` (lod_sizes.tar.gz):
# per sphere, the triangles both rasterizers were given, the pixels covered (not the clear
# colour) in the hardware PNG, pixels per front-facing triangle, the GPU ms of each path and the
# pixels the two images differ on. Standard library only (bindery's PNGs: 8-bit RGBA).
# Usage: python3 bench/raster_sizes_table.py DIR
import json
import os
import re
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour == 6, "8-bit RGBA only"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * 4, [], bytearray(width * 4)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b, c = prev[i], (prev[i - 4] if i >= 4 else 0)
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def report(path):
    return json.loads([l for l in open(path) if l.startswith("{")][0])


folder = sys.argv[1]
print("| spheres | triangles | pixels covered | px per front-facing triangle | hardware ms | "
      "hw ns/triangle | compute ms (raster + phase) | compute ns/triangle | speed-up | "
      "pixels > 2 levels off | pixels off at all |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
# Every sphere run of the folder with both rasterizers (sphereT_xN_{hardware,compute}.txt/.png:
# bench/raster_device.sh spheres, bench/lod_device.sh sizes), by triangles then copies.
runs = sorted({(int(m.group(1)), int(m.group(2))) for f in os.listdir(folder)
               if (m := re.fullmatch(r"sphere(\d+)_x(\d+)_hardware\.txt", f))})
for t, n in runs:
    if not os.path.exists(f"{folder}/sphere{t}_x{n}_compute.png"):
        continue
    name = f"{folder}/sphere{t}_x{n}"
    hw, cs = report(name + "_hardware.txt"), report(name + "_compute.txt")
    w, h, a = read_png(name + "_hardware.png")
    _, _, b = read_png(name + "_compute.png")
    clear = a[0][0:3]
    covered = far = off = 0
    for y in range(h):
        for x in range(0, 4 * w, 4):
            pa, pb = a[y][x:x + 3], b[y][x:x + 3]
            covered += pa != clear
            d = max(abs(pa[k] - pb[k]) for k in range(3))
            far += d > 2
            off += d > 0
    tris = hw["trianglesSubmitted"]
    hw_ms = hw["timing_ms"]["gpu_spans_median"]["phase1"]
    r, p = (cs["timing_ms"]["gpu_spans_median"][k] for k in ("raster", "phase1"))
    print(f"| {t // 1000}k x{n} | {tris} | {covered} | {covered / (tris / 2):.3f} | "
          f"{hw['timing_ms']['gpu_median']:.3f} | {hw_ms / tris * 1e6:.3f} | "
          f"{cs['timing_ms']['gpu_median']:.3f} ({r:.3f} + {p:.3f}) | {(r + p) / tris * 1e6:.3f} | "
          f"{hw_ms / (r + p):.1f}x | {far / (w * h) * 100:.4f}% | {off / (w * h) * 100:.4f}% |")
