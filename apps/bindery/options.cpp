#include "options.hpp"

namespace bindery::cli {

void add_device_options(CLI::App& sub, DeviceCliOptions& o) {
  sub.add_option("--backend", o.backend, "WebGPU backend: any (Vulkan, then GL), vulkan, gl")
      ->check(CLI::IsMember({"any", "vulkan", "gl"}))
      ->capture_default_str();
  sub.add_option("--limits", o.limits,
                 "device limits to require: adapter (the adapter's best) or default (spec "
                 "defaults, e.g. minUniformBufferOffsetAlignment 256)")
      ->check(CLI::IsMember({"adapter", "default"}))
      ->capture_default_str();
  sub.add_option("--uniform-alignment", o.uniform_alignment,
                 "require this minUniformBufferOffsetAlignment (power of two, not better than "
                 "the adapter's)");
}

DeviceOptions to_device_options(const DeviceCliOptions& o) {
  DeviceOptions d;
  d.backend = o.backend == "vulkan" ? Backend::vulkan : o.backend == "gl" ? Backend::gl : Backend::any;
  d.limits = o.limits == "default" ? LimitsRequest::spec_default : LimitsRequest::adapter_best;
  d.min_uniform_buffer_offset_alignment = o.uniform_alignment;
  return d;
}

nlohmann::ordered_json adapter_json(const AdapterDescription& a) {
  return {{"name", a.name},       {"backend", a.backend},     {"driver", a.driver},
          {"type", a.adapter_type}, {"vendor_id", a.vendor_id}, {"device_id", a.device_id}};
}

nlohmann::ordered_json limits_json(const Limits& l) {
  return {{"minUniformBufferOffsetAlignment", l.minUniformBufferOffsetAlignment},
          {"minStorageBufferOffsetAlignment", l.minStorageBufferOffsetAlignment},
          {"maxUniformBufferBindingSize", l.maxUniformBufferBindingSize},
          {"maxStorageBufferBindingSize", l.maxStorageBufferBindingSize},
          {"maxBufferSize", l.maxBufferSize},
          {"maxBindGroups", l.maxBindGroups},
          {"maxBindingsPerBindGroup", l.maxBindingsPerBindGroup},
          {"maxDynamicUniformBuffersPerPipelineLayout", l.maxDynamicUniformBuffersPerPipelineLayout},
          {"maxDynamicStorageBuffersPerPipelineLayout", l.maxDynamicStorageBuffersPerPipelineLayout},
          {"maxUniformBuffersPerShaderStage", l.maxUniformBuffersPerShaderStage},
          {"maxStorageBuffersPerShaderStage", l.maxStorageBuffersPerShaderStage},
          {"maxSampledTexturesPerShaderStage", l.maxSampledTexturesPerShaderStage},
          {"maxSamplersPerShaderStage", l.maxSamplersPerShaderStage},
          {"maxTextureDimension2D", l.maxTextureDimension2D},
          {"maxVertexBuffers", l.maxVertexBuffers},
          {"maxComputeWorkgroupsPerDimension", l.maxComputeWorkgroupsPerDimension}};
}

}  // namespace bindery::cli
