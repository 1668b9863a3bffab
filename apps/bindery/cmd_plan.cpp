// SPDX-License-Identifier: MIT
// `bindery plan SCENE.json [--json] [--strict]`: plans bind groups by frequency of change for a
// scene description and prints the group assignment with the reason for every merge or move,
// setBindGroup calls per pass and per frame, bind groups created, warnings (intruders first) and
// the WGSL declarations; --json prints the same as one JSON object.
//
// The scene format is documented in docs/PLAN_FORMAT.md (bindings: name, kind, size, frequency,
// changes, visibility, wgsl_type; stats: objects, materials, passes, order; grouping;
// object_data; strict_intruders; limits overrides). Examples: examples/plan/*.json.
// Exit status: 0 on success (warnings included), 1 on any bindery::Error: PlanInput for a
// malformed scene, Intruder with --strict, TooMany* when a device budget is exceeded.
#include "command.hpp"

#include <bindery/core/io.hpp>

#include <bindery/encode/bind_group_plan.hpp>
#include <bindery/core/error.hpp>

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace bindery::cli {
namespace {

struct PlanCliOptions {
  std::string scene;
  bool json = false;
  bool strict = false;
};

Registration reg{
    "plan", "plan bind groups by frequency of change for a scene description (JSON)",
    [](CLI::App& sub) -> Runner {
      auto opts = std::make_shared<PlanCliOptions>();
      sub.add_option("scene", opts->scene, "scene description (docs/PLAN_FORMAT.md)")->required();
      sub.add_flag("--json", opts->json, "print the plan as one JSON object");
      sub.add_flag("--strict", opts->strict,
                   "treat intruders as errors (kind Intruder), as debug builds do");
      return [opts] {
        const std::string text = read_input_file(opts->scene, "plan: scene");
        PlanInput input = with_context(fmt::format("reading the scene file {}", escape_for_message(opts->scene)),
                                       [&] { return parse_plan_input(text); });
        if (opts->strict) input.options.strict_intruders = true;
        const BindGroupPlan plan = plan_bind_groups(input);
        out("{}\n", opts->json ? plan.to_json() : plan.to_text());
        return 0;
      };
    }};

}  // namespace
}  // namespace bindery::cli
