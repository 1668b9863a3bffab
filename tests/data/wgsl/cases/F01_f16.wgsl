// layout.md F01 (as: uniform; needs the device feature "shader-f16"). verdict: valid
enable f16;
struct H { a: f16, b: f16, v: vec3<f16>, c: f16, d: f16, e: u32 }
struct G { m2: mat2x2<f16>, m3: mat3x3<f16>, m4: mat4x4<f16> }
@group(0) @binding(0) var<uniform> h: H;
@group(0) @binding(1) var<uniform> g: G;
