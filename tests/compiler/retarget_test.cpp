// Joint pairing and clip retargeting (retarget.h): names folded and paired, humanoid maps,
// a rig whose joint frames are turned (and whose bones are longer) playing a retargeted clip
// with the source's model-space bone directions, dropped joints, and a rig onto itself
// bit for bit (Fox, CesiumMan).
#include "animpack/compiler/retarget.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "animpack/compiler/gltf_reader.h"
#include "animpack/compiler/import_gltf.h"
#include "animpack/math.h"
#include "animpack/skeleton.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;

Skeleton make_skeleton(std::vector<Joint> joints, const Mat4& root = {}) {
  Result<Skeleton> s = Skeleton::create(std::move(joints), {}, root);
  EXPECT_TRUE(s) << s.error().message();
  return s ? std::move(*s) : Skeleton{};
}

Skeleton named(std::vector<std::string> names) {
  std::vector<Joint> joints;
  for (size_t i = 0; i < names.size(); ++i) {
    joints.push_back({names[i], static_cast<int16_t>(i == 0 ? -1 : 0), {}});
  }
  return make_skeleton(std::move(joints));
}

Quat conj(Quat q) { return {-q.x, -q.y, -q.z, q.w}; }

TEST(Retarget, CanonicalNamesFoldCaseSeparatorsAndRigPrefixes) {
  EXPECT_EQ(canonical_joint_name("mixamorig:LeftArm"), "leftarm");
  EXPECT_EQ(canonical_joint_name("Left_Arm"), "leftarm");
  EXPECT_EQ(canonical_joint_name("left-arm"), "leftarm");
  EXPECT_EQ(canonical_joint_name("mixamorigLeftArm"), "leftarm");
  EXPECT_EQ(canonical_joint_name("Armature|mixamorig:Hips"), "hips");
  EXPECT_EQ(canonical_joint_name("Bip01 L Thigh"), "lthigh");
  EXPECT_EQ(canonical_joint_name("Bip001 Pelvis"), "pelvis");
  EXPECT_EQ(canonical_joint_name("ValveBiped.Bip01_Pelvis"), "pelvis");
  EXPECT_EQ(canonical_joint_name("DEF-upper_arm.L"), "upperarml");
  // "rig" does not end a word in "RightArm", nor "def" in "Default".
  EXPECT_EQ(canonical_joint_name("RightArm"), "rightarm");
  EXPECT_EQ(canonical_joint_name("Default"), "default");
  // A prefix alone is the name.
  EXPECT_EQ(canonical_joint_name("Armature"), "armature");
  EXPECT_EQ(canonical_joint_name("rig:"), "rig");
}

TEST(Retarget, PairsMixamoNamesWithUnderscoreNames) {
  const Skeleton source = named({"mixamorig:Hips", "mixamorig:Spine", "mixamorig:LeftArm",
                                 "mixamorig:LeftForeArm", "mixamorig:HeadTop_End"});
  const Skeleton target = named({"Hips", "Left_Fore_Arm", "Left_Arm", "Spine", "Tail"});
  const JointPairing p = pair_joints(source, target, {}, {});
  EXPECT_EQ(p.target_of, (std::vector<int>{0, 3, 2, 1, -1}));
  for (int s = 0; s < 4; ++s) EXPECT_EQ(p.how[static_cast<size_t>(s)], "name") << s;
  EXPECT_EQ(p.how[4], "");
  EXPECT_NE(p.reason[4].find("headtopend"), std::string::npos) << p.reason[4];
  EXPECT_EQ(p.unpaired_targets, (std::vector<int>{4}));
  EXPECT_EQ(p.source_hips, 0);
  EXPECT_EQ(p.target_hips, 0);
}

TEST(Retarget, EqualNamesPairBeforeFoldedOnes) {
  // "Spine" pairs with "Spine" exactly, so "spine_" has no other joint to fold onto.
  const Skeleton source = named({"Root", "Spine", "Spine_"});
  const Skeleton target = named({"Root", "spine_", "Spine"});
  const JointPairing p = pair_joints(source, target, {}, {});
  EXPECT_EQ(p.target_of, (std::vector<int>{0, 2, 1}));
}

