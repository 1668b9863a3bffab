#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/data/gltf/relatives/*.gltf: relatives of the shared glTF cases (G06..G13 in this
folder, copied from ../shared/cases/inputs/) that tests/gltf_cases_device_test.cpp and
tests/gltf_loader_test.cpp load. Each file is one small glTF 2.0 model with base64 buffers (and
PNG images written here, with zlib) whose expected picture follows from the specification: most
are "the same image as" a control in this folder or in relatives/, the rest have counts worked out
in the test that reads them. Deterministic: running it again writes the same bytes.

    python3 tests/data/gltf/make_relatives.py
"""
import base64
import copy
import json
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "relatives")

BYTE, UBYTE, SHORT, USHORT, UINT, FLOAT = 5120, 5121, 5122, 5123, 5125, 5126
PACK = {BYTE: "b", UBYTE: "B", SHORT: "h", USHORT: "H", UINT: "I", FLOAT: "f"}
COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}


class Gltf:
    """A glTF 2.0 document under construction with one binary buffer (a data URI)."""

    def __init__(self):
        self.j = {"asset": {"version": "2.0", "generator": "bindery tests/data/gltf/make_relatives.py"},
                  "scene": 0, "scenes": [{"nodes": []}], "nodes": [], "meshes": [],
                  "accessors": [], "bufferViews": [], "buffers": []}
        self.bin = bytearray()

    def view(self, data, stride=None, target=None):
        while len(self.bin) % 4:
            self.bin.append(0)
        v = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if stride:
            v["byteStride"] = stride
        if target:
            v["target"] = target
        self.bin += data
        self.j["bufferViews"].append(v)
        return len(self.j["bufferViews"]) - 1

    @staticmethod
    def pack(values, ctype, ncomp, stride=None):
        """Elements of `ncomp` components, each element padded to `stride` bytes when given."""
        out = bytearray()
        size = struct.calcsize("<" + PACK[ctype])
        for i in range(0, len(values), ncomp):
            elem = struct.pack("<" + PACK[ctype] * ncomp, *values[i:i + ncomp])
            out += elem + bytes((stride or len(elem)) - len(elem))
        assert size * ncomp <= (stride or size * ncomp)
        return bytes(out)

    def accessor(self, values, ctype, type_, normalized=False, vertex=True, view=True,
                 minmax=False, count=None):
        n = COMPONENTS[type_]
        a = {"componentType": ctype, "type": type_,
             "count": count if count is not None else len(values) // n}
        if normalized:
            a["normalized"] = True
        if view:
            elem = struct.calcsize("<" + PACK[ctype]) * n
            # Vertex attributes start on 4-byte boundaries (glTF 2.0 "Data Alignment").
            stride = (elem + 3) // 4 * 4 if vertex and elem % 4 else None
            a["bufferView"] = self.view(self.pack(values, ctype, n, stride), stride)
        if minmax:
            a["min"] = [min(values[i::n]) for i in range(n)]
            a["max"] = [max(values[i::n]) for i in range(n)]
        self.j["accessors"].append(a)
        return len(self.j["accessors"]) - 1

    def sparse(self, accessor, indices, index_type, values):
        a = self.j["accessors"][accessor]
        n = COMPONENTS[a["type"]]
        a["sparse"] = {"count": len(indices),
                       "indices": {"bufferView": self.view(self.pack(indices, index_type, 1)),
                                   "componentType": index_type},
                       "values": {"bufferView": self.view(self.pack(values, a["componentType"], n))}}

    def mesh(self, primitives):
        self.j["meshes"].append({"primitives": primitives})
        return len(self.j["meshes"]) - 1

    def node(self, root=True, **fields):
        self.j["nodes"].append(fields)
        index = len(self.j["nodes"]) - 1
        if root:
            self.j["scenes"][0]["nodes"].append(index)
        return index

    def material(self, **fields):
        self.j.setdefault("materials", []).append(fields)
        return len(self.j["materials"]) - 1

    def texture(self, png, sampler):
        """A texture of `png` (bytes, in a bufferView) with sampler fields `sampler` (a dict)."""
        img = {"bufferView": self.view(png), "mimeType": "image/png"}
        self.j.setdefault("images", []).append(img)
        self.j.setdefault("samplers", []).append(sampler)
        self.j.setdefault("textures", []).append(
            {"source": len(self.j["images"]) - 1, "sampler": len(self.j["samplers"]) - 1})
        return len(self.j["textures"]) - 1

    def extensions(self, used, required=()):
        self.j["extensionsUsed"] = list(used)
        if required:
            self.j["extensionsRequired"] = list(required)

    def write(self, name):
        self.j["buffers"] = [{"byteLength": len(self.bin), "uri": "data:application/octet-stream;base64,"
                              + base64.b64encode(bytes(self.bin)).decode()}]
        with open(os.path.join(OUT, name), "w") as f:
            json.dump(self.j, f, indent=1)
            f.write("\n")


# --- PNG (ISO/IEC 15948): IHDR, optional PLTE/tRNS, one IDAT, IEND -----------------------------

def png(width, height, color_type, bit_depth, rows, palette=None, trns=None):
    """`rows`: one bytes object per row, already in the colour type's sample layout."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\x00" + r for r in rows)  # filter type 0 (None) on every row
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0))
    if palette is not None:
        out += chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    if trns is not None:
        out += chunk(b"tRNS", bytes(trns))
    out += chunk(b"IDAT", zlib.compress(raw, 9))
    return out + chunk(b"IEND", b"")


