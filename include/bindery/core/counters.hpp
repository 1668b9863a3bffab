// SPDX-License-Identifier: MIT
/// @file
/// bindery/core/counters.hpp — counts of the WebGPU calls and bytes that bindery issues.
///
/// Every bindery part that calls webgpu.h for per-draw data (Device::write_buffer, the arenas, the
/// draw-list encoder) adds to the Counters of its Device, so the render report can say what a
/// strategy costs per frame: draws, setPipeline, setBindGroup, setImmediates, writeBuffer calls,
/// bytes uploaded, bind groups and buffers created. Plain integers; reset or diff them between
/// frames.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bindery {

/// Call and byte counts. `*_skipped` count redundant calls the draw-list encoder elided.
struct Counters {
  uint64_t draws = 0;                      ///< draw, drawIndexed and drawIndexedIndirect calls
  uint64_t set_pipeline = 0;               ///< setPipeline calls issued
  uint64_t set_pipeline_skipped = 0;       ///< setPipeline calls skipped (pipeline already bound)
  uint64_t set_bind_group = 0;             ///< setBindGroup calls issued
  uint64_t set_bind_group_skipped = 0;     ///< skipped: same bind group and dynamic offsets bound
  uint64_t set_vertex_buffer = 0;          ///< setVertexBuffer calls issued
  uint64_t set_vertex_buffer_skipped = 0;  ///< skipped: same buffer, offset and size in that slot
  uint64_t set_index_buffer = 0;           ///< setIndexBuffer calls issued
  uint64_t set_index_buffer_skipped = 0;   ///< skipped: same buffer, format, offset and size
  uint64_t write_buffer_calls = 0;         ///< queue.writeBuffer calls
  uint64_t bytes_uploaded = 0;  ///< writeBuffer bytes + bytes written into mapped staging
  uint64_t copy_buffer_to_buffer = 0;  ///< copyBufferToBuffer commands recorded (mapped staging)
  uint64_t map_async = 0;        ///< mapAsync calls for per-draw data (readbacks are not counted)
  uint64_t execute_bundles = 0;  ///< executeBundles calls (render bundles replayed)
  uint64_t set_immediates = 0;   ///< setImmediates calls (per-draw immediate data)
  uint64_t immediate_bytes = 0;  ///< bytes passed to those calls (not counted in bytes_uploaded)
  uint64_t bind_groups_created = 0;   ///< createBindGroup calls through Device::create_bind_group
  uint64_t buffers_created = 0;       ///< createBuffer calls through Device::create_buffer
  uint64_t buffer_bytes_created = 0;  ///< bytes of those buffers
  uint64_t textures_created = 0;       ///< createTexture calls through Device::create_texture
  /// Bytes of those textures: every mip level and array layer at the format's texel size.
  uint64_t texture_bytes_created = 0;

  /// Element-wise sum, for counts kept apart and added up (one Counters per encoding thread,
  /// RenderOptions::encode_threads).
  Counters& operator+=(const Counters& other) {
    draws += other.draws;
    set_pipeline += other.set_pipeline;
    set_pipeline_skipped += other.set_pipeline_skipped;
    set_bind_group += other.set_bind_group;
    set_bind_group_skipped += other.set_bind_group_skipped;
    set_vertex_buffer += other.set_vertex_buffer;
    set_vertex_buffer_skipped += other.set_vertex_buffer_skipped;
    set_index_buffer += other.set_index_buffer;
    set_index_buffer_skipped += other.set_index_buffer_skipped;
    write_buffer_calls += other.write_buffer_calls;
    bytes_uploaded += other.bytes_uploaded;
    copy_buffer_to_buffer += other.copy_buffer_to_buffer;
    map_async += other.map_async;
    execute_bundles += other.execute_bundles;
    set_immediates += other.set_immediates;
    immediate_bytes += other.immediate_bytes;
    bind_groups_created += other.bind_groups_created;
    buffers_created += other.buffers_created;
    buffer_bytes_created += other.buffer_bytes_created;
    textures_created += other.textures_created;
    texture_bytes_created += other.texture_bytes_created;
    return *this;
  }

  /// Element-wise difference (this - before), for per-frame numbers.
  Counters operator-(const Counters& before) const {
    Counters d;
    d.draws = draws - before.draws;
    d.set_pipeline = set_pipeline - before.set_pipeline;
    d.set_pipeline_skipped = set_pipeline_skipped - before.set_pipeline_skipped;
    d.set_bind_group = set_bind_group - before.set_bind_group;
    d.set_bind_group_skipped = set_bind_group_skipped - before.set_bind_group_skipped;
    d.set_vertex_buffer = set_vertex_buffer - before.set_vertex_buffer;
    d.set_vertex_buffer_skipped = set_vertex_buffer_skipped - before.set_vertex_buffer_skipped;
    d.set_index_buffer = set_index_buffer - before.set_index_buffer;
    d.set_index_buffer_skipped = set_index_buffer_skipped - before.set_index_buffer_skipped;
    d.write_buffer_calls = write_buffer_calls - before.write_buffer_calls;
    d.bytes_uploaded = bytes_uploaded - before.bytes_uploaded;
    d.copy_buffer_to_buffer = copy_buffer_to_buffer - before.copy_buffer_to_buffer;
    d.map_async = map_async - before.map_async;
    d.execute_bundles = execute_bundles - before.execute_bundles;
    d.set_immediates = set_immediates - before.set_immediates;
    d.immediate_bytes = immediate_bytes - before.immediate_bytes;
    d.bind_groups_created = bind_groups_created - before.bind_groups_created;
    d.buffers_created = buffers_created - before.buffers_created;
    d.buffer_bytes_created = buffer_bytes_created - before.buffer_bytes_created;
    d.textures_created = textures_created - before.textures_created;
    d.texture_bytes_created = texture_bytes_created - before.texture_bytes_created;
    return d;
  }
};

/// A count per object type, e.g. {"Buffer", 12}; types with a count of zero are left out.
using ObjectCounts = std::vector<std::pair<std::string, int64_t>>;

}  // namespace bindery
