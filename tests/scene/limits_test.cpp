// The scene reader's limits (docs/scene-format.md, "Scene and asset limits"): each is an
// E0135 at the key (or the first table past the limit), and the value at the limit reads.
// Scenes are generated here; each stays small enough to parse in well under a second.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "animpack/compiler/scene.h"
#include "scene/scene_read.h"

namespace animpack {
namespace {

using scene_test::Read;

Read read(const std::string& text) { return scene_test::read(text, "limits.toml"); }

// Whether a diagnostic with this code is at line:col.
bool has(const Read& r, std::string_view code, int line, int col) {
  for (const Diagnostic& d : r.diagnostics) {
    if (d.code == code && d.line == line && d.col == col) return true;
  }
  return false;
}

int count(const Read& r, std::string_view code) {
  int n = 0;
  for (const Diagnostic& d : r.diagnostics) n += d.code == code;
  return n;
}

using scene_test::all;

// A skeletal object whose [object.animation] (line 5) has `body` from line 6.
std::string skeletal(const std::string& body) {
  return "[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\n[[object]]\nname = \"o\"\nmesh = \"m\"\n"
         "[object.animation]\n" +
         body;
}

// A sprite object: atlas on line 3, `body` from line 4.
std::string sprite(const std::string& body) {
  return "[[object]]\nname = \"s\"\n[object.animation]\natlas = \"a.png\"\nfps = 8\n" + body;
}

std::string blend_of(size_t entries) {
  std::string s = "blend = [";
  for (size_t i = 0; i < entries; ++i)
    s += (i ? ", " : "") + std::string("{ clip = \"c\", weight = 1 }");
  return s + "]\n";
}

TEST(SceneLimits, BlendOfMoreEntriesThanAPackMixesIsRefusedAtTheKey) {
  const Read r = read(skeletal(blend_of(kMaxBlendEntries + 1)));
  EXPECT_TRUE(has(r, "E0135", 8, 1)) << all(r);
  EXPECT_TRUE(r.scene.objects.at(0).animation->blend.empty());
}

TEST(SceneLimits, BlendAtTheLimitReads) {
  const Read r = read(skeletal(blend_of(kMaxBlendEntries)));
  EXPECT_EQ(r.diagnostics.size(), 0u) << all(r);
  EXPECT_EQ(r.scene.objects.at(0).animation->blend.size(), kMaxBlendEntries);
}

TEST(SceneLimits, SpeedAndStartOverTheirLimitsAreRefusedAtTheKey) {
  // A speed of 3e38 once cooked into a pack whose player never finished its second tick.
  const Read r = read(skeletal("clip = \"c\"\nspeed = 3.0e38\nstart = 1.0e7\n"));
  EXPECT_TRUE(has(r, "E0135", 9, 1)) << all(r);
  EXPECT_TRUE(has(r, "E0135", 10, 1)) << all(r);
  EXPECT_EQ(r.scene.objects.at(0).animation->speed, 1.0f);
  // The runtime's own bounds (animpack/limits.h): at them a pack plays, past them it
  // would be refused by ScenePlayer::create.
  const Read at = read(skeletal("clip = \"c\"\nspeed = 8\nstart = 3600\n"));
  EXPECT_EQ(at.diagnostics.size(), 0u) << all(at);
  const Read past = read(skeletal("clip = \"c\"\nspeed = 8.001\nstart = 3600.5\n"));
  EXPECT_TRUE(has(past, "E0135", 9, 1)) << all(past);
  EXPECT_TRUE(has(past, "E0135", 10, 1)) << all(past);
}

TEST(SceneLimits, MoreMeshesThanTheLimitAreRefusedAtTheFirstOnePastIt) {
  std::string s;
  for (size_t i = 0; i <= kMaxSceneMeshes; ++i) {
    s += "[[mesh]]\nname = \"m" + std::to_string(i) + "\"\nfile = \"m.glb\"\n";
  }
  const Read r = read(s);
  const int line = static_cast<int>(kMaxSceneMeshes) * 3 + 1;
  EXPECT_TRUE(has(r, "E0135", line, 1)) << all(r);
  EXPECT_EQ(count(r, "E0135"), 1);
  EXPECT_EQ(r.scene.meshes.size(), kMaxSceneMeshes);
}

TEST(SceneLimits, MoreEventsThanTheLimitAreRefusedAtTheKey) {
  std::string events = "clip = \"c\"\nevents = [";
  for (size_t i = 0; i <= kMaxAnimationEvents; ++i) {
    events += (i ? ", " : "") + std::string("{ name = \"e\", clip = \"c\", time = 0 }");
  }
  const Read r = read(skeletal(events + "]\n"));
  EXPECT_TRUE(has(r, "E0135", 9, 1)) << all(r);
  EXPECT_EQ(count(r, "E0135"), 1);
}

TEST(SceneLimits, GridOfMoreFramesThanTheLimitIsRefusedAtTheKey) {
  const Read r = read(sprite("grid = [" + std::to_string(kMaxSpriteFrames) + ", 2]\n"));
  EXPECT_TRUE(has(r, "E0135", 6, 1)) << all(r);
  EXPECT_FALSE(r.scene.objects.at(0).animation->grid.has_value());
}

TEST(SceneLimits, GridAtTheFrameLimitReads) {
  const Read r = read(sprite("grid = [" + std::to_string(kMaxSpriteFrames) +
                             ", 1]\n[object.animation.clips.a]\nfrom = 0\nto = 0\n"));
  EXPECT_EQ(count(r, "E0135"), 0) << all(r);
  EXPECT_TRUE(r.scene.objects.at(0).animation->grid.has_value());
}

TEST(SceneLimits, MoreRectsThanTheFrameLimitAreRefusedAtTheKey) {
  std::string rects = "rects = [";
  for (int64_t i = 0; i <= kMaxSpriteFrames; ++i)
    rects += (i ? ", " : "") + std::string("[0, 0, 1, 1]");
  const Read r = read(sprite(rects + "]\n"));
  EXPECT_TRUE(has(r, "E0135", 6, 1)) << all(r);
  EXPECT_TRUE(r.scene.objects.at(0).animation->rects.empty());
}

TEST(SceneLimits, MoreSpriteClipsThanTheLimitAreRefused) {
  std::string clips = "grid = [2, 1]\n";
  for (size_t i = 0; i <= kMaxSpriteClips; ++i) {
    clips += "[object.animation.clips.c" + std::to_string(i) + "]\nfrom = 0\nto = 1\n";
  }
  const Read r = read(sprite(clips));
  EXPECT_EQ(count(r, "E0135"), 1) << all(r);
  EXPECT_TRUE(has(r, "E0135", 7, 19)) << all(r);  // the `clips` segment of the first header
  EXPECT_TRUE(r.scene.objects.at(0).animation->clips.empty());
}

TEST(SceneLimits, SpriteClipsListingMoreFramesInAllThanTheLimitAreRefused) {
  // Five clips over a whole 16384-frame grid: 81920 frames for the pack to list.
  std::string clips = "grid = [" + std::to_string(kMaxSpriteFrames) + ", 1]\n";
  for (int i = 0; i < 5; ++i) {
    clips += "[object.animation.clips.c" + std::to_string(i) +
             "]\nfrom = 0\nto = " + std::to_string(kMaxSpriteFrames - 1) + "\n";
  }
  const Read r = read(sprite(clips));
  EXPECT_EQ(count(r, "E0135"), 1) << all(r);
  EXPECT_TRUE(has(r, "E0135", 7, 19)) << all(r);
}

TEST(SceneLimits, EventsNamingAnUnknownSpriteClipListAFewClipsNotAll) {
  // 1000 clips and 1000 events naming none of them: each message lists 16 clips, not 1000
  // (which made the messages quadratic in the scene).
  std::string s = "grid = [2, 1]\nevents = [";
  for (int i = 0; i < 1000; ++i) {
    s += (i ? ", " : "") + std::string("{ name = \"e\", clip = \"nope\", frame = 0 }");
  }
  s += "]\n";
  for (int i = 0; i < 1000; ++i) {
    s += "[object.animation.clips.clip" + std::to_string(i) + "]\nfrom = 0\nto = 1\n";
  }
  const Read r = read(sprite(s));
  ASSERT_EQ(count(r, "E0131"), 1000) << all(r).substr(0, 1000);
  for (const Diagnostic& d : r.diagnostics) {
    ASSERT_LT(d.message.size(), 600u) << d.message.substr(0, 600);
  }
  EXPECT_NE(r.diagnostics.front().message.find("(1000 in all)"), std::string::npos)
      << r.diagnostics.front().message;
}

TEST(SceneLimits, HugeUnknownKeyGetsAShortMessageAndNoSuggestion) {
  const std::string key(200000, 'f');
  const Read r = read("format = 1\n" + key + " = 1\n");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].code, "E0101");
  EXPECT_LT(r.diagnostics[0].message.size(), 400u) << r.diagnostics[0].message.substr(0, 400);
  EXPECT_EQ(r.diagnostics[0].message.find("did you mean"), std::string::npos);
  EXPECT_NE(r.diagnostics[0].message.find("200000 bytes"), std::string::npos);
}

