// SPDX-License-Identifier: MIT
// tests/wgsl/random_wgsl_structs.hpp — a seeded generator of random host-shareable WGSL structs for
// the layout verification (issue 11 part 3), with its own layout calculation (WGSL §14.4.1
// alignment and size table) written here independently of bindery's reflector, so a test has three
// opinions on every offset: this file's, bindery's and the GPU's.
//
// Each source holds `count` top-level structs R<seed>_<i> plus the helper structs they nest
// (struct nesting depth <= 4, arrays counting as a level). Member types: f32, i32, u32, f16 (when
// asked), every vecN and matCxR shape (long and short spellings, vec3f, mat2x4h, ...), atomics,
// arrays of scalars, vectors, matrices, structs and arrays, a trailing runtime-sized array, and
// legal @align(n) (a power of two, a multiple of AlignOf(T)) and @size(n) (>= SizeOf(T)).
// Half of the top-level structs are built to be valid in the uniform address space (array strides
// multiples of 16, @align(16) on struct and array members); the rest are unconstrained.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace bindery::test {

/// A generated struct: its WGSL name and the offsets this generator computed for its members.
struct GeneratedStruct {
  std::string name;
  uint32_t align = 0;
  uint32_t size = 0;
  std::vector<std::pair<std::string, uint32_t>> offsets;
  bool top = false;
};

struct GeneratedSource {
  std::string wgsl;
  std::vector<GeneratedStruct> structs;  ///< helpers and top-level structs, declaration order
};

class RandomStructs {
 public:
  RandomStructs(uint64_t seed, bool f16) : rng_(seed), seed_(seed), f16_(f16) {}

  /// A module source with `count` top-level structs.
  GeneratedSource generate(int count) {
    out_ = {};
    decls_.clear();
    if (f16_) decls_ += "enable f16;\n";
    for (int i = 0; i < count; ++i) {
      const bool friendly = i % 2 == 0;
      make_struct(1, friendly, /*top=*/true, "R" + std::to_string(seed_) + "_" + std::to_string(i));
    }
    out_.wgsl = decls_;
    return out_;
  }

 private:
  struct Type {
    std::string text;
    uint32_t align = 0, size = 0;
    bool runtime = false;
  };

  uint32_t pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  static uint32_t round_up(uint32_t a, uint32_t n) { return (n + a - 1) / a * a; }

  // WGSL §14.4.1: scalars 4 bytes (f16: 2); vec2 align 2*s, vec3/vec4 align 4*s; size N*s.
  Type scalar_type(bool friendly_vec) {
    const uint32_t kinds = f16_ ? 4 : 3;
    const char* names[] = {"f32", "i32", "u32", "f16"};
    const char suffix[] = {'f', 'i', 'u', 'h'};
    const uint32_t k = pick(kinds);
    const uint32_t s = k == 3 ? 2 : 4;
    const uint32_t n = friendly_vec ? 3 + pick(2) : 1 + pick(4);
    if (n == 1) return {names[k], s, s};
    Type t;
    t.align = (n == 2 ? 2 : 4) * s;
    t.size = n * s;
    t.text = chance(0.5) ? "vec" + std::to_string(n) + "<" + names[k] + ">"
                         : "vec" + std::to_string(n) + suffix[k];
    return t;
  }

  Type matrix_type() {
    const bool h = f16_ && chance(0.3);
    const uint32_t c = 2 + pick(3), r = 2 + pick(3);
    const uint32_t s = h ? 2 : 4;
    const uint32_t col_align = (r == 2 ? 2 : 4) * s;
    Type t;
    t.align = col_align;
    t.size = c * col_align;  // column stride roundUp(AlignOf(vecR), SizeOf(vecR)) = AlignOf(vecR)
    const std::string shape = "mat" + std::to_string(c) + "x" + std::to_string(r);
    t.text = chance(0.5) ? shape + (h ? "<f16>" : "<f32>") : shape + (h ? "h" : "f");
    return t;
  }

