// Unicode identifiers (WGSL §3.6: XID_Start XID_Continue*), left-to-right and right-to-left marks
// as blankspace (U+200E here: "‎"), and comments in several scripts. Written for bindery's tests.
const größe: u32 = 3u;

struct Licht {
  farbe: vec3<f32>,
  stärke: f32,
  πδ: vec2<f32>,
}

struct Szene‎ {
  lichter: array<Licht, größe>,
  名前: u32,
  Ωmega: mat2x3<f32>,
}

@group(0) @binding(0) var<uniform> szene: Szene;
@group(0) @binding(1) var<storage, read_write> ergebnis: array<f32>;

@compute @workgroup_size(1)
fn rechne() {
  ergebnis[0] = szene.lichter[0].stärke + f32(szene.名前) + szene.Ωmega[1].z + szene.lichter[2].πδ.y;
}