TEST(SceneLimits, BoundedSuggestionsStillFindCloseSpellings) {
  const Read r = read(
      "fromat = 1\n[[mesh]]\nname = \"walker\"\nfile = \"w.glb\"\n"
      "[[object]]\nname = \"o\"\nmesh = \"wlaker\"\n");
  ASSERT_EQ(r.diagnostics.size(), 2u) << all(r);
  EXPECT_NE(r.diagnostics[0].message.find("did you mean `format`?"), std::string::npos);
  EXPECT_NE(r.diagnostics[1].message.find("did you mean `walker`?"), std::string::npos);
}

TEST(SceneLimits, UnknownMeshNamesAmongManyMeshesAllGetTheirErrorWithinTheHintBudget) {
  // 1024 meshes and 1024 objects naming a near miss each: every object gets its error; the
  // first ones their hint, until the fixed budget of comparisons is spent (then none, so
  // that the work stays bounded however many objects miss).
  constexpr int kCount = 1024;
  std::string s;
  for (int i = 0; i < kCount; ++i) {
    s += "[[mesh]]\nname = \"mesh" + std::to_string(i) + "\"\nfile = \"m.glb\"\n";
  }
  for (int i = 0; i < kCount; ++i) {
    s += "[[object]]\nname = \"o" + std::to_string(i) + "\"\nmesh = \"mseh" + std::to_string(i) +
         "\"\n";
  }
  const Read r = read(s);
  ASSERT_EQ(count(r, "E0106"), kCount) << all(r).substr(0, 2000);
  EXPECT_NE(r.diagnostics.front().message.find("did you mean `mesh0`?"), std::string::npos)
      << r.diagnostics.front().message;
  EXPECT_EQ(r.diagnostics.back().message.find("did you mean"), std::string::npos)
      << r.diagnostics.back().message;
}

