// SPDX-License-Identifier: MIT
// The article's animation as a producer of object-table transforms on the GPU (--strategy
// gpu-driven with the cube scene): one invocation per object writes the world matrix of the
// frame's time into the object's record (bindery/gpu_driven/object_table.hpp); culling and
// drawing then read the table like any other scene's.
// @include object_animation.wgsl
// @include object_record.wgsl

struct AnimateFrame {
  time: f32,
  objectCount: u32,
};

@group(0) @binding(0) var<uniform> animate: AnimateFrame;
@group(0) @binding(1) var<storage, read> inputs: array<ObjectInput>;
@group(0) @binding(2) var<storage, read_write> objects: array<ObjectRecord>;

@compute @workgroup_size(64)
fn animate_objects(@builtin(global_invocation_id) id: vec3u,
                   @builtin(num_workgroups) groups: vec3u) {
  let i = linear_index(id, groups);
  if (i >= animate.objectCount) {
    return;
  }
  objects[i].world_rows = world_rows(inputs[i], animate.time);
}
