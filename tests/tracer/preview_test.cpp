// `animpack preview`: filmstrips and contact sheets of the tracer fixture's objects, their
// layout and pixels, and the exit statuses of what it refuses.
#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "animpack/compiler/pack_writer.h"
#include "animpack/pack.h"
#include "animpack/tracer/framing.h"
#include "animpack/tracer/render.h"
#include "animpack/tracer/stage.h"
#include "fixtures/graph_fixture.h"
#include "fixtures/run_cli.h"
#include "fixtures/test_data.h"
#include "trace_fixture.h"

namespace {

namespace fs = std::filesystem;

using animpack::fixture::CliRun;

// The animpack executable with these arguments.
CliRun run(const std::string& args) { return animpack::fixture::run_cli(ANIMPACK_EXE, args); }

struct Png {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
  std::array<uint8_t, 4> at(int x, int y) const {
    const size_t i =
        (static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
  }
};

Png load(const fs::path& path) {
  Png png;
  int n = 0;
  stbi_uc* p = stbi_load(path.string().c_str(), &png.width, &png.height, &n, 4);
  if (!p) return png;
  png.rgba.assign(p, p + static_cast<size_t>(png.width) * static_cast<size_t>(png.height) * 4);
  stbi_image_free(p);
  return png;
}

class Preview : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("animpack_preview_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    pack_ = (dir_ / "fixture.anpk").string();
    const std::vector<uint8_t> bytes = animpack::trace_test::pack_bytes();
    std::ofstream(pack_, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Cooks a one-object scene of a corpus model with `animpack cook` into NAME.anpk and
  // opens it (nullopt, with a test failure, when either fails).
  std::optional<animpack::Pack> cook_corpus(const std::string& name, const std::string& model) {
    const fs::path file = fs::path(ANIMPACK_CORPUS_DIR) / model;
    std::ofstream(dir_ / (name + ".toml"))
        << "[[mesh]]\nname = \"" << name << "\"\nfile = \"" << file.string()
        << "\"\n\n[[object]]\nname = \"" << name << "\"\nmesh = \"" << name << "\"\n";
    const std::string pack = (dir_ / (name + ".anpk")).string();
    const CliRun cook = run("cook " + (dir_ / (name + ".toml")).string() + " -o " + pack);
    EXPECT_EQ(cook.status, 0) << cook.output;
    auto opened = animpack::Pack::open(pack);
    if (!opened) {
      ADD_FAILURE() << opened.error().message();
      return std::nullopt;
    }
    return std::move(*opened);
  }

  // The pack's first object at its bind pose, staged.
  static animpack::Result<animpack::trace::TraceScene> stage_first(const animpack::Pack& pack) {
    animpack::Posed posed;
    animpack::PosedObject o;
    o.object = 0;
    o.mesh = 0;
    posed.objects.push_back(o);
    return animpack::trace::stage_posed(pack, posed);
  }

  // Runs preview on the fixture pack writing `name`; the PNG (empty on failure).
  Png preview(const std::string& args, const std::string& name, CliRun* out_run = nullptr) {
    const fs::path out = dir_ / name;
    const CliRun r = run("preview " + pack_ + " " + args + " --threads 2 -o " + out.string());
    if (out_run) *out_run = r;
    EXPECT_EQ(r.status, 0) << r.output;
    return load(out);
  }

  fs::path dir_;
  std::string pack_;
};

// Whether the w x h cells at (x0, y) and (x1, y) of the sheet hold different pixels.
bool cells_differ(const Png& png, int x0, int x1, int y, int w, int h) {
  for (int dy = 0; dy < h; ++dy) {
    for (int dx = 0; dx < w; ++dx) {
      if (png.at(x0 + dx, y + dy) != png.at(x1 + dx, y + dy)) return true;
    }
  }
  return false;
}

TEST_F(Preview, AFilmstripIsKFramesOfTheClipInOneLabelledRow) {
  const Png png = preview("--object column --clip Rotate --frames 4 --size 40x48", "strip.png");
  ASSERT_EQ(png.width, 4 * 40);
  ASSERT_EQ(png.height, 11 + 48);
  // Ticks 0, 30, 60, 90 of the 2-second Rotate: the column bends, so frames differ.
  EXPECT_TRUE(cells_differ(png, 0, 40, 11, 40, 38));
  EXPECT_TRUE(cells_differ(png, 40, 80, 11, 40, 38));
  // The label strip has text in it.
  bool text = false;
  for (int x = 0; x < 60; ++x) text = text || png.at(x, 5)[0] > 200;
  EXPECT_TRUE(text);
}

// The state machine pack (tests/fixtures/graph_fixture.h): hero's states, parameters and
// layers, and the additive clip Breathe.
class PreviewGraph : public Preview {
 protected:
  void SetUp() override {
    Preview::SetUp();
    graph_ = (dir_ / "graph.anpk").string();
    ASSERT_EQ(animpack::write_file_atomically(
                  graph_, animpack::write_pack(animpack::fixture::make_graph_pack())),
              "");
  }
  Png preview_graph(const std::string& args, const std::string& name, int status = 0,
                    CliRun* out_run = nullptr) {
    const fs::path out = dir_ / name;
    const CliRun r = run("preview " + graph_ + " " + args + " --threads 2 -o " + out.string());
    if (out_run) *out_run = r;
    EXPECT_EQ(r.status, status) << args << "\n" << r.output;
    return status == 0 ? load(out) : Png{};
  }
  std::string graph_;
};

TEST_F(PreviewGraph, AStateIsAFilmstripOfItsCycleStepped) {
  CliRun r;
  // jump plays Rotate (2 s): ticks 0, 30, 60, 90, the column bends between them.
  const Png jump =
      preview_graph("--object hero --state jump --frames 4 --size 40x48", "jump.png", 0, &r);
  ASSERT_EQ(jump.width, 4 * 40);
  ASSERT_EQ(jump.height, 11 + 48);
  EXPECT_NE(r.output.find("1 clip(s) x 4 frame(s)"), std::string::npos) << r.output;
  EXPECT_TRUE(cells_differ(jump, 0, 40, 11, 40, 38));
  // A parameter changes the pose: locomotion at speed 4 is Cubic, at 0 Step.
  const Png fast = preview_graph("--object hero --set speed=4 --frames 2 --size 40x48", "f.png");
  const Png still = preview_graph("--object hero --set speed=0 --frames 2 --size 40x48", "s.png");
  ASSERT_EQ(fast.width, 2 * 40);
  EXPECT_NE(fast.rgba, still.rgba);
  // The layered object's state machine has layers only: no parameter to set.
  preview_graph("--object layered --set x=1", "l.png", 1, &r);
  EXPECT_NE(r.output.find("no parameter 'x'"), std::string::npos) << r.output;
}

TEST_F(PreviewGraph, AContactSheetShowsAdditiveClipsToo) {
  CliRun r;
  const Png sheet = preview_graph("--object hero --frames 2 --size 32x32", "sheet.png", 0, &r);
  EXPECT_EQ(sheet.height, 5 * (11 + 32));  // Step, Linear, Cubic, Rotate, Breathe
  EXPECT_NE(r.output.find("5 clip(s) x 2 frame(s)"), std::string::npos) << r.output;
}

TEST_F(PreviewGraph, RefusesSettingsItCannotApply) {
  CliRun r;
  preview_graph("--object hero --state jump --clip Step", "a.png", 2, &r);
  EXPECT_NE(r.output.find("one or the other"), std::string::npos) << r.output;
  preview_graph("--object hero --set speed", "b.png", 2, &r);
  EXPECT_NE(r.output.find("PARAMETER=VALUE"), std::string::npos) << r.output;
  preview_graph("--object hero --set speed=fast", "c.png", 2);
  preview_graph("--object plain --set speed=1", "d.png", 1, &r);
  EXPECT_NE(r.output.find("no state machine"), std::string::npos) << r.output;
  preview_graph("--object hero --state fly", "e.png", 1, &r);
  EXPECT_NE(r.output.find("--state fly"), std::string::npos) << r.output;
  preview_graph("--object hero --set speed=true", "f.png", 1, &r);
  EXPECT_NE(r.output.find("--set speed"), std::string::npos) << r.output;
  preview_graph("--object hero --set speed=9", "g.png", 1);
  EXPECT_FALSE(fs::exists(dir_ / "g.png"));
}

TEST_F(Preview, TakesAClipByIndexAsByName) {
  const Png by_name = preview("--object column --clip Rotate --frames 2 --size 32x32", "a.png");
  const Png by_index = preview("--object column --clip 3 --frames 2 --size 32x32", "b.png");
  ASSERT_EQ(by_name.width, 64);
  EXPECT_EQ(by_name.rgba, by_index.rgba);
}

TEST_F(Preview, AContactSheetHasARowPerClip) {
  CliRun r;
  const Png png = preview("--object column --frames 3 --size 32x32", "sheet.png", &r);
  EXPECT_EQ(png.width, 3 * 32);
  EXPECT_EQ(png.height, 4 * (11 + 32));  // Step, Linear, Cubic, Rotate
  EXPECT_NE(r.output.find("4 clip(s) x 3 frame(s)"), std::string::npos) << r.output;
}

TEST_F(Preview, ASpriteSheetShowsEveryFrameOfEveryClip) {
  const Png png = preview("--object floater --size 32x32", "sprite.png");
  // Clips "blink" (2 frames) and "all" (8 frames): 2 rows, 8 columns.
  ASSERT_EQ(png.width, 8 * 32);
  ASSERT_EQ(png.height, 2 * (11 + 32));
  // Row 1, column 2 shows atlas frame 2, unlit: its texel colour at the cell's centre.
  const auto c = animpack::trace_test::frame_color(2);
  const auto px = png.at(2 * 32 + 16, 43 + 11 + 16);
  EXPECT_EQ(px[0], c[0]);
  EXPECT_EQ(px[1], c[1]);
  EXPECT_EQ(px[2], c[2]);
  // Row 0 has two cells; the rest of its row is the sheet's background.
  EXPECT_EQ(png.at(5 * 32 + 16, 11 + 16), png.at(7 * 32 + 16, 11 + 16));
}

TEST_F(Preview, ASpriteCardFilmstripStepsThroughItsFrames) {
  const Png png = preview("--object card --clip all --frames 8 --size 24x32", "card.png");
  ASSERT_EQ(png.width, 8 * 24);
  // One second of "all" at 8 fps: 8 ticks 7.5 apart show frames 0..7, all different.
  for (int k = 0; k + 1 < 8; ++k) {
    EXPECT_TRUE(cells_differ(png, k * 24, (k + 1) * 24, 11, 24, 20)) << k;
  }
}

TEST_F(Preview, NeverWritesOverThePackItShowsOrADevice) {
  const std::string before = animpack::test_data::read_test_file(pack_);
  CliRun r = run("preview " + pack_ + " --object column -o " + pack_);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("which would be overwritten"), std::string::npos) << r.output;
  // The same file by another spelling.
  r = run("preview " + pack_ + " --object column -o " + (dir_ / "." / "fixture.anpk").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(animpack::test_data::read_test_file(pack_), before);
  r = run("preview " + pack_ + " --object column -o /dev/null");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("not a regular file"), std::string::npos) << r.output;
}

TEST_F(Preview, RefusesWhatItCannotPreview) {
  const std::string out = " -o " + (dir_ / "x.png").string();
  CliRun r = run("preview " + pack_ + " --object nobody" + out);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("its objects: column, card, floater, arm"), std::string::npos)
      << r.output;
  r = run("preview " + pack_ + " --object column --clip Jog" + out);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("its clips: Step, Linear, Cubic, Rotate"), std::string::npos) << r.output;
  EXPECT_EQ(run("preview " + pack_ + " --object arm" + out).status, 1);  // no clips
  EXPECT_EQ(run("preview " + pack_ + " --object column").status, 2);     // no -o
  EXPECT_EQ(run("preview " + pack_ + " -o x.png").status, 2);            // no --object
  EXPECT_EQ(run("preview " + pack_ + " --object column --size 10x10" + out).status, 2);
  EXPECT_EQ(run("preview " + pack_ + " --object column --size 40" + out).status, 2);
  EXPECT_EQ(run("preview " + pack_ + " --object column --frames 0" + out).status, 2);
  EXPECT_EQ(run("preview " + pack_ + " --object column --bogus" + out).status, 2);
  EXPECT_EQ(run("preview " + (dir_ / "missing.anpk").string() + " --object column" + out).status,
            2);
  std::ofstream(dir_ / "bad.anpk") << "not a pack";
  EXPECT_EQ(run("preview " + (dir_ / "bad.anpk").string() + " --object column" + out).status, 1);
  EXPECT_EQ(run("preview " + pack_ + " --object column --size 40x40 -o " +
                (dir_ / "no_dir" / "x.png").string())
                .status,
            2);
  EXPECT_FALSE(fs::exists(dir_ / "x.png"));
  r = run("preview --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("--object NAME"), std::string::npos);
  EXPECT_NE(run("--help").output.find("preview PACK.anpk"), std::string::npos);
}

// The Fox of the corpus, cooked by `animpack cook`, staged at its bind pose and traced:
// its pixels carry its texture's colours (orange fur, cream belly and tail tip), not one
// albedo under the light. Measured by the spread of r / (r + g + b) over the Fox's pixels:
// one lit colour keeps it within a few hundredths; the texture spreads it by more than 0.1.
TEST_F(Preview, ACookedFoxIsTexturedNotOneFlatColour) {
  const std::optional<animpack::Pack> opened = cook_corpus("fox", "gltf/Fox/glTF-Binary/Fox.glb");
  ASSERT_TRUE(opened);
  ASSERT_EQ(opened->textures().size(), 1u) << "the Fox's texture is in the pack";
  const std::string pack = (dir_ / "fox.anpk").string();
  auto scene = stage_first(*opened);
  ASSERT_TRUE(scene) << scene.error().message();
  animpack::trace::RenderOptions options;
  options.width = 160;
  options.height = 120;
  animpack::trace::FramingOptions framing;
  framing.view = {1, 0.3f, 0.2f};  // from its side
  options.camera = animpack::trace::frame_box(scene->bounds(), 160, 120, framing);
  auto frame = animpack::trace::render(*scene, options);
  ASSERT_TRUE(frame);
  float lo = 1, hi = 0;
  int covered = 0;
  for (int y = 0; y < 120; ++y) {
    for (int x = 0; x < 160; ++x) {
      if (frame->ids[static_cast<size_t>(y * 160 + x)] == animpack::trace::kNoObject) continue;
      const animpack::trace::Rgba c = frame->color.at(x, y);
      const int sum = c.r + c.g + c.b;
      if (sum < 60) continue;  // too dark to tell
      ++covered;
      const float share = static_cast<float>(c.r) / static_cast<float>(sum);
      lo = std::min(lo, share);
      hi = std::max(hi, share);
    }
  }
  EXPECT_GT(covered, 1000);
  EXPECT_GT(hi - lo, 0.1f) << lo << " to " << hi;
  // And `animpack preview` draws it.
  const CliRun r = run("preview " + pack + " --object fox --frames 2 --size 80x60 -o " +
                       (dir_ / "fox.png").string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(load(dir_ / "fox.png").width, 160);
}

// BoxAnimated's two boxes have two materials (pink and blue in the file): staged from the
// cooked pack, the parts keep them apart, and the picture shows both hues.
TEST_F(Preview, BoxAnimatedShowsItsTwoMaterials) {
  const std::optional<animpack::Pack> opened =
      cook_corpus("box", "gltf/BoxAnimated/glTF-Embedded/BoxAnimated.gltf");
  ASSERT_TRUE(opened);
  ASSERT_EQ(opened->materials().size(), 2u) << "both of BoxAnimated's materials are in the pack";
  auto scene = stage_first(*opened);
  ASSERT_TRUE(scene) << scene.error().message();
  std::set<uint32_t> used(scene->triangle_materials().begin(), scene->triangle_materials().end());
  EXPECT_EQ(used.size(), 2u);
  animpack::trace::RenderOptions options;
  options.width = 120;
  options.height = 120;
  options.samples = 1;
  animpack::trace::FramingOptions framing;
  framing.view = {0.3f, 1.0f, 0.6f};  // from above: the inner box shows at the bind pose
  options.camera = animpack::trace::frame_box(scene->bounds(), 120, 120, framing);
  auto frame = animpack::trace::render(*scene, options);
  ASSERT_TRUE(frame);
  // Each material's pixels (the triangle its centre ray meets) and their mean colour.
  std::array<std::array<double, 4>, 2> sums{};  // r, g, b, count
  const uint32_t first = *used.begin();
  for (int y = 0; y < 120; ++y) {
    for (int x = 0; x < 120; ++x) {
      const animpack::trace::Ray ray = animpack::trace::pixel_ray(options.camera, 120, 120, x, y);
      animpack::trace::Hit hit;
      if (!scene->closest(ray, &hit)) continue;
      auto& sum = sums[scene->triangle_materials()[hit.triangle] == first ? 0 : 1];
      const animpack::trace::Rgba c = frame->color.at(x, y);
      sum[0] += c.r;
      sum[1] += c.g;
      sum[2] += c.b;
      sum[3] += 1;
    }
  }
  ASSERT_GT(sums[0][3], 100);
  ASSERT_GT(sums[1][3], 100);
  double apart = 0;
  for (int k = 0; k < 3; ++k) {
    apart = std::max(apart, std::fabs(sums[0][k] / sums[0][3] - sums[1][k] / sums[1][3]));
  }
  EXPECT_GT(apart, 40.0) << "the two materials' mean colours are alike";
}

}  // namespace