namespace graph_limits {

// N parameters (bools) and one state, from line 8.
std::string parameters(size_t n) {
  std::string s = "[object.animation.parameters]\n";
  for (size_t i = 0; i < n; ++i) s += "p" + std::to_string(i) + " = { type = \"bool\" }\n";
  return s + "[object.animation.states.a]\nclip = \"A\"\n";
}

// N states, each entered from any state, from line 8.
std::string states(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += "[object.animation.states.s" + std::to_string(i) + "]\nclip = \"A\"\n";
  }
  for (size_t i = 1; i < n; ++i) {
    s += "[[object.animation.transitions]]\nfrom = \"*\"\nto = \"s" + std::to_string(i) + "\"\n";
  }
  return s;
}

// One state and N transitions from line 10.
std::string transitions(size_t n) {
  std::string s = "[object.animation.states.a]\nclip = \"A\"\n";
  for (size_t i = 0; i < n; ++i) {
    s += "[[object.animation.transitions]]\nfrom = \"a\"\nto = \"a\"\nexit_time = 1\n";
  }
  return s;
}

// A transition (line 12) whose `when` (line 15) has N conditions, then `tail`.
std::string conditions(size_t n, const std::string& tail = "") {
  std::string s =
      "[object.animation.parameters]\nx = { type = \"float\" }\n"
      "[object.animation.states.a]\nclip = \"A\"\n"
      "[[object.animation.transitions]]\nfrom = \"a\"\nto = \"a\"\nwhen = [";
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::string("{ parameter = \"x\", above = 0 }");
  return s + "]\n" + tail;
}

// N layers from line 8.
std::string layers(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += "[[object.animation.layers]]\nclip = \"A\"\n";
  return s;
}

