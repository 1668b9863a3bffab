// apps/bindery/options.hpp — CLI options shared by the subcommands that create a device, and the
// JSON forms of adapter descriptions and limits used in their reports.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <bindery/device.hpp>

#include <optional>
#include <string>

namespace bindery::cli {

struct DeviceCliOptions {
  std::string backend = "any";          ///< any | vulkan | gl
  std::string limits = "adapter";       ///< adapter | default
  std::optional<uint32_t> uniform_alignment;
};

void add_device_options(CLI::App& sub, DeviceCliOptions& o);
DeviceOptions to_device_options(const DeviceCliOptions& o);
nlohmann::ordered_json adapter_json(const AdapterDescription& a);
nlohmann::ordered_json limits_json(const Limits& l);

}  // namespace bindery::cli