TEST(Retarget, AmbiguousNamesStayUnpairedWithTheReason) {
  const Skeleton source = named({"Hips", "mixamorig:LeftArm"});
  const Skeleton target = named({"Hips", "Left_Arm", "left.arm"});
  const JointPairing p = pair_joints(source, target, {}, {});
  EXPECT_EQ(p.target_of[1], -1);
  EXPECT_NE(p.reason[1].find("ambiguous"), std::string::npos) << p.reason[1];
  EXPECT_NE(p.reason[1].find("'Left_Arm'"), std::string::npos) << p.reason[1];
  EXPECT_EQ(p.unpaired_targets, (std::vector<int>{1, 2}));

  // Two source joints folding to one name: neither takes the target joint.
  const JointPairing q =
      pair_joints(named({"Hips", "Left_Arm", "left.arm"}), named({"Hips", "LEFTARM"}), {}, {});
  EXPECT_EQ(q.target_of, (std::vector<int>{0, -1, -1}));
  EXPECT_NE(q.reason[1].find("source joints"), std::string::npos) << q.reason[1];
}

TEST(Retarget, HumanoidMapsPairJointsWhoseNamesDiffer) {
  const Skeleton source = named({"pelvis_jnt", "thigh_l", "UpperArmLeft", "LeftUpperArm"});
  const Skeleton target = named({"Root_Hip", "leg.L", "arm.L"});
  const HumanoidMap smap = {{"hips", "pelvis_jnt"}, {"left_upper_leg", "thigh_l"}};
  const HumanoidMap tmap = {
      {"hips", "Root_Hip"}, {"left_upper_leg", "leg.L"}, {"left_upper_arm", "arm.L"}};
  const JointPairing p = pair_joints(source, target, smap, tmap);
  // left_upper_arm is mapped for the target only: the source joint named as the bone pairs.
  EXPECT_EQ(p.target_of, (std::vector<int>{0, 1, -1, 2}));
  EXPECT_EQ(p.how[0], "humanoid:hips");
  EXPECT_EQ(p.how[1], "humanoid:left_upper_leg");
  EXPECT_EQ(p.how[3], "humanoid:left_upper_arm");
  EXPECT_EQ(p.source_hips, 0);
  EXPECT_EQ(p.target_hips, 0);
  EXPECT_TRUE(is_humanoid_bone("left_upper_arm"));
  EXPECT_FALSE(is_humanoid_bone("tail"));
}

// A small biped: hips (root) with a spine, head, one arm and one leg, rest rotations that
// are not the identity.
std::vector<Joint> biped_joints() {
  const Quat a = quat_from_axis_angle(normalize(Vec3{1, 2, 0.5f}), 0.4f);
  const Quat b = quat_from_axis_angle(normalize(Vec3{0, 0, 1}), -0.7f);
  const Quat c = quat_from_axis_angle(normalize(Vec3{0.3f, 1, -1}), 1.1f);
  return {
      {"Hips", -1, {{0, 1.0f, 0.05f}, a, {1, 1, 1}}},
      {"Spine", 0, {{0, 0.3f, 0}, b, {1, 1, 1}}},
      {"Head", 1, {{0.02f, 0.35f, 0}, c, {1, 1, 1}}},
      {"LeftArm", 1, {{0.2f, 0.25f, 0}, a * b, {1, 1, 1}}},
      {"LeftForeArm", 3, {{0.3f, 0, 0.01f}, c * a, {1, 1, 1}}},
      {"LeftUpLeg", 0, {{0.1f, -0.1f, 0}, b * c, {1, 1, 1}}},
      {"LeftLeg", 5, {{0, -0.45f, 0.02f}, {}, {1, 1, 1}}},
  };
}

