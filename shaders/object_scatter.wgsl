// SPDX-License-Identifier: MIT
// ObjectTable::flush()'s scatter (include/bindery/gpu_driven/object_table.hpp): the records that
// changed since the last flush arrive packed (records[i] belongs to the object in the low 31 bits
// of indices.ids[i]) and one invocation per slot writes it into the table: the whole record when
// bit 31 (kWriteRows) is set, else only mesh, material, flags and user (a set_material or set_mesh
// without a new transform: the CPU keeps no transforms). Slots a writer thread claimed but left
// unused hold 0xffffffff, an id past the table, and are skipped. 64-wide workgroups in rows of at most
// maxComputeWorkgroupsPerDimension workgroups, a second dimension for the rest; the invocation's
// index is rebuilt from the grid (num_workgroups), and indices past `count` do nothing.

// @include object_record.wgsl

// The changed objects' ids: `count` of them (the rest of the buffer is stale).
struct ScatterIndices {
  count: u32,
  ids: array<u32>,
};

@group(0) @binding(0) var<storage, read> indices: ScatterIndices;
@group(0) @binding(1) var<storage, read> records: array<ObjectRecord>;
@group(0) @binding(2) var<storage, read_write> table: array<ObjectRecord>;

const kScatterWorkgroupSize = 64u;
const kWriteRows = 0x80000000u;

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = id.x + id.y * groups.x * kScatterWorkgroupSize;
  if (i >= indices.count) {
    return;
  }
  let word = indices.ids[i];
  let object = word & ~kWriteRows;
  if (object >= arrayLength(&table)) {
    return;
  }
  let r = records[i];
  if ((word & kWriteRows) != 0u) {
    table[object] = r;
  } else {
    table[object].mesh = r.mesh;
    table[object].material = r.material;
    table[object].flags = r.flags;
    table[object].user = r.user;
  }
}
