// play_column: the runtime on its own. Plays the generated fixture rig with blends and
// crossfades, skins the column on the CPU and writes PNG frames.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "animpack/animator.h"
#include "animpack/skinning.h"
#include "fixtures/fixture.h"
#include "frame_writer.h"
#include "sample_args.h"

namespace {

const char* const kUsage = "usage: play_column [--ticks N] [-o DIR]\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace animpack;
  long ticks = 240;
  std::string out_dir = "out/frames";
  CLI::App app;
  samples::add_number(app, "--ticks", 1, 100000, &ticks);
  app.add_option("-o", out_dir)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  if (const int status = samples::parse(app, argc, argv, "play_column", kUsage); status >= 0) {
    return status;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 2;
  }

  const Rig rig = fixture::make_rig();
  auto created = Animator::create(&rig, 60);
  if (!created) {
    std::fprintf(stderr, "error: %s\n", created.error().message());
    return 1;
  }
  Animator animator = std::move(*created);
  const fixture::Column column = fixture::make_column();
  std::vector<Vec3> positions(column.positions.size()), normals(column.positions.size());
  samples::Frame frame(240, 320, {-3.0f, -0.5f, 0}, {3.0f, 5.5f, 0});

  std::printf("play_column: %d joints, %d clips, %zu vertices, %ld ticks at 60 Hz\n",
              rig.skeleton().joint_count(), rig.clip_count(), column.positions.size(), ticks);
  const uint16_t linear = *rig.find_clip("Linear"), rotate = *rig.find_clip("Rotate");
  int frames = 0, events = 0;
  for (int64_t tick = 0; tick < ticks; ++tick) {
    const char* action = nullptr;
    if (tick == 0) {
      const BlendEntry blend[] = {{rotate, 0.7f}, {linear, 0.3f}};
      (void)animator.play_blend(blend, tick);
      action = "play_blend Rotate 0.7 + Linear 0.3";
    } else if (tick == 90) {
      (void)animator.crossfade("Step", 0.5, tick);
      action = "crossfade to Step over 0.5 s";
    } else if (tick == 150) {
      (void)animator.crossfade("Rotate", 0.25, tick);
      action = "crossfade to Rotate over 0.25 s";
    }
    if (action) std::printf("  tick %4lld  %s\n", static_cast<long long>(tick), action);
    for (const AnimEvent& e : animator.advance(tick)) {
      std::printf("  tick %4lld  event %-6.*s (clip %s, mix %u, layer %u)\n",
                  static_cast<long long>(tick), static_cast<int>(e.name.size()), e.name.data(),
                  rig.clips()[e.clip].name().c_str(), unsigned{e.mix}, unsigned{e.layer});
      ++events;
    }
    animator.evaluate(tick);
    if (auto r = skin({column.positions, column.normals, {}, column.joints, column.weights},
                      animator.palette(), {positions, normals, {}});
        !r) {
      std::fprintf(stderr, "error: %s\n", r.error().message());
      return 1;
    }
    if (tick % 10 == 0) {
      frame.clear();
      frame.draw(positions, normals, column.indices, {230, 140, 60});
      char name[64];
      std::snprintf(name, sizeof name, "/frame_%04lld.png", static_cast<long long>(tick));
      if (!frame.write_png(out_dir + name)) return 2;
      ++frames;
    }
  }
  const Vec3 top = positions.back();
  std::printf(
      "summary: %ld ticks, %d events, %d PNG frames in %s; top vertex at (%.3f, %.3f, %.3f)\n",
      ticks, events, frames, out_dir.c_str(), static_cast<double>(top.x),
      static_cast<double>(top.y), static_cast<double>(top.z));
  return 0;
}
