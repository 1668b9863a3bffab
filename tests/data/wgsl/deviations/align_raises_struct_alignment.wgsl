// A known deviation of wgpu-native (naga 29) from WGSL §14.4.1, kept in the corpus so that the
// verifier's prediction of it stays checked on the GPU. By the spec, AlignOf(S) is the largest
// AlignOfMember(S, i), @align included: In is 64-aligned and 128 bytes, so Out.i sits at 64 and
// Out.y at 192. naga computes AlignOf(In) from the member types only (4), puts Out.i at 4 and
// Out.y at 132 (gfx-rs/wgpu#4377); in uniform it then rejects Out (i at 4 is not a multiple of 16).
struct In { a: f32, @align(64) b: f32 }
struct Out { x: f32, i: In, y: f32 }
@group(0) @binding(0) var<storage, read_write> out_buffer: Out;