def png_rgba8(width, height, pixels):
    """pixels: width*height (r, g, b, a) tuples, row-major from the top."""
    rows = [b"".join(bytes(pixels[y * width + x]) for x in range(width)) for y in range(height)]
    return png(width, height, 6, 8, rows)


RED, BLUE, WHITE, GREEN = (255, 0, 0, 255), (0, 0, 255, 255), (255, 255, 255, 255), (0, 255, 0, 255)


# --- The shared cases' geometry ----------------------------------------------------------------

def case(name):
    with open(os.path.join(HERE, name)) as f:
        return json.load(f)


def case_buffer(j):
    uri = j["buffers"][0]["uri"]
    return base64.b64decode(uri[uri.index(",") + 1:])


def case_floats(j, accessor):
    a = j["accessors"][accessor]
    v = j["bufferViews"][a["bufferView"]]
    data = case_buffer(j)[v["byteOffset"]:v["byteOffset"] + v["byteLength"]]
    n = a["count"] * COMPONENTS[a["type"]]
    fmt = "<" + PACK[a["componentType"]] * n
    return list(struct.unpack(fmt, data[:struct.calcsize(fmt)]))


CUBE = case("G07a_cube.gltf")
CUBE_POS, CUBE_NRM, CUBE_IDX = (case_floats(CUBE, i) for i in range(3))

# G06a's quad: y = 0, x and z in 0..1, counter-clockwise seen from +y (its computed normal).
QUAD_XZ = [0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0]
QUAD_XZ_IDX = [0, 1, 2, 0, 2, 3]

# G08c's quad: z = 0, x and y in 0..1, counter-clockwise seen from +z, normals +z.
FRONT = case("G08c_quad_front_control.gltf")
FRONT_POS, FRONT_NRM, FRONT_IDX = (case_floats(FRONT, i) for i in range(3))
FRONT_COLOR = [0.2, 0.7, 0.3]


def write_quad_xz(name, mode, indices=None, index_type=USHORT, positions=QUAD_XZ):
    g = Gltf()
    prim = {"attributes": {"POSITION": g.accessor(positions, FLOAT, "VEC3", minmax=True)},
            "mode": mode}
    if indices is not None:
        prim["indices"] = g.accessor(indices, index_type, "SCALAR", vertex=False)
    g.node(mesh=g.mesh([prim]))
    g.write(name)


def write_cube(name, node=None, parent=None, color=None, material=None, positions=None,
               normals=None, extensions=None, drop_texcoord=False):
    """G07a's cube (or G09a's, without material); `color`: (values, componentType, type, norm)."""
    g = Gltf()
    pos = positions or (CUBE_POS, FLOAT, False)
    nrm = normals or (CUBE_NRM, FLOAT, False)
    attrs = {"POSITION": g.accessor(pos[0], pos[1], "VEC3", normalized=pos[2], minmax=True),
             "NORMAL": g.accessor(nrm[0], nrm[1], "VEC3", normalized=nrm[2])}
    if color:
        attrs["COLOR_0"] = g.accessor(color[0], color[1], color[2], normalized=color[3])
    prim = {"attributes": attrs, "indices": g.accessor(CUBE_IDX, USHORT, "SCALAR", vertex=False)}
    if material is not None:
        prim["material"] = g.material(**material)
    mesh = g.mesh([prim])
    if parent is not None:
        child = g.node(root=False, mesh=mesh, **(node or {}))
        g.node(children=[child], **parent)
    else:
        g.node(mesh=mesh, **(node or {}))
    if extensions:
        g.extensions(*extensions)
    g.write(name)
    return g


