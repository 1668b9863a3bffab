// SPDX-License-Identifier: MIT
// tests/consumer/consumer_render.cpp — bindery's reference renderer used from outside its
// repository (bindery::render, built by tests/consumer/run.sh): 100 cubes of the cube scene, two
// frames with the naive strategy (one draw per cube, nothing culled), 64 x 48 pixels read back.
//   consumer_render      exit 0 when the report says 100 draws and a 64 x 48 last frame
#include <bindery/render.hpp>

#include <cstdio>

int main() try {
  using namespace bindery;
  const Device device = Device::create();
  const Scene scene = make_cube_scene({.objects = 100});
  RenderOptions options;
  options.strategy = "naive";
  options.width = 64;
  options.height = 48;
  options.frames = 2;
  const RenderReport report = render(device, scene, options);
  // naive: one draw per object per frame, whatever the camera sees.
  const bool ok = report.draws_per_frame == 100 && report.last_frame &&
                  report.last_frame->width == 64 && report.last_frame->height == 48 &&
                  report.last_frame->rgba.size() == 64u * 48u * 4u;
  std::printf("consumer_render: %u draws per frame, last frame %ux%u\n", report.draws_per_frame,
              report.last_frame ? report.last_frame->width : 0,
              report.last_frame ? report.last_frame->height : 0);
  return ok ? 0 : 1;
} catch (const bindery::Error& e) {
  std::fprintf(stderr, "consumer_render: %s\n", e.what());
  return 1;
}
