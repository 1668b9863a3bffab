// SPDX-License-Identifier: MIT
// `bindery view` (issue 21): the scene of `render`, live in a window with a panel. Built when GLFW
// and Dear ImGui are found (BINDERY_HAS_VIEW, CMake); the work is in apps/bindery/view/.
#if BINDERY_HAS_VIEW
#include "command.hpp"
#include "options.hpp"

#include "view/view.hpp"

#include <bindery/render/renderer.hpp>
#include <bindery/render/scene.hpp>

#include <fmt/format.h>

#include <cmath>

namespace bindery::cli {
namespace {

// What view takes beside the run options it shares with render, bench and soak.
constexpr RunCliRules kRules{.command = "view",
                             .max_frames = 100'000'000,
                             .frames_help = "close after N presented frames (0: when closed)",
                             .size_help = "window size WIDTHxHEIGHT at start",
                             .min_frames = 0};

struct ViewCli {
  RunCliOptions run = [] {
    RunCliOptions r;
    r.frames = 0;
    return r;
  }();
  int64_t instances = 1;
  int64_t objects = 1000;
  std::string strategy = "dynamic-offsets";
  std::optional<double> time;  // float after the range check
  double moving = 1.0;
  std::string png;
  std::string script;
  std::string present_mode = "fifo";
  std::string panel = "on";
  int64_t image_budget_mib = 1024;
  int64_t geometry_budget_mib = 1024;
  bool quiet = false;
};

// Which scene the options name.
struct SceneChoice {
  bool gltf = false, city = false;
};

// Refuses (one line, before a window) the options of another scene and the ranges render checks.
SceneChoice check_scene_options(const ViewCli& o, const CLI::App& sub) {
  const SceneCliOptions& sc = o.run.scene;
  auto given = [&](const char* name) { return sub.get_option(name)->count() > 0; };
  const bool gltf = sc.scene == "gltf" || (!given("--scene") && !sc.model.empty());
  const bool city = sc.scene == "city";
  if (!gltf && !sc.model.empty())
    throw Error(ErrorKind::SceneInput,
                fmt::format("view: --model needs --scene gltf (not {})", sc.scene));
  if (gltf && sc.model.empty())
    throw Error(ErrorKind::SceneInput, "view: --scene gltf needs --model PATH (.gltf or .glb)");
  if (!city)
    if (std::optional<std::string> c = given_city_option(sub))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("view: {} sets the generated city (--scene city)", *c));
  if (!gltf && given("--instances"))
    throw Error(ErrorKind::SceneInput, "view: --instances copies a glTF model (--model)");
  if (gltf && (given("--objects") || given("--seed")))
    throw Error(ErrorKind::SceneInput,
                "view: a glTF scene takes --instances, not --objects or --seed");
  if (gltf && given("--moving"))
    throw Error(ErrorKind::SceneInput,
                "view: --moving moves the cubes or the city's cars; a glTF scene's objects stay "
                "where the model places them");
  for (const char* budget : {"--image-budget-mib", "--geometry-budget-mib"})
    if (!gltf && given(budget))
      throw Error(ErrorKind::SceneInput,
                  fmt::format("view: {} limits what a glTF model decodes; only a glTF scene has "
                              "it",
                              budget));
  if ((gltf || city) && o.run.spread != 1.0)
    throw Error(ErrorKind::SceneInput, "view: --spread places the cubes only");
  check_objects_instances_time(o.objects, o.instances, o.time, sc.scene, "view");
  for (const auto& [flag, mib] : {std::pair{"--image-budget-mib", o.image_budget_mib},
                                  std::pair{"--geometry-budget-mib", o.geometry_budget_mib}})
    if (mib < 1 || mib > 1'048'576)
      throw Error(ErrorKind::InvalidArgument,
                  fmt::format("view: {} {} is outside 1..1048576", flag, mib));
  check_moving(o.moving, "view");
  if (given("--png") && o.png.empty())
    throw Error(ErrorKind::Io, "view: --png: the file name is empty");
  return {gltf, city};
}

// The view's options from the shared run options (checked as render checks them: sizes, frames
// in flight, threads, ...) and view's own.
view::ViewOptions view_options(const ViewCli& o) {
  const RenderOptions ro = to_render_options(o.run, kRules);
  find_strategy(o.strategy);
  check_encode_threads(o.strategy, o.run.encode_threads, "view");
  view::ViewOptions v;
  v.device = to_device_options(o.run.device);
  v.strategy = o.strategy;
  v.width = ro.width;
  v.height = ro.height;
  if (o.time) v.time_s = float(*o.time);
  v.moving = o.moving;
  v.occlusion = ro.occlusion;
  v.draw_path = ro.draw_path;
  v.clusters = ro.clusters;
  v.lod_error_px = ro.lod_error_px;
  v.debug_colors = ro.debug_colors;
  v.rasterizer = ro.rasterizer;
  v.raster_rung = ro.raster_rung;
  v.material_backend = ro.material_backend;
  v.threads = ro.threads;
  v.encode_threads = ro.encode_threads;
  v.frames_in_flight = ro.frames_in_flight;
  v.present_mode = o.present_mode;
  v.frames = uint64_t(o.run.frames);
  v.png = o.png;
  v.script = o.script;
  v.panel = o.panel == "on";
  v.quiet = o.quiet;
  return v;
}

// The scene's counts and its maker: the city's objects, a glTF model's copies or the cubes.
void add_scene(const ViewCli& o, const CLI::App& sub, SceneChoice scene, view::ViewOptions& v) {
  const SceneCliOptions& sc = o.run.scene;
  const bool objects_given = sub.get_option("--objects")->count() > 0;
  if (scene.city) {
    const CitySceneOptions defaults;
    const double moving = sub.get_option("--moving")->count() > 0 ? o.moving : defaults.moving;
    v.count = objects_given ? uint32_t(o.objects) : defaults.objects;
    v.min_count = 1;
    city_scene_options(sc.city, v.count, moving, sc.seed, "view");  // the ranges, before a window
    v.moving_from_scene = true;
    v.make_scene = [c = sc.city, moving, seed = sc.seed](uint32_t count, float) {
      return make_city_scene(city_scene_options(c, std::max(1u, count), moving, seed, "view"));
    };
  } else if (scene.gltf) {
    v.count = uint32_t(o.instances);
    v.min_count = 1;
    v.max_count = 1'000'000;
    const GltfLoadOptions lo{.image_budget_bytes = uint64_t(o.image_budget_mib) << 20,
                             .geometry_budget_bytes = uint64_t(o.geometry_budget_mib) << 20};
    v.make_scene = [model = sc.model, lo, quiet = o.quiet](uint32_t count, float) {
      Scene s = load_gltf_scene(model, std::max(1u, count), lo);
      if (!quiet)
        for (const std::string& w : s.warnings)
          fmt::print(stderr, "bindery: warning: glTF '{}': {}\n", escape_for_message(model),
                     escape_for_message(w));
      return s;
    };
  } else {
    v.count = uint32_t(o.objects);
    v.spread = float(o.run.spread);
    v.spread_applies = true;
    v.make_scene = [seed = sc.seed](uint32_t count, float spread) {
      CubeSceneOptions co;
      co.objects = count;
      co.seed = seed;
      co.spread = spread;
      return make_cube_scene(co);
    };
  }
}

int run(const ViewCli& o, const CLI::App& sub) {
  const SceneChoice scene = check_scene_options(o, sub);
  view::ViewOptions v = view_options(o);
  add_scene(o, sub, scene, v);
  return view::run_view(v);
}

Registration reg{
    "view",
    "the scene of `render` live in a window (GLFW, X11) with a panel: switch strategies and "
    "counts, watch timings",
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<ViewCli>();
      sub.footer(
          "Keys: tab panel on/off, space pause/resume the animation, n / b next / previous "
          "strategy, + / - double / halve the objects, o occlusion culling (gpu-driven), r "
          "camera reset, esc or q quit. Mouse: drag (left button) to orbit, wheel to zoom.\n"
          "--script FILE: one event a line, `FRAME ACTION [VALUES]`, applied once FRAME frames "
          "are presented: strategy NAME, objects N, spread S (the cubes), resize W H, pause, "
          "resume, occlusion on|off, panel on|off, orbit YAW PITCH (degrees), zoom FACTOR, "
          "camera reset, lod-error PX and debug-colors normal|clusters|levels (the cluster "
          "path's: the panel's slider and combo), quit (as esc: one more frame, the last).\n"
          "With the cluster path (gpu-driven) the panel has the pixel error's slider (0..16 "
          "px, --lod-error at start) and the debug colours' combo (--debug-colors at start).\n"
          "No display (DISPLAY unset, or it refuses): error [NoDisplay], exit 1.");
      add_run_options(sub, o->run, kRules);
      add_debug_colors_option(sub, o->run);
      sub.add_option("--instances", o->instances, "copies of the glTF model on a grid")
          ->capture_default_str();
      sub.add_option("--objects", o->objects,
                     "number of cubes (0..10000000), or the city's objects (default 20000)")
          ->capture_default_str();
      sub.add_option("--strategy", o->strategy,
                     "per-draw data strategy at start: " + strategy_names())
          ->capture_default_str();
      sub.add_option("--time", o->time,
                     fmt::format("freeze the animation at T seconds, |T| <= {:g} (reproducible "
                                 "frames)",
                                 double(kMaxAnimationTime)));
      sub.add_option("--moving", o->moving, "share of objects that move each frame, 0..1")
          ->capture_default_str();
      sub.add_option("--present-mode", o->present_mode,
                     "fifo, fifo-relaxed, mailbox or immediate (refused in one line, naming the "
                     "modes the surface offers, when it does not offer it)")
          ->capture_default_str();
      sub.add_option("--png", o->png,
                     "write the last presented frame: the surface texture copied back where the "
                     "surface allows COPY_SRC usage, else the offscreen frame blitted into it "
                     "(without the panel)");
      sub.add_option("--script", o->script, "replay input from FILE (see below)")
          ->check(not_empty());
      sub.add_option("--panel", o->panel, "show the panel at start: on or off")
          ->check(CLI::IsMember({"on", "off"}))
          ->capture_default_str();
      sub.add_option("--image-budget-mib", o->image_budget_mib,
                     "decoded bytes a glTF model's images may take, MiB")
          ->capture_default_str();
      sub.add_option("--geometry-budget-mib", o->geometry_budget_mib,
                     "decoded bytes a glTF model's geometry may take, MiB")
          ->capture_default_str();
      add_quiet_flag(sub, o->quiet);
      CLI::App* app = &sub;
      return [o, app] { return with_flag_names([&] { return run(*o, *app); }); };
    }};

}  // namespace
}  // namespace bindery::cli
#endif  // BINDERY_HAS_VIEW
