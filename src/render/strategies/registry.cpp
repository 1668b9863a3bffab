// SPDX-License-Identifier: MIT
// The strategy registry: one row per strategy, in the order the CLI and `bindery bench` list
// them. A strategy is one file (src/render/strategies/NAME.cpp) that defines its row; adding one
// is that file plus one line below.
#include "strategy.hpp"

#include <fmt/format.h>

namespace bindery::strategies {

extern const StrategyRow naive_row;
extern const StrategyRow split_uniforms_row;
extern const StrategyRow buffer_offsets_row;
extern const StrategyRow buffer_offsets_mapped_row;
extern const StrategyRow dynamic_offsets_row;
extern const StrategyRow mapped_staging_row;
extern const StrategyRow render_bundles_row;
extern const StrategyRow storage_instancing_row;
extern const StrategyRow gpu_culling_row;
extern const StrategyRow gpu_driven_row;
extern const StrategyRow bundles_gpu_row;
extern const StrategyRow immediates_row;

std::span<const StrategyRow> strategy_rows() {
  static const std::vector<StrategyRow> rows = {
      naive_row,           split_uniforms_row, buffer_offsets_row, buffer_offsets_mapped_row,
      dynamic_offsets_row, mapped_staging_row, render_bundles_row, storage_instancing_row,
      gpu_culling_row,     gpu_driven_row,     bundles_gpu_row,
      immediates_row,
  };
  return rows;
}

const StrategyRow& find_strategy_row(std::string_view name) {
  std::string names;
  std::vector<std::string> all;
  for (const StrategyRow& row : strategy_rows()) {
    if (row.info.name == name) return row;
    names += fmt::format("{}{}", names.empty() ? "" : ", ", row.info.name);
    all.emplace_back(row.info.name);
  }
  throw Error(ErrorKind::InvalidArgument,
              fmt::format("unknown strategy '{}'{} (valid: {})", escape_for_message(name),
                          did_you_mean(name, all), names));
}

}  // namespace bindery::strategies

namespace bindery {

std::span<const StrategyInfo> strategy_catalog() {
  static const std::vector<StrategyInfo> infos = [] {
    std::vector<StrategyInfo> v;
    for (const strategies::StrategyRow& row : strategies::strategy_rows()) v.push_back(row.info);
    return v;
  }();
  return infos;
}

const StrategyInfo& find_strategy(std::string_view name) {
  return strategies::find_strategy_row(name).info;
}

bool strategy_encodes_in_parallel(std::string_view strategy) {
  return strategies::find_strategy_row(strategy).parallel_encode;
}

std::optional<std::string> strategy_unavailable(const Device& device, const Scene& scene,
                                                std::string_view strategy) {
  const strategies::StrategyRow& row = strategies::find_strategy_row(strategy);
  return row.unavailable ? row.unavailable(device, scene) : std::nullopt;
}

}  // namespace bindery