G07_MATERIAL = {"pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.6, 0.2, 1]}}


def front_quad(g, positions=None, indices=None, normals=None, material=None, texcoords=None,
               texcoord_type=(FLOAT, False), extra_attrs=None):
    attrs = {"POSITION": g.accessor(positions or FRONT_POS, FLOAT, "VEC3", minmax=True),
             "NORMAL": g.accessor(normals or FRONT_NRM, FLOAT, "VEC3")}
    if texcoords is not None:
        attrs["TEXCOORD_0"] = g.accessor(texcoords, texcoord_type[0], "VEC2",
                                         normalized=texcoord_type[1])
    attrs.update(extra_attrs or {})
    prim = {"attributes": attrs,
            "indices": g.accessor(indices or FRONT_IDX, USHORT, "SCALAR", vertex=False)}
    if material is not None:
        prim["material"] = g.material(**material)
    return g.mesh([prim])


def front_material(alpha=1.0, texture=None, roughness=None, **fields):
    pbr = {"baseColorFactor": FRONT_COLOR + [alpha]}
    if texture is not None:
        pbr["baseColorFactor"] = [1, 1, 1, alpha]
        pbr["baseColorTexture"] = {"index": texture}
    if roughness is not None:
        pbr["roughnessFactor"] = roughness
    return dict(pbrMetallicRoughness=pbr, **fields)


# The front quad's texcoords: u = x, v = 1 - y (v = 0 is the image's top row), times `scale`.
def front_uv(scale_u=1.0):
    return [c for i in range(4)
            for c in (FRONT_POS[3 * i] * scale_u, 1.0 - FRONT_POS[3 * i + 1])]


NEAREST = {"magFilter": 9728, "minFilter": 9728}


def write_textured_quad(name, png_bytes, sampler, uv_scale=1.0, alpha_mode=None, texcoord_type=None,
                        texcoords=None, texcoord_set=0, extensions=None):
    g = Gltf()
    tex = g.texture(png_bytes, sampler)
    fields = {}
    if alpha_mode:
        fields["alphaMode"] = alpha_mode
    mat = front_material(texture=tex, roughness=0.0, **fields)
    uv = texcoords if texcoords is not None else front_uv(uv_scale)
    if texcoord_set:
        mat["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"] = texcoord_set
        extra = {f"TEXCOORD_{texcoord_set}": g.accessor(front_uv(uv_scale), FLOAT, "VEC2")}
        g.node(mesh=front_quad(g, material=mat, texcoords=[9.5] * 8, extra_attrs=extra))
    else:
        g.node(mesh=front_quad(g, material=mat, texcoords=uv,
                               texcoord_type=texcoord_type or (FLOAT, False)))
    if extensions:
        g.extensions(*extensions)
    g.write(name)


def main():
    os.makedirs(OUT, exist_ok=True)

    # G06 (topologies): each draws G06a's unit quad, so the same image as G06a.
    write_quad_xz("quad_triangles_unindexed.gltf", 4,
                  positions=[QUAD_XZ[3 * i + c] for i in QUAD_XZ_IDX for c in range(3)])
    write_quad_xz("quad_triangles_u8.gltf", 4, QUAD_XZ_IDX, UBYTE)
    write_quad_xz("quad_triangles_u32.gltf", 4, QUAD_XZ_IDX, UINT)
    # Strip (v0, v1, v3, v2): triangles (v0, v1, v3) and (v1, v2, v3), both counter-clockwise.
    write_quad_xz("quad_strip_u8.gltf", 5, [0, 1, 3, 2], UBYTE)
    write_quad_xz("quad_strip_u32.gltf", 5, [0, 1, 3, 2], UINT)
    # Six vertices, four strip triangles; the odd ones only face +y with the i%2 swap.
    write_quad_xz("quad_strip_6_unindexed.gltf", 5,
                  positions=[0, 0, 0, 0, 0, 1, 0.5, 0, 0, 0.5, 0, 1, 1, 0, 0, 1, 0, 1])
    write_quad_xz("quad_fan_unindexed.gltf", 6)
    write_quad_xz("quad_fan_u8.gltf", 6, [0, 1, 2, 3], UBYTE)
    write_quad_xz("quad_fan_u32.gltf", 6, [0, 1, 2, 3], UINT)
    write_quad_xz("quad_lines_only.gltf", 1, [0, 1, 1, 2, 2, 3, 3, 0])
    # Points and triangles in one mesh: the points are skipped, the triangles drawn.
    g = Gltf()
    pos = g.accessor(QUAD_XZ, FLOAT, "VEC3", minmax=True)
    g.node(mesh=g.mesh([{"attributes": {"POSITION": pos}, "mode": 0},
                        {"attributes": {"POSITION": pos},
                         "indices": g.accessor(QUAD_XZ_IDX, USHORT, "SCALAR", vertex=False)}]))
    g.write("quad_points_and_triangles.gltf")

    # G09 (accessors): sparse positions without a base, sparse over a wrong base.
    g = Gltf()
    pos = g.accessor(QUAD_XZ, FLOAT, "VEC3", view=False, minmax=True)
    g.sparse(pos, [0, 1, 2, 3], UBYTE, QUAD_XZ)
    g.node(mesh=g.mesh([{"attributes": {"POSITION": pos},
                         "indices": g.accessor(QUAD_XZ_IDX, USHORT, "SCALAR", vertex=False)}]))
    g.write("quad_sparse_no_bufferview.gltf")
    g = Gltf()
    wrong = list(QUAD_XZ)
    wrong[6:9] = [5, 0, 5]
    pos = g.accessor(wrong, FLOAT, "VEC3")
    g.j["accessors"][pos]["min"], g.j["accessors"][pos]["max"] = [0, 0, 0], [1, 0, 1]
    g.sparse(pos, [2], USHORT, [1, 0, 1])
    g.node(mesh=g.mesh([{"attributes": {"POSITION": pos},
                         "indices": g.accessor(QUAD_XZ_IDX, USHORT, "SCALAR", vertex=False)}]))
    g.write("quad_sparse_over_base_u16.gltf")
    # G09a without its TEXCOORD_0: the control (texcoords are zeros either way).
    j = case("G09a_texcoord_no_bufferview.gltf")
    del j["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"]
    j["accessors"].pop()
    with open(os.path.join(OUT, "cube_no_texcoord.gltf"), "w") as f:
        json.dump(j, f, indent=1)
        f.write("\n")

    # KHR_mesh_quantization: integer positions (SHORT, not normalized) of the quad.
    for name, ext in (("quad_quantized_short.gltf", True),
                      ("quad_quantized_short_undeclared.gltf", False)):
        g = Gltf()
        pos = g.accessor([int(v) for v in QUAD_XZ], SHORT, "VEC3", minmax=True)
        g.node(mesh=g.mesh([{"attributes": {"POSITION": pos},
                             "indices": g.accessor(QUAD_XZ_IDX, USHORT, "SCALAR", vertex=False)}]))
        if ext:
            g.extensions(["KHR_mesh_quantization"], ["KHR_mesh_quantization"])
        g.write(name)
    # The cube with normalized BYTE positions (+-127 -> +-1) under a node scale of 0.5, and
    # normalized BYTE normals (+-127 -> +-1): G07a's cube exactly.
    write_cube("cube_quantized_byte.gltf", node={"scale": [0.5, 0.5, 0.5]}, material=G07_MATERIAL,
               positions=([round(v * 2 * 127) for v in CUBE_POS], BYTE, True),
               normals=([round(v * 127) for v in CUBE_NRM], BYTE, True),
               extensions=(["KHR_mesh_quantization"], ["KHR_mesh_quantization"]))

    # G07 (mirroring): determinants -1 (z by a matrix), +1 (x and y), +1 (x parent, y child).
    write_cube("cube_mirror_z_matrix.gltf",
               node={"matrix": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1]},
               material=G07_MATERIAL)
    write_cube("cube_mirror_xy.gltf", node={"scale": [-1, -1, 1]}, material=G07_MATERIAL)
    write_cube("cube_mirror_nested.gltf", node={"scale": [1, -1, 1]},
               parent={"scale": [-1, 1, 1]}, material=G07_MATERIAL)
    write_cube("cube_mirror_x_parent.gltf", parent={"scale": [-1, 1, 1]}, material=G07_MATERIAL)

    # G07/G08 with an asymmetric shape: the front quad under scale (-1, 1, 1), and the control
    # with those positions written out (x negated) and the winding reversed to stay
    # counter-clockwise seen from +z.
    g = Gltf()
    g.node(mesh=front_quad(g, material=front_material()), scale=[-1, 1, 1])
    g.write("front_quad_mirrored_x.gltf")
    g = Gltf()
    mirrored = [-v if i % 3 == 0 else v for i, v in enumerate(FRONT_POS)]
    reversed_idx = [FRONT_IDX[t + k] for t in range(0, len(FRONT_IDX), 3) for k in (0, 2, 1)]
    g.node(mesh=front_quad(g, positions=mirrored, indices=reversed_idx, material=front_material()))
    g.write("front_quad_premirrored.gltf")
    # G08b (double-sided, facing away) under the same mirror: the same image as the control.
    back = case("G08b_quad_back_double_sided.gltf")
    back["nodes"][0]["scale"] = [-1, 1, 1]
    with open(os.path.join(OUT, "back_quad_double_sided_mirrored_x.gltf"), "w") as f:
        json.dump(back, f, indent=1)
        f.write("\n")

    # G13 (COLOR_0): (0.9, 0.1, 0.1) as unorm8 VEC4 (230, 26, 26, 255 = round(x * 255)), unorm16
    # VEC3 (58982, 6554 = round(x * 65535)) and float VEC3. G13's float32 0.9 is 0.89999998, so
    # 229.49999 -> 229 in the unorm8 vertex colour, the others 230: within 1 of G13's image. Then
    # vertex colour x base colour, and the base colour alone.
    write_cube("cube_color_u8_vec4.gltf", color=([230, 26, 26, 255] * 24, UBYTE, "VEC4", True))
    write_cube("cube_color_u16_vec3.gltf", color=([58982, 6554, 6554] * 24, USHORT, "VEC3", True))
    write_cube("cube_color_float_vec3.gltf", color=([0.9, 0.1, 0.1] * 24, FLOAT, "VEC3", False))
    write_cube("cube_color_times_material.gltf",
               color=([1.0, 0.5, 0.5] * 24, FLOAT, "VEC3", False),
               material={"pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.2, 0.2, 1]}})
    write_cube("cube_red_material.gltf",
               material={"pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.1, 0.1, 1]}})
    g = write_cube("cube_color_sparse_u32.gltf", color=([255] * 96, UBYTE, "VEC4", True))
    g.sparse(2, list(range(24)), UINT, [230, 26, 26, 255] * 24)
    g.write("cube_color_sparse_u32.gltf")
    write_cube("cube_color_unnormalized_u8.gltf", color=([230, 26, 26, 255] * 24, UBYTE, "VEC4",
                                                         False))

    # Alpha modes on G08c's quad (alpha of the base colour factor).
    for name, alpha, fields in (("front_quad_mask_below.gltf", 0.4, {"alphaMode": "MASK"}),
                                ("front_quad_mask_above.gltf", 0.6, {"alphaMode": "MASK"}),
                                ("front_quad_mask_cutoff_0_7.gltf", 0.6,
                                 {"alphaMode": "MASK", "alphaCutoff": 0.7}),
                                ("front_quad_opaque_alpha_0.gltf", 0.0, {}),
                                ("front_quad_blend_half.gltf", 0.5, {"alphaMode": "BLEND"})):
        g = Gltf()
        g.node(mesh=front_quad(g, material=front_material(alpha, **fields)))
        g.write(name)

    # Textures on the front quad (roughness 0: shininess 120, no visible specular).
    half_alpha = png_rgba8(2, 1, [(255, 255, 255, 0), WHITE])  # left texel transparent
    clamp_nearest = dict(NEAREST, wrapS=33071, wrapT=33071)
    write_textured_quad("tex_mask_half.gltf", half_alpha, clamp_nearest, alpha_mode="MASK")
    write_textured_quad("tex_opaque_half.gltf", half_alpha, clamp_nearest)
    red_blue = png_rgba8(2, 1, [RED, BLUE])
    for wrap, code, control in (("repeat", 10497, [RED, BLUE, RED, BLUE]),
                                ("mirror", 33648, [RED, BLUE, BLUE, RED]),
                                ("clamp", 33071, [RED, BLUE, BLUE, BLUE])):
        # u in 0..2 through the wrap mode = u in 0..1 over the 4 texels it visits.
        write_textured_quad(f"tex_wrap_{wrap}.gltf", red_blue,
                            dict(NEAREST, wrapS=code, wrapT=33071), uv_scale=2.0)
        write_textured_quad(f"tex_wrap_{wrap}_control.gltf", png_rgba8(4, 1, control),
                            clamp_nearest)
    write_textured_quad("tex_mag_nearest.gltf", red_blue, clamp_nearest)
    write_textured_quad("tex_mag_linear.gltf", red_blue,
                        {"magFilter": 9729, "minFilter": 9729, "wrapS": 33071, "wrapT": 33071})
    # A 1-texel black/white checker of 128 x 128 texels: the quad spans at most about 50 of 64
    # pixels, so every pixel minifies by more than 2 (mip level >= 1: all grey when mipmapped).
    checker = png_rgba8(128, 128, [WHITE if (x + y) % 2 else (0, 0, 0, 255)
                                   for y in range(128) for x in range(128)])
    write_textured_quad("tex_min_nearest_no_mipmaps.gltf", checker, clamp_nearest)
    write_textured_quad("tex_min_linear_mipmap_linear.gltf", checker,
                        {"magFilter": 9729, "minFilter": 9987, "wrapS": 33071, "wrapT": 33071})

    # Image formats: 2x2 images with the same colours as an RGBA8 control. 16-bit samples are
    # v8 * 257, which scale back to v8 exactly.
    colors = [RED, GREEN, BLUE, (255, 255, 255, 0)]
    write_textured_quad("tex_png_rgba8.gltf", png_rgba8(2, 2, colors), clamp_nearest,
                        alpha_mode="MASK")
    rows16 = [b"".join(struct.pack(">HHHH", *(c * 257 for c in colors[y * 2 + x]))
                       for x in range(2)) for y in range(2)]
    write_textured_quad("tex_png_rgba16.gltf", png(2, 2, 6, 16, rows16), clamp_nearest,
                        alpha_mode="MASK")
    rgb16 = [b"".join(struct.pack(">HHH", *(c * 257 for c in colors[y * 2 + x][:3]))
                      for x in range(2)) for y in range(2)]
    write_textured_quad("tex_png_rgb16.gltf", png(2, 2, 2, 16, rgb16), clamp_nearest)
    write_textured_quad("tex_png_rgb8_control.gltf",
                        png_rgba8(2, 2, [c[:3] + (255,) for c in colors]), clamp_nearest)
    palette = [c[:3] for c in colors]
    write_textured_quad("tex_png_palette_trns.gltf",
                        png(2, 2, 3, 8, [bytes([0, 1]), bytes([2, 3])], palette=palette,
                            trns=[255, 255, 255, 0]),
                        clamp_nearest, alpha_mode="MASK")
    greys = [(40, 255), (200, 255), (120, 255), (255, 0)]
    gray_alpha16 = [b"".join(struct.pack(">HH", g_ * 257, a * 257) for g_, a in greys[y * 2:y * 2 + 2])
                    for y in range(2)]
    write_textured_quad("tex_png_gray_alpha16.gltf", png(2, 2, 4, 16, gray_alpha16),
                        clamp_nearest, alpha_mode="MASK")
    write_textured_quad("tex_png_gray_alpha_control.gltf",
                        png_rgba8(2, 2, [(g_, g_, g_, a) for g_, a in greys]), clamp_nearest,
                        alpha_mode="MASK")
    # Texture coordinates: set 1 named by texCoord (set 0 holds 9.5 everywhere); normalized
    # UNSIGNED_BYTE (core) and non-normalized UNSIGNED_SHORT (KHR_mesh_quantization) with the
    # same values as tex_wrap_repeat's floats.
    write_textured_quad("tex_texcoord_set1.gltf", red_blue, dict(NEAREST, wrapS=10497, wrapT=33071),
                        uv_scale=2.0, texcoord_set=1)
    write_textured_quad("tex_texcoord_unorm8.gltf", red_blue, clamp_nearest,
                        texcoords=[round(v * 255) for v in front_uv()],
                        texcoord_type=(UBYTE, True))
    write_textured_quad("tex_texcoord_ushort.gltf", red_blue, dict(NEAREST, wrapS=10497, wrapT=33071),
                        texcoords=[int(v) for v in front_uv(2.0)], texcoord_type=(USHORT, False),
                        extensions=(["KHR_mesh_quantization"], ["KHR_mesh_quantization"]))

    # A required extension bindery does not implement, in a file that is also broken later
    # (accessor 0 points at a bufferView that does not exist): the extension is reported first.
    g = Gltf()
    g.node(mesh=g.mesh([{"attributes": {"POSITION": g.accessor(QUAD_XZ, FLOAT, "VEC3")}}]))
    g.j["accessors"][0]["bufferView"] = 7
    g.extensions(["EXT_bindery_unknown", "KHR_mesh_quantization"],
                 ["KHR_mesh_quantization", "EXT_bindery_unknown"])
    g.write("unknown_required_extension.gltf")


if __name__ == "__main__":
    main()
