// SPDX-License-Identifier: MIT
// BEGIN raster store
// The visibility store of the compute rasterizer's core rung, first pass (the nearest depth key
// of each pixel), so that raster_core.wgsl and cluster_raster.wgsl are whole modules on their own
// (`bindery layout` checks them); bindery::gpu_driven::ClusterRaster puts the rung's own store
// in its place.
@group(1) @binding(0) var<storage, read_write> visibility: array<atomic<u32>>;

fn raster_store(pixel: u32, key: u32, id: u32) {
  atomicMax(&visibility[pixel], key);
}
// END raster store
