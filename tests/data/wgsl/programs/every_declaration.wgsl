// Whole-program coverage for bindery's reflector: one module with every global declaration kind
// of the WGSL grammar (global_directive: diagnostic, enable, requires; global_decl: var, const,
// override, alias, struct, fn, const_assert, and the empty ';'), written for bindery's tests.
// The enable directive names no extension the device must offer: f16 lives in its own file.
diagnostic(off, derivative_uniformity);
requires readonly_and_readwrite_storage_textures;

/* A block comment /* with a nested one */ still open here
   across lines */

const TILE: u32 = 4u;
const LIGHTS = TILE * 2u - 1u;                  // 7, an abstract-int expression
const SHIFTED = (1u << 4u) | 2u;                // 18
const ALIGN_WIDE = 2 * 16;                      // 32, used in @align
const PADDED = max(LIGHTS, 5u) + min(3u, 9u);   // 10, builtin functions in a const expression
const SCALE: f32 = 0.5;
override EXPOSURE: f32 = 1.0;
@id(7) override QUALITY: u32 = 2u;
override WORKGROUP_X: u32 = 8u;
const_assert LIGHTS == 7u;
;

alias Colour = vec4<f32>;
alias Index = u32;
alias LightArray = array<Light, LIGHTS>;

struct Light {
  position: vec3f,
  range: f32,
  colour: Colour,
}

struct Frame {
  view_projection: mat4x4<f32>,
  lights: LightArray,                            // array<Light, 7>: 7 * 32 bytes
  @align(ALIGN_WIDE) light_count: Index,         // @align from a const expression
  @size(SHIFTED - 2u) exposure: f32,             // @size(16)
  weights: array<vec4<f32>, PADDED / 5u>,        // 2 elements
}

struct Particle {
  position: vec4<f32>,
  velocity: vec3<f32>,
  age: f32,
}

struct Particles {
  count: atomic<u32>,
  dropped: atomic<i32>,
  items: array<Particle>,
}

struct VertexOut {
  @builtin(position) @invariant clip: vec4<f32>,
  @location(0) @interpolate(flat) light: u32,
  @location(1) @interpolate(perspective, centroid) uv: vec2<f32>,
}

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read_write> particles: Particles;
@group(1) @binding(0) var albedo: texture_2d<f32>;
@group(1) @binding(1) var albedo_sampler: sampler;
@group(1) @binding(2) var shadow: texture_depth_2d;
@group(1) @binding(3) var shadow_sampler: sampler_comparison;
@group(1) @binding(4) var volume: texture_3d<f32>;
@group(1) @binding(5) var layers: texture_2d_array<u32>;
@group(1) @binding(6) var sky: texture_cube<f32>;
@group(1) @binding(7) var msaa: texture_multisampled_2d<f32>;
@group(2) @binding(0) var out_image: texture_storage_2d<rgba8unorm, write>;
@group(2) @binding(1) var history: texture_storage_2d<r32float, read_write>;
@group(2) @binding(2) var counts: texture_storage_1d<r32uint, read>;
var<private> seed: u32 = 17u;
var<workgroup> tile: array<vec4<f32>, TILE * TILE>;
var<workgroup> tile_sum: atomic<u32>;

@must_use
fn hash(x: u32) -> u32 {
  var h = x * 747796405u + 2891336453u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  return (h >> 22u) ^ h;
}

fn light_at(i: Index) -> Light {
  return frame.lights[min(i, LIGHTS - 1u)];
}

@vertex
fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) inst: u32) -> VertexOut {
  var out: VertexOut;
  let corner = vec2<f32>(f32(v & 1u), f32(v >> 1u));
  out.clip = frame.view_projection * vec4<f32>(corner * SCALE, 0.0, 1.0);
  out.light = hash(inst) % frame.light_count;
  out.uv = corner;
  return out;
}

@fragment
fn fs(v_in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
  let l = light_at(v_in.light);
  let base = textureSample(albedo, albedo_sampler, v_in.uv);
  let lit = textureSampleCompare(shadow, shadow_sampler, v_in.uv, 0.5);
  let sky_colour = textureSample(sky, albedo_sampler, vec3<f32>(v_in.uv, 1.0));
  let vol = textureSample(volume, albedo_sampler, vec3<f32>(v_in.uv, 0.5));
  let layer = textureLoad(layers, vec2<i32>(0, 0), 0, 0);
  let ms = textureLoad(msaa, vec2<i32>(0, 0), 0);
  let facing = select(0.5, 1.0, front);
  return (base * l.colour * lit + sky_colour * 0.0 + vol * 0.0 + ms * 0.0 + f32(layer.x) * 0.0) *
         frame.exposure * EXPOSURE * facing * f32(QUALITY);
}

@compute @workgroup_size(WORKGROUP_X, TILE / 2u, 1)
fn simulate(@builtin(local_invocation_index) local: u32,
            @builtin(global_invocation_id) gid: vec3<u32>) {
  tile[local % (TILE * TILE)] = vec4<f32>(f32(gid.x));
  atomicAdd(&tile_sum, 1u);
  workgroupBarrier();
  let n = arrayLength(&particles.items);
  if (gid.x < n) {
    particles.items[gid.x].age += 1.0;
    seed = hash(seed + gid.x);
    atomicAdd(&particles.count, 1u);
  } else {
    atomicAdd(&particles.dropped, 1);
  }
  let h = textureLoad(history, vec2<i32>(gid.xy));
  let c = textureLoad(counts, i32(gid.x));
  textureStore(history, vec2<i32>(gid.xy), h + vec4<f32>(f32(c.x)));
  textureStore(out_image, vec2<i32>(gid.xy), tile[0]);
}