// The same skeleton with every joint's rest frame turned by `turn` and every bone `k` times
// as long, under other names: a joint's rest global rotation is the source's times turn.
std::vector<Joint> turned_joints(const std::vector<Joint>& src, Quat turn, float k) {
  std::vector<Joint> out;
  for (const Joint& j : src) {
    Joint t = j;
    t.name = "rig:" + j.name;
    if (j.parent < 0) {
      t.rest.rotation = normalize(j.rest.rotation * turn);
      t.rest.translation = j.rest.translation * k;
    } else {
      t.rest.rotation = normalize(conj(turn) * j.rest.rotation * turn);
      t.rest.translation = rotate(conj(turn), j.rest.translation) * k;
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Inverse binds that bind vertices at the rest pose.
std::vector<Mat4> rest_inverse_binds(const std::vector<Joint>& joints) {
  Skeleton s = make_skeleton(joints);
  std::vector<Trs> locals(joints.size());
  std::vector<Mat4> globals(joints.size());
  EXPECT_TRUE(rest_pose(s, locals));
  EXPECT_TRUE(local_to_global(s, locals, globals));
  for (Mat4& g : globals) g = inverse_affine(g);
  return globals;
}

Skeleton bound_skeleton(const std::vector<Joint>& joints) {
  Result<Skeleton> s = Skeleton::create(joints, rest_inverse_binds(joints), {});
  EXPECT_TRUE(s) << s.error().message();
  return s ? std::move(*s) : Skeleton{};
}

// A clip moving every joint: linear rotations on some, cubic (with tangents) on others,
// a step rotation, and a linear hips translation.
Clip biped_clip() {
  Clip clip("Walk");
  const float times[] = {0.0f, 0.4f, 1.0f};
  for (uint16_t j = 0; j < 7; ++j) {
    const Vec3 axis = normalize(Vec3{1.0f + j, 0.5f - j, 0.25f * j});
    std::vector<float> v;
    const Interpolation interp = j % 3 == 0   ? Interpolation::kLinear
                                 : j % 3 == 1 ? Interpolation::kCubicSpline
                                              : Interpolation::kStep;
    for (int k = 0; k < 3; ++k) {
      const Quat rest = biped_joints()[j].rest.rotation;
      const Quat q = normalize(rest * quat_from_axis_angle(axis, 0.3f * static_cast<float>(k + 1)));
      if (interp == Interpolation::kCubicSpline) {
        v.insert(v.end(), {0.1f * k, -0.2f, 0.05f, 0.01f * j});  // in-tangent
        v.insert(v.end(), {q.x, q.y, q.z, q.w});
        v.insert(v.end(), {-0.1f, 0.15f * k, 0.02f * j, -0.03f});  // out-tangent
      } else {
        v.insert(v.end(), {q.x, q.y, q.z, q.w});
      }
    }
    clip.add_channel(j, Property::kRotation, interp, times, v);
  }
  const float hip_values[] = {0, 1.0f, 0.05f, 0.1f, 0.95f, 0.4f, 0.2f, 1.02f, 0.9f};
  clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, hip_values);
  clip.add_event("step", 0.4f);
  return clip;
}

// The global matrices of `s` posed by `clip` at time t.
std::vector<Mat4> pose_globals(const Skeleton& s, const Clip& clip, float t) {
  std::vector<Trs> locals(static_cast<size_t>(s.joint_count()));
  std::vector<Mat4> globals(locals.size());
  EXPECT_TRUE(rest_pose(s, locals));
  for (const Channel& ch : clip.channels()) {
    uint32_t cursor = 0;
    const Vec4 v = sample(ch, t, &cursor);
    Trs& l = locals[ch.joint];
    if (ch.property == Property::kRotation) l.rotation = {v.x, v.y, v.z, v.w};
    if (ch.property == Property::kTranslation) l.translation = {v.x, v.y, v.z};
    if (ch.property == Property::kScale) l.scale = {v.x, v.y, v.z};
  }
  EXPECT_TRUE(local_to_global(s, locals, globals));
  return globals;
}

Vec3 position(const Mat4& m) { return {m.m[12], m.m[13], m.m[14]}; }

TEST(Retarget, TurnedJointFramesPlayTheSourceBoneDirections) {
  const float k = 1.5f;
  const Quat turn = quat_from_axis_angle(normalize(Vec3{0.2f, -1, 0.7f}), 2.1f);
  const std::vector<Joint> src_joints = biped_joints();
  const std::vector<Joint> dst_joints = turned_joints(src_joints, turn, k);
  const Skeleton source = bound_skeleton(src_joints);
  const Skeleton target = bound_skeleton(dst_joints);
  const Clip clip = biped_clip();

  const JointPairing pairing = pair_joints(source, target, {}, {});
  EXPECT_EQ(pairing.target_of, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  const RetargetedClip r = retarget_clip(clip, source, target, pairing, {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.dropped_joints.empty());
  ASSERT_EQ(r.clip.channels().size(), clip.channels().size());
  EXPECT_EQ(r.clip.name(), "Walk");
  ASSERT_EQ(r.clip.events().size(), 1u);
  EXPECT_EQ(r.clip.events()[0].time, 0.4f);
  EXPECT_EQ(r.clip.duration(), clip.duration());
  EXPECT_TRUE(r.clip.validate(target.joint_count()));

  // Vertices bound to every joint, the target's `k` times as far from the origin.
  std::vector<Vec3> vertices;
  {
    std::vector<Trs> locals(src_joints.size());
    std::vector<Mat4> globals(src_joints.size());
    ASSERT_TRUE(rest_pose(source, locals));
    ASSERT_TRUE(local_to_global(source, locals, globals));
    for (const Mat4& g : globals) vertices.push_back(transform_point(g, {0.05f, 0.02f, -0.03f}));
  }
  for (float t : {0.0f, 0.13f, 0.4f, 0.55f, 0.77f, 1.0f, 1.2f}) {
    const std::vector<Mat4> sg = pose_globals(source, clip, t);
    const std::vector<Mat4> tg = pose_globals(target, r.clip, t);
    for (size_t j = 0; j < sg.size(); ++j) {
      const Vec3 expected = position(sg[j]) * k, got = position(tg[j]);
      EXPECT_NEAR(got.x, expected.x, 1e-4) << "joint " << j << " at " << t;
      EXPECT_NEAR(got.y, expected.y, 1e-4) << "joint " << j << " at " << t;
      EXPECT_NEAR(got.z, expected.z, 1e-4) << "joint " << j << " at " << t;
      const Vec3 vs = transform_point(sg[j] * source.inverse_binds()[j], vertices[j]) * k;
      const Vec3 vt = transform_point(tg[j] * target.inverse_binds()[j], vertices[j] * k);
      EXPECT_NEAR(vt.x, vs.x, 1e-4) << "vertex " << j << " at " << t;
      EXPECT_NEAR(vt.y, vs.y, 1e-4) << "vertex " << j << " at " << t;
      EXPECT_NEAR(vt.z, vs.z, 1e-4) << "vertex " << j << " at " << t;
    }
  }
}

TEST(Retarget, HipsTranslationScaledByTheHipHeightRatio) {
  // Target hips twice as high, under a root matrix that moves the rig sideways: the hips'
  // model-space keys are scaled by 2 about the model origin, then put in the target's frame.
  const std::vector<Joint> src_joints = biped_joints();
  std::vector<Joint> dst_joints = src_joints;
  dst_joints[0].rest.translation = {0, 2.0f, 0.1f};
  const Skeleton source = make_skeleton(src_joints);
  Mat4 root;
  root.m[12] = 3.0f;
  const Skeleton target = make_skeleton(dst_joints, root);
  const Clip clip = biped_clip();
  const RetargetedClip r =
      retarget_clip(clip, source, target, pair_joints(source, target, {}, {}), {});
  ASSERT_TRUE(r.ok) << r.error;
  const Channel* hips = nullptr;
  for (const Channel& ch : r.clip.channels()) {
    if (ch.joint == 0 && ch.property == Property::kTranslation) hips = &ch;
  }
  ASSERT_NE(hips, nullptr);
  // Height ratio: the target's rest hips (y = 2, root translation is along x) over 1.
  const float src_values[] = {0, 1.0f, 0.05f, 0.1f, 0.95f, 0.4f, 0.2f, 1.02f, 0.9f};
  ASSERT_EQ(hips->values.size(), 9u);
  for (size_t i = 0; i < 9; i += 3) {
    EXPECT_NEAR(hips->values[i], 2.0f * src_values[i] - 3.0f, 1e-6);
    EXPECT_NEAR(hips->values[i + 1], 2.0f * src_values[i + 1], 1e-6);
    EXPECT_NEAR(hips->values[i + 2], 2.0f * src_values[i + 2], 1e-6);
  }
  bool noted = false;
  for (const std::string& n : r.notes) noted |= n.find("hip ratio 2") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Retarget, OtherTranslationsKeptOnlyWhereRestValuesAgree) {
  const std::vector<Joint> src_joints = biped_joints();
  std::vector<Joint> dst_joints = src_joints;
  dst_joints[2].rest.translation = {0.02f, 0.5f, 0};  // a longer neck
  const Skeleton source = make_skeleton(src_joints), target = make_skeleton(dst_joints);
  Clip clip("Stretch");
  const float times[] = {0.0f, 1.0f};
  const float head[] = {0.02f, 0.35f, 0, 0.02f, 0.4f, 0};
  const float arm[] = {0.3f, 0, 0.01f, 0.35f, 0, 0.01f};
  const float scale[] = {1, 1, 1, 1.2f, 1.2f, 1.2f};
  const float hips[] = {0, 1.0f, 0.05f, 0, 1.1f, 0.05f};  // the hips: the root-most translated
  clip.add_channel(0, Property::kTranslation, Interpolation::kLinear, times, hips);
  clip.add_channel(2, Property::kTranslation, Interpolation::kLinear, times, head);
  clip.add_channel(4, Property::kTranslation, Interpolation::kLinear, times, arm);
  clip.add_channel(4, Property::kScale, Interpolation::kLinear, times, scale);
  const RetargetedClip r =
      retarget_clip(clip, source, target, pair_joints(source, target, {}, {}), {});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.clip.channels().size(), 3u);
  EXPECT_EQ(r.clip.channels()[0].joint, 0);
  for (const Channel& ch : r.clip.channels().subspan(1)) {
    EXPECT_EQ(ch.joint, 4);
    const float* expected = ch.property == Property::kScale ? scale : arm;
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(ch.values[i], expected[i]);
  }
  bool noted = false;
  for (const std::string& n : r.notes) noted |= n.find("'Head': translation") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Retarget, JointsWithoutAPairAreDroppedAndListed) {
  const std::vector<Joint> src_joints = biped_joints();
  std::vector<Joint> dst_joints(src_joints.begin(), src_joints.begin() + 3);  // no arm, no leg
  const Skeleton source = make_skeleton(src_joints), target = make_skeleton(dst_joints);
  const JointPairing p = pair_joints(source, target, {}, {});
  EXPECT_EQ(p.target_of, (std::vector<int>{0, 1, 2, -1, -1, -1, -1}));
  const RetargetedClip r = retarget_clip(biped_clip(), source, target, p, {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.dropped_joints, (std::vector<int>{3, 4, 5, 6}));
  for (const Channel& ch : r.clip.channels()) EXPECT_LT(ch.joint, 3);
  EXPECT_EQ(r.clip.channels().size(), 4u);  // three rotations and the hips translation
  EXPECT_TRUE(r.clip.validate(target.joint_count()));
}

TEST(Retarget, NoJointInCommonIsAnError) {
  const Skeleton source = make_skeleton(biped_joints());
  const Skeleton target = named({"Tail", "Fin"});
  const JointPairing p = pair_joints(source, target, {}, {});
  for (int t : p.target_of) EXPECT_EQ(t, -1);
  EXPECT_EQ(p.source_hips, -1);
  const RetargetedClip r = retarget_clip(biped_clip(), source, target, p, {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no joint"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("'Walk'"), std::string::npos) << r.error;
  EXPECT_TRUE(r.clip.channels().empty());
}

TEST(Retarget, APairingOfTheWrongSizeIsAnError) {
  const Skeleton source = make_skeleton(biped_joints());
  JointPairing p = pair_joints(source, source, {}, {});
  p.target_of.pop_back();
  const RetargetedClip r = retarget_clip(biped_clip(), source, source, p, {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("pairing"), std::string::npos) << r.error;
}

TEST(Retarget, WeightsChannelsPassThroughWhenMorphSetsMatch) {
  const Skeleton source = make_skeleton(biped_joints());
  Clip clip("Blink");
  const float times[] = {0.0f, 0.5f};
  const float rot[] = {0, 0, 0, 1, 0, 0, 0, 1};
  const float weights[] = {0, 1, 0.5f, 0.25f};
  clip.add_channel(1, Property::kRotation, Interpolation::kLinear, times, rot);
  clip.add_weights_channel(3, 2, Interpolation::kStep, times, weights);
  const JointPairing p = pair_joints(source, source, {}, {});
  RetargetOptions options;
  const RetargetedClip dropped = retarget_clip(clip, source, source, p, options);
  ASSERT_TRUE(dropped.ok) << dropped.error;
  EXPECT_EQ(dropped.clip.channels().size(), 1u);
  EXPECT_FALSE(dropped.notes.empty());
  options.morph_sets_match = true;
  const RetargetedClip kept = retarget_clip(clip, source, source, p, options);
  ASSERT_TRUE(kept.ok) << kept.error;
  ASSERT_EQ(kept.clip.channels().size(), 2u);
  const Channel& w = kept.clip.channels()[1];
  EXPECT_EQ(w.property, Property::kWeights);
  EXPECT_EQ(w.joint, 3);
  EXPECT_EQ(w.width, 2);
  EXPECT_EQ(w.interpolation, Interpolation::kStep);
  ASSERT_EQ(w.values.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(w.values[i], weights[i]);
}

TEST(Retarget, ByNamePairingRenumbersJointsWithoutChangingKeys) {
  const std::vector<Joint> src_joints = biped_joints();
  // The same joints in another order (parents still first): Hips, LeftUpLeg, LeftLeg, Spine...
  std::vector<Joint> dst_joints = {src_joints[0], src_joints[5], src_joints[6], src_joints[1],
                                   src_joints[2], src_joints[3], src_joints[4]};
  const int16_t parents[] = {-1, 0, 1, 0, 3, 3, 5};
  for (size_t i = 0; i < dst_joints.size(); ++i) dst_joints[i].parent = parents[i];
  const Skeleton source = make_skeleton(src_joints), target = make_skeleton(dst_joints);
  const JointPairing p = pair_joints_by_name(source, target);
  EXPECT_EQ(p.target_of, (std::vector<int>{0, 3, 4, 5, 6, 1, 2}));
  RetargetOptions options;
  options.retarget = false;
  const Clip clip = biped_clip();
  const RetargetedClip r = retarget_clip(clip, source, target, p, options);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.clip.channels().size(), clip.channels().size());
  for (size_t c = 0; c < clip.channels().size(); ++c) {
    const Channel &a = clip.channels()[c], &b = r.clip.channels()[c];
    EXPECT_EQ(b.joint, p.target_of[a.joint]);
    ASSERT_EQ(a.values.size(), b.values.size());
    for (size_t i = 0; i < a.values.size(); ++i) EXPECT_EQ(a.values[i], b.values[i]);
  }
  const JointPairing none = pair_joints_by_name(source, named({"hips"}));
  EXPECT_EQ(none.target_of[0], -1);
  EXPECT_NE(none.reason[0].find("'Hips'"), std::string::npos) << none.reason[0];
}

// Every clip of `file` retargeted onto its own rig: every channel and key equal with ==.
void expect_self_retarget_is_identity(const fs::path& file) {
  const GltfDocument doc = read_gltf(file);
  ASSERT_TRUE(doc.ok()) << file;
  const ImportedModel model = import_gltf(doc, "m", file.filename().string());
  ASSERT_TRUE(model.ok() && model.rig) << file;
  const Rig& rig = model.rig->rig;
  const Skeleton& s = rig.skeleton();
  const JointPairing p = pair_joints(s, s, {}, {});
  for (int j = 0; j < s.joint_count(); ++j) EXPECT_EQ(p.target_of[static_cast<size_t>(j)], j);
  ASSERT_GT(rig.clip_count(), 0);
  for (const Clip& clip : rig.clips()) {
    const RetargetedClip r = retarget_clip(clip, s, s, p, {});
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.dropped_joints.empty());
    EXPECT_EQ(r.clip.name(), clip.name());
    EXPECT_EQ(r.clip.duration(), clip.duration());
    ASSERT_EQ(r.clip.channels().size(), clip.channels().size()) << clip.name();
    for (size_t c = 0; c < clip.channels().size(); ++c) {
      const Channel &a = clip.channels()[c], &b = r.clip.channels()[c];
      EXPECT_EQ(a.joint, b.joint);
      EXPECT_EQ(a.property, b.property);
      EXPECT_EQ(a.interpolation, b.interpolation);
      ASSERT_EQ(a.times.size(), b.times.size());
      ASSERT_EQ(a.values.size(), b.values.size());
      for (size_t i = 0; i < a.times.size(); ++i) EXPECT_EQ(a.times[i], b.times[i]);
      for (size_t i = 0; i < a.values.size(); ++i) {
        ASSERT_EQ(a.values[i], b.values[i]) << clip.name() << " channel " << c << " value " << i;
      }
    }
  }
}

TEST(Retarget, FoxOntoItselfIsBitIdentical) {
  expect_self_retarget_is_identity(fs::path(ANIMPACK_CORPUS_DIR) / "gltf/Fox/glTF-Binary/Fox.glb");
}

TEST(Retarget, CesiumManOntoItselfIsBitIdentical) {
  expect_self_retarget_is_identity(fs::path(ANIMPACK_CORPUS_DIR) /
                                   "gltf/CesiumMan/glTF-Binary/CesiumMan.glb");
}

}  // namespace
}  // namespace animpack
