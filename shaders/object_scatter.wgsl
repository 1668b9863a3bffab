// SPDX-License-Identifier: MIT
// ObjectTable::flush()'s scatter (include/bindery/gpu_driven/object_table.hpp): the objects that
// changed since the last flush arrive packed, one 64-byte StagedObject per slot, with a 256-byte
// header (the slot count and up to 31 ranges of slots writer threads claimed and left unused,
// skipped) in a buffer of its own, and one invocation per slot writes its parts into the table: the rows when the id
// word has bit 31 (kWriteRows), mesh, material and flags (user becomes 0) when it has bit 30
// (kWriteMeta), both for add() and remove(). The low 30 bits name the object; a slot with
// neither bit (an unused one past the 31 ranges) is skipped too. 64-wide workgroups in rows of at
// most maxComputeWorkgroupsPerDimension workgroups, a second dimension for the rest; the
// invocation's index is rebuilt from the grid (num_workgroups), and indices past the count do
// nothing.

// @include object_record.wgsl

// One changed object (the CPU's StagedObject in src/gpu_driven/object_table.cpp).
struct StagedObject {
  world_rows: array<vec4f, 3>,
  word: u32,
  mesh: u32,
  material: u32,
  flags: u32,
};

// The CPU's StagedHeader, 256 bytes.
struct StagedHeader {
  count: u32,                 // slots
  skip_count: u32,            // ranges in `skip`
  skip: array<vec2u, 31>,     // [x, y): slots claimed and left unused
};

@group(0) @binding(0) var<storage, read> header: StagedHeader;
@group(0) @binding(1) var<storage, read> slots: array<StagedObject>;
@group(0) @binding(2) var<storage, read_write> table: array<ObjectRecord>;

const kScatterWorkgroupSize = 64u;
const kWriteRows = 0x80000000u;
const kWriteMeta = 0x40000000u;
const kIdMask = 0x3fffffffu;

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = id.x + id.y * groups.x * kScatterWorkgroupSize;
  if (i >= header.count) {
    return;
  }
  for (var r = 0u; r < min(header.skip_count, 31u); r++) {
    if (i >= header.skip[r].x && i < header.skip[r].y) {
      return;
    }
  }
  let s = slots[i];
  let object = s.word & kIdMask;
  if (object >= arrayLength(&table)) {
    return;
  }
  if ((s.word & kWriteRows) != 0u) {
    table[object].world_rows = s.world_rows;
  }
  if ((s.word & kWriteMeta) != 0u) {
    table[object].mesh = s.mesh;
    table[object].material = s.material;
    table[object].flags = s.flags;
    table[object].user = 0u;
  }
}
