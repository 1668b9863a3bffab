// SPDX-License-Identifier: MIT
// `bindery info`: which adapter and backend WebGPU runs on here, and the limits bindery uses
// (the device's, created with the adapter's best limits) next to the adapter's.
#include "command.hpp"
#include "options.hpp"

#include <bindery/core/device.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace bindery::cli {
namespace {

Registration reg{"info", "print the WebGPU adapter, backend and device limits as JSON",
                 [](CLI::App& sub) -> Runner {
                   auto opts = std::make_shared<DeviceCliOptions>();
                   add_device_options(sub, *opts);
                   return [opts] {
                     Device device = Device::create(to_device_options(*opts));
                     nlohmann::ordered_json j;
                     j["implementation"] = implementation_json(device.adapter());
                     j["adapter"] = adapter_json(device.adapter());
                     j["device_limits"] = limits_json(device.limits());
                     j["adapter_limits"] = limits_json(device.adapter_limits());
                     j["timestamp_query"] = device.has_timestamp_query();
                     j["immediates"] = device.has_immediates();
                     out("{}\n", j.dump(2));
                     return 0;
                   };
                 }};

}  // namespace
}  // namespace bindery::cli