// A 1D blend space of N points (`points` on line 12).
std::string points(size_t n) {
  std::string s =
      "[object.animation.parameters]\nx = { type = \"float\" }\n"
      "[object.animation.states.a]\nblend_parameter = \"x\"\npoints = [";
  for (size_t i = 0; i < n; ++i) {
    s += (i ? ", " : "") + std::string("{ clip = \"A\", at = ") + std::to_string(i) + " }";
  }
  return s + "]\n";
}

// A layer whose `mask` (line 10) has N entries.
std::string mask(size_t n) {
  std::string s = "[[object.animation.layers]]\nclip = \"A\"\nmask = [";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::string("\"J\"");
  return s + "]\n";
}

}  // namespace graph_limits

TEST(SceneLimits, AStateMachineAtItsLimitsReads) {
  using namespace graph_limits;
  for (const std::string& body :
       {parameters(kMaxGraphParameters), states(kMaxGraphStates), transitions(kMaxGraphTransitions),
        conditions(kMaxTransitionConditions),
        conditions(kMaxTransitionConditions - 1, "exit_time = 1\n"), layers(kMaxGraphLayers),
        points(kMaxBlendPoints), mask(kMaxMaskEntries)}) {
    const Read r = read(skeletal(body));
    EXPECT_TRUE(r.diagnostics.empty()) << all(r);
  }
  const Read fade = read(skeletal(transitions(1) + "fade = 3600\n"));
  EXPECT_TRUE(fade.diagnostics.empty()) << all(fade);
}

TEST(SceneLimits, AStateMachineOverItsLimitsIsRefusedAtTheKey) {
  using namespace graph_limits;
  const Read p = read(skeletal(parameters(kMaxGraphParameters + 1)));
  EXPECT_TRUE(has(p, "E0135", 8, 19)) << all(p);
  EXPECT_TRUE(p.scene.objects.at(0).animation->parameters.empty());
  const Read s = read(skeletal(states(kMaxGraphStates + 1)));
  EXPECT_TRUE(has(s, "E0135", 8, 19)) << all(s);
  EXPECT_EQ(count(s, "E0135"), 1);
  const Read t = read(skeletal(transitions(kMaxGraphTransitions + 1)));
  EXPECT_TRUE(has(t, "E0135", 10, 20)) << all(t);
  EXPECT_EQ(count(t, "E0135"), 1);
  const Read c = read(skeletal(conditions(kMaxTransitionConditions + 1)));
  EXPECT_TRUE(has(c, "E0135", 15, 1)) << all(c);
  EXPECT_EQ(c.diagnostics.size(), 1u) << all(c);
  const Read e = read(skeletal(conditions(kMaxTransitionConditions, "exit_time = 1\n")));
  EXPECT_TRUE(has(e, "E0135", 16, 1)) << "at exit_time, the ninth condition\n" << all(e);
  EXPECT_EQ(e.diagnostics.size(), 1u) << all(e);
  const Read l = read(skeletal(layers(kMaxGraphLayers + 1)));
  EXPECT_TRUE(has(l, "E0135", 8, 20)) << all(l);
  const Read b = read(skeletal(points(kMaxBlendPoints + 1)));
  EXPECT_TRUE(has(b, "E0135", 12, 1)) << all(b);
  EXPECT_EQ(b.diagnostics.size(), 1u) << all(b);
  const Read m = read(skeletal(mask(kMaxMaskEntries + 1)));
  EXPECT_TRUE(has(m, "E0135", 10, 1)) << all(m);
  EXPECT_EQ(m.diagnostics.size(), 1u) << all(m);
  const Read f = read(skeletal(transitions(1) + "fade = 3600.5\n"));
  EXPECT_TRUE(has(f, "E0135", 14, 1)) << all(f);
}

TEST(SceneLimits, MoreMeshEventsThanTheLimitAreRefusedAtTheKey) {
  std::string s = "[[mesh]]\nname = \"m\"\nfile = \"m.glb\"\nevents = [";
  for (size_t i = 0; i <= kMaxAnimationEvents; ++i) {
    s += (i ? ", " : "") + std::string("{ name = \"e\", clip = \"c\", time = 0 }");
  }
  const Read r = read(s + "]\n");
  EXPECT_TRUE(has(r, "E0135", 4, 1)) << all(r);
  EXPECT_EQ(count(r, "E0135"), 1);
  EXPECT_TRUE(r.scene.meshes.at(0).events.empty());
}
}  // namespace
}  // namespace animpack