  /// A member type at struct nesting `depth` (1 = top level).
  Type member_type(int depth, bool friendly, bool allow_atomic) {
    const uint32_t roll = pick(100);
    if (roll < 40 || depth >= 3) return roll < 85 ? scalar_type(false) : matrix_type();
    if (roll < 50) return matrix_type();
    if (roll < 58 && allow_atomic) {
      Type t{chance(0.5) ? "atomic<u32>" : "atomic<i32>", 4, 4};
      return t;
    }
    if (roll < 72 && depth < 4) return array_type(depth, friendly, allow_atomic);
    if (depth < 4 && roll < 86) {
      const GeneratedStruct& s = make_struct(depth + 1, friendly, false, "");
      return {s.name, s.align, s.size};
    }
    return scalar_type(false);
  }

  Type array_type(int depth, bool friendly, bool allow_atomic) {
    Type e;
    for (int tries = 0;; ++tries) {
      e = member_type(depth + 1, friendly, allow_atomic);
      // Uniform: the element stride must be a multiple of 16.
      if (!friendly || round_up(e.align, e.size) % 16 == 0) break;
      if (tries > 4) {
        e = scalar_type(true);
        if (e.align * 1 >= 8 && round_up(e.align, e.size) % 16 == 0) break;
        e = {"vec4<f32>", 16, 16};
        break;
      }
    }
    const uint32_t n = chance(0.9) ? 1 + pick(2) : 3 + pick(2);
    Type t;
    t.align = e.align;
    t.size = n * round_up(e.align, e.size);
    t.text = "array<" + e.text + ", " + std::to_string(n) + ">";
    return t;
  }

  const GeneratedStruct& make_struct(int depth, bool friendly, bool top, std::string name) {
    if (name.empty()) name = "H" + std::to_string(seed_) + "_" + std::to_string(helpers_++);
    GeneratedStruct g;
    g.name = name;
    g.top = top;
    std::string body;
    uint32_t offset = 0, max_align = 1;
    const int members = 1 + static_cast<int>(pick(top ? 4 : 2));
    bool prev_struct_or_array = false;
    for (int m = 0; m < members; ++m) {
      const bool last = m + 1 == members;
      Type t;
      if (top && last && !friendly && chance(0.2)) {
        // A trailing runtime-sized array: storage only.
        Type e = member_type(depth + 1, false, chance(0.3));
        t.text = "array<" + e.text + ">";
        t.align = e.align;
        t.size = round_up(e.align, e.size);
        t.runtime = true;
      } else {
        t = member_type(depth, friendly, !friendly && chance(0.4));
      }
      const bool aggregate = t.text.rfind("array", 0) == 0 || t.text[0] == 'H';
      uint32_t align = t.align, size = t.size;
      std::string attrs;
      if (friendly && (aggregate || m == 0 || prev_struct_or_array)) {
        // Uniform: struct and array members at multiples of 16; a struct member's size is then a
        // multiple of 16 too (its first member is @align(16)), so the next member is far enough.
        align = std::max<uint32_t>(16, align);
        attrs += "@align(" + std::to_string(align) + ") ";
      } else if (chance(0.15)) {
        align = t.align << pick(3);
        attrs += "@align(" + std::to_string(align) + ") ";
      }
      if (!t.runtime && chance(0.15)) {
        const uint32_t extra[] = {0, 2, 4, 8, 12, 16, 20};
        size = t.size + extra[pick(7)];
        if (friendly && aggregate) size = round_up(16, size);
        attrs += "@size(" + std::to_string(size) + ") ";
      }
      offset = round_up(align, offset);
      const std::string member = "m" + std::to_string(m);
      g.offsets.push_back({member, offset});
      body += "  " + attrs + member + ": " + t.text + ",\n";
      offset += size;
      max_align = std::max(max_align, align);
      prev_struct_or_array = aggregate;
    }
    g.align = max_align;
    g.size = round_up(max_align, offset);
    decls_ += "struct " + name + " {\n" + body + "}\n";
    out_.structs.push_back(g);
    return out_.structs.back();
  }

  std::mt19937_64 rng_;
  uint64_t seed_;
  bool f16_;
  uint32_t helpers_ = 0;
  std::string decls_;
  GeneratedSource out_;
};

}  // namespace bindery::test
