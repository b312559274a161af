// FBX and Collada through Assimp (import_assimp.h). Assimp runs twice: first in a process
// of its own (animpack-assimp-trial, assimp_trial_main.cpp) under a time and memory limit (a
// crafted file may make Assimp 5.2 hang, abort on an assertion Debian's build keeps, or
// crash; that process takes it, the cooker does not), then, when that read succeeded, in
// this process, where the scene is converted. docs/assimp.md gives the measured losses.

#include "animpack/compiler/import_assimp.h"

#include <assimp/anim.h>
#include <assimp/material.h>
#include <assimp/mesh.h>
#include <assimp/scene.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stb/stb_image.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "animpack/compiler/input_file.h"
#include "animpack/compiler/mesh_generate.h"
#include "assimp_read.h"
#include "import_internal.h"

namespace animpack {
namespace {

namespace fs = std::filesystem;
using import_detail::idx;
using import_detail::Issues;

using assimp_read::configure;
using assimp_read::kReadFlags;

// ---------------------------------------------------------------------------------------
// Before Assimp: the file's size and first bytes.

std::string lower_extension(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// Empty when the header fits the extension; else why not.
std::string check_header(const std::string& ext, const std::vector<uint8_t>& head) {
  const auto starts = [&](std::string_view s) {
    return head.size() >= s.size() && std::memcmp(head.data(), s.data(), s.size()) == 0;
  };
  // Text formats: no NUL byte in the first bytes (a binary file is not ASCII FBX or XML).
  const bool text = std::find(head.begin(), head.end(), uint8_t{0}) == head.end();
  if (ext == ".fbx") {
    if (starts("Kaydara FBX Binary")) return {};
    if (text) return {};
    return "is neither a binary FBX file (it does not start with \"Kaydara FBX Binary\") nor "
           "an ASCII one";
  }
  if (ext == ".dae") {
    size_t i = starts("\xEF\xBB\xBF") ? 3 : 0;
    while (i < head.size() &&
           (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) {
      ++i;
    }
    if (text && i < head.size() && head[i] == '<') return {};
    return "is not a Collada file (XML starting with '<')";
  }
  return {};
}

// ---------------------------------------------------------------------------------------
// The trial read in a process of its own.

struct TrialResult {
  bool ok = false;
  std::string reason;  // why not, for the issue's message
};

// The last non-empty line of `text`, at most 300 characters.
std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return {};
  size_t begin = text.find_last_of('\n', end);
  begin = begin == std::string::npos ? 0 : begin + 1;
  std::string line = text.substr(begin, end + 1 - begin);
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line;
}

// The file actions and attributes of one posix_spawn, destroyed with it.
class SpawnSetup {
 public:
  SpawnSetup() {
    ok_ = posix_spawn_file_actions_init(&actions_) == 0;
    if (ok_ && posix_spawnattr_init(&attr_) != 0) {
      posix_spawn_file_actions_destroy(&actions_);
      ok_ = false;
    }
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup() {
    if (ok_) {
      posix_spawnattr_destroy(&attr_);
      posix_spawn_file_actions_destroy(&actions_);
    }
  }
  // stdin from /dev/null, stdout and stderr into `write_fd`; no signal blocked, and the
  // signals a cooker might ignore or handle back to their defaults (SIGXCPU must end it).
  bool prepare(int write_fd) {
    if (!ok_) return false;
    sigset_t none;
    sigset_t defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGXCPU, SIGXFSZ, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) {
      sigaddset(&defaults, sig);
    }
    return posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0) ==
               0 &&
           posix_spawn_file_actions_adddup2(&actions_, write_fd, STDOUT_FILENO) == 0 &&
           posix_spawn_file_actions_adddup2(&actions_, write_fd, STDERR_FILENO) == 0 &&
           posix_spawnattr_setsigmask(&attr_, &none) == 0 &&
           posix_spawnattr_setsigdefault(&attr_, &defaults) == 0 &&
           posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) == 0;
  }
  const posix_spawn_file_actions_t* actions() const { return &actions_; }
  const posix_spawnattr_t* attr() const { return &attr_; }

 private:
  posix_spawn_file_actions_t actions_{};
  posix_spawnattr_t attr_{};
  bool ok_ = false;
};

// The trial read: animpack-assimp-trial FILE, started with posix_spawn (no fork of this
// process, which may be cooking on other threads), its output read through a close-on-exec
// pipe (so a trial started at the same moment by another thread does not inherit it), ended
// after kAssimpMaxSeconds of wall-clock time (it ends itself after as much CPU time).
TrialResult trial_read(const fs::path& file) {
  const AssimpTrialProgram program = find_assimp_trial_program();
  if (program.path.empty()) {
    return {false, "the trial read's program animpack-assimp-trial was not found (looked for " +
                       program.looked + "; " + kAssimpTrialEnvironment + " may name it)"};
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return {false, "no pipe for the trial read: " + error_text(errno)};
  }
  std::string program_text = program.path.string();
  std::string file_text = file.string();
  char* child_argv[] = {program_text.data(), file_text.data(), nullptr};
  pid_t pid = -1;
  int spawn_error = EINVAL;
  {
    SpawnSetup setup;
    if (setup.prepare(pipe_fds[1])) {
      spawn_error = posix_spawn(&pid, program_text.c_str(), setup.actions(), setup.attr(),
                                child_argv, environ);
    }
  }
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    return {false, "the trial read's program " + program_text +
                       " could not be started: " + error_text(spawn_error)};
  }
  std::string output;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kAssimpMaxSeconds);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: it has finished
    if (output.size() < 65536) output.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return {false, "Assimp did not finish reading the file within " +
                       std::to_string(kAssimpMaxSeconds) + " s"};
  }
  const std::string said = last_line(output);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string why = sig == SIGXCPU ? "Assimp ran past its CPU time limit"
                      : sig == SIGABRT
                          ? "Assimp aborted reading the file (a failed assertion)"
                          : "Assimp crashed reading the file (signal " + std::to_string(sig) + ")";
    if (!said.empty()) why += ": " + said;
    return {false, why};
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == assimp_read::kTrialRead) return {true, {}};
  if (code == assimp_read::kTrialNullScene) {
    return {false, said.empty() ? "Assimp gave no scene" : said};
  }
  if (code == assimp_read::kTrialException) {
    return {false, said.empty() ? "Assimp failed (out of memory?)" : "Assimp failed: " + said};
  }
  return {false, "the trial read's program " + program_text + " ended with status " +
                     std::to_string(code) + (said.empty() ? "" : ": " + said)};
}

// ---------------------------------------------------------------------------------------
// Conversions

// Assimp's row-major matrix as ours (column-major). A last row within 1e-5 of (0 0 0 1)
// (FBX offset matrices come out of a double inverse with noise there) is made exact, so
// the runtime takes the matrix as affine; a farther one is kept and refused later.
Mat4 to_mat4(const aiMatrix4x4& a) {
  Mat4 m;
  for (unsigned r = 0; r < 4; ++r) {
    for (unsigned c = 0; c < 4; ++c) m.m[c * 4 + r] = a[r][c];
  }
  const bool near_affine = std::fabs(m.m[3]) <= 1e-5f && std::fabs(m.m[7]) <= 1e-5f &&
                           std::fabs(m.m[11]) <= 1e-5f && std::fabs(m.m[15] - 1.0f) <= 1e-5f;
  if (near_affine) {
    m.m[3] = m.m[7] = m.m[11] = 0.0f;
    m.m[15] = 1.0f;
  }
  return m;
}

Vec3 to_vec3(const aiVector3D& v) { return {v.x, v.y, v.z}; }

// An Assimp quaternion (w, x, y, z) as ours (x, y, z, w), normalised.
Quat to_quat(const aiQuaternion& q) { return normalize(Quat{q.x, q.y, q.z, q.w}); }

float det3(const Mat4& m) {
  const float* a = m.m;
  return a[0] * (a[5] * a[10] - a[9] * a[6]) + a[4] * (a[9] * a[2] - a[1] * a[10]) +
         a[8] * (a[1] * a[6] - a[5] * a[2]);
}

Mat4 normal_matrix(const Mat4& m) {
  Mat4 linear = m;
  linear.m[12] = linear.m[13] = linear.m[14] = 0.0f;
  bool ok = false;
  const Mat4 inv = inverse_affine(linear, &ok);
  if (!ok) return linear;
  Mat4 out;
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 3; ++r) out.m[c * 4 + r] = inv.m[r * 4 + c];
  }
  return out;
}

void transform_part(CookedPart& part, const Mat4& m, bool mirror) {
  for (Vec3& p : part.positions) p = transform_point(m, p);
  const Mat4 n = normal_matrix(m);
  for (Vec3& v : part.normals) v = normalize(transform_vector(n, v));
  for (Vec4& t : part.tangents) {
    const Vec3 d = normalize(transform_vector(m, {t.x, t.y, t.z}));
    t = {d.x, d.y, d.z, mirror ? -t.w : t.w};
  }
  if (mirror) {
    for (size_t i = 0; i + 2 < part.indices.size(); i += 3) {
      std::swap(part.indices[i + 1], part.indices[i + 2]);
    }
  }
}

bool near_matrix(const Mat4& a, const Mat4& b, float tolerance) {
  for (int i = 0; i < 16; ++i) {
    const float scale = std::max({1.0f, std::fabs(a.m[i]), std::fabs(b.m[i])});
    if (!(std::fabs(a.m[i] - b.m[i]) <= tolerance * scale)) return false;
  }
  return true;
}

template <typename T>
bool finite_floats(const T& value) {
  static_assert(sizeof(T) % sizeof(float) == 0);
  float f[sizeof(T) / sizeof(float)];
  std::memcpy(f, &value, sizeof f);
  return std::all_of(std::begin(f), std::end(f), [](float x) { return std::isfinite(x); });
}

// ---------------------------------------------------------------------------------------
// The conversion of a read scene

class Converter {
 public:
  Converter(const aiScene& scene, const fs::path& folder, ImportedModel* out)
      : scene_(scene), folder_(folder), out_(out), issues_(&out->issues) {}

  void run() {
    walk();
    if (!has_triangles()) {
      issues_.error("/meshes", "ASSIMP_NO_MESHES",
                    "The file has no triangle mesh (" + std::to_string(scene_.mNumMeshes) +
                        " meshes, none with triangles).");
      return;
    }
    report_losses();
    bool have_rig = false;
    if (has_bones()) {
      if (!build_skin_joints()) return;
      have_rig = true;
    } else if (animates_scene()) {
      for (size_t n = 0; n < nodes_.size(); ++n) add_joint(n);
      inverse_binds_.assign(joints_.size(), Mat4{});
      node_rig_ = true;
      have_rig = true;
    }
    if (have_rig && joints_.size() > kGltfMaxSkinJoints) {
      issues_.error("/nodes", "RIG_TOO_MANY_JOINTS",
                    "The rig has " + std::to_string(joints_.size()) + " joints; at most " +
                        std::to_string(kGltfMaxSkinJoints) + " are taken.");
      return;
    }
    build_parts();
    check_finite();
    std::vector<Clip> clips = build_clips(have_rig);
    if (!have_rig || !out_->ok()) return;
    auto skeleton = Skeleton::create(std::move(joints_), std::move(inverse_binds_), root_);
    if (!skeleton) {
      issues_.error("/nodes", "RIG_INVALID",
                    std::string("The skeleton is refused: ") + skeleton.error().message() + ".");
      return;
    }
    auto rig = Rig::create(std::move(*skeleton), std::move(clips));
    if (!rig) {
      issues_.error("/animations", "RIG_INVALID",
                    std::string("The rig is refused: ") + rig.error().message() + ".");
      return;
    }
    CookedRig cooked;
    cooked.rig = std::move(*rig);
    cooked.joint_source_nodes = std::move(joint_nodes_);
    cooked.clip_source_animations = std::move(clip_sources_);
    cooked.node_rig = node_rig_;
    out_->rig = std::move(cooked);
  }

 private:
  struct WalkedNode {
    const aiNode* node = nullptr;
    int parent = -1;  // walk index
    Mat4 local;
    Mat4 world;
  };

  // Depth first in child order (parents first), iteratively; a node reached twice is
  // walked once.
  void walk() {
    if (!scene_.mRootNode) return;
    std::vector<std::pair<const aiNode*, int>> stack{{scene_.mRootNode, -1}};
    std::set<const aiNode*> seen;
    while (!stack.empty()) {
      const auto [node, parent] = stack.back();
      stack.pop_back();
      if (!node || !seen.insert(node).second) continue;
      WalkedNode w;
      w.node = node;
      w.parent = parent;
      w.local = to_mat4(node->mTransformation);
      w.world =
          parent < 0 ? w.local : mul_affine(nodes_[static_cast<size_t>(parent)].world, w.local);
      const int index = static_cast<int>(nodes_.size());
      nodes_.push_back(w);
      by_name_.emplace(node->mName.C_Str(), index);  // the first node of a name
      for (unsigned c = node->mNumChildren; c-- > 0;) stack.push_back({node->mChildren[c], index});
    }
    joint_of_.assign(nodes_.size(), -1);
  }

  const aiMesh* mesh(unsigned m) const {
    return m < scene_.mNumMeshes ? scene_.mMeshes[m] : nullptr;
  }

  bool has_triangles() const {
    for (const WalkedNode& w : nodes_) {
      for (unsigned k = 0; k < w.node->mNumMeshes; ++k) {
        const aiMesh* me = mesh(w.node->mMeshes[k]);
        if (me && (me->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) && me->mNumVertices > 0) {
          return true;
        }
      }
    }
    return false;
  }

  bool has_bones() const {
    for (const WalkedNode& w : nodes_) {
      for (unsigned k = 0; k < w.node->mNumMeshes; ++k) {
        const aiMesh* me = mesh(w.node->mMeshes[k]);
        if (me && me->mNumBones > 0) return true;
      }
    }
    return false;
  }

  int node_named(const aiString& name) const {
    const auto it = by_name_.find(name.C_Str());
    return it == by_name_.end() ? -1 : it->second;
  }

  bool animates_scene() const {
    for (unsigned a = 0; a < scene_.mNumAnimations; ++a) {
      const aiAnimation* anim = scene_.mAnimations[a];
      for (unsigned c = 0; anim && c < anim->mNumChannels; ++c) {
        if (anim->mChannels[c] && node_named(anim->mChannels[c]->mNodeName) >= 0) return true;
      }
    }
    return false;
  }

  // What the scene has that the import does not take: a warning each.
  void report_losses() {
    for (unsigned m = 0; m < scene_.mNumMeshes; ++m) {
      const aiMesh* me = scene_.mMeshes[m];
      if (me && me->mNumAnimMeshes > 0) {
        issues_.warning(idx("/meshes", m), "ASSIMP_LOSSY",
                        "The mesh has " + std::to_string(me->mNumAnimMeshes) +
                            " morph targets (aiAnimMesh); they are not imported from Assimp.");
      }
    }
    for (unsigned a = 0; a < scene_.mNumAnimations; ++a) {
      const aiAnimation* anim = scene_.mAnimations[a];
      if (anim && (anim->mNumMorphMeshChannels > 0 || anim->mNumMeshChannels > 0)) {
        issues_.warning(idx("/animations", a), "ASSIMP_LOSSY",
                        "The animation's morph or mesh channels are not imported from Assimp.");
      }
    }
  }

  // Bone nodes, the nodes between them and the ancestors joining root bones with
  // different parents (as import_gltf does); their inverse binds from mOffsetMatrix.
  bool build_skin_joints() {
    std::vector<bool> in_rig(nodes_.size(), false), is_bone(nodes_.size(), false);
    std::vector<Mat4> offsets(nodes_.size());
    for (const WalkedNode& w : nodes_) {
      for (unsigned k = 0; k < w.node->mNumMeshes; ++k) {
        const unsigned m = w.node->mMeshes[k];
        const aiMesh* me = mesh(m);
        for (unsigned b = 0; me && b < me->mNumBones; ++b) {
          const aiBone* bone = me->mBones[b];
          const int n = node_named(bone->mName);
          if (n < 0) {
            issues_.error(
                idx(idx("/meshes", m) + "/bones", b), "SKIN_JOINT_NOT_IN_SCENE",
                std::string("Bone '") + bone->mName.C_Str() + "' names no node of the scene.");
            return false;
          }
          const size_t u = static_cast<size_t>(n);
          if (!is_bone[u]) offsets[u] = to_mat4(bone->mOffsetMatrix);
          in_rig[u] = is_bone[u] = true;
        }
      }
    }
    for (size_t n = 0; n < nodes_.size(); ++n) {
      if (!is_bone[n]) continue;
      std::vector<int> chain;
      int x = nodes_[n].parent;
      while (x >= 0 && !is_bone[static_cast<size_t>(x)]) {
        chain.push_back(x);
        x = nodes_[static_cast<size_t>(x)].parent;
      }
      if (x >= 0) {
        for (int c : chain) in_rig[static_cast<size_t>(c)] = true;
      }
    }
    std::vector<int> roots;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const int p = nodes_[n].parent;
      if (in_rig[n] && (p < 0 || !in_rig[static_cast<size_t>(p)]))
        roots.push_back(static_cast<int>(n));
    }
    int common = roots.empty() ? -1 : nodes_[static_cast<size_t>(roots[0])].parent;
    const bool shared = std::all_of(roots.begin(), roots.end(), [&](int r) {
      return nodes_[static_cast<size_t>(r)].parent == common;
    });
    if (!shared) {
      const auto above = [&](int ancestor, int n) {
        for (int x = nodes_[static_cast<size_t>(n)].parent; x >= 0;
             x = nodes_[static_cast<size_t>(x)].parent) {
          if (x == ancestor) return true;
        }
        return false;
      };
      common = -1;
      for (int x = nodes_[static_cast<size_t>(roots[0])].parent; x >= 0;
           x = nodes_[static_cast<size_t>(x)].parent) {
        if (std::all_of(roots.begin(), roots.end(), [&](int r) { return above(x, r); })) {
          common = x;
          break;
        }
      }
      for (int r : roots) {
        for (int x = nodes_[static_cast<size_t>(r)].parent; x >= 0 && x != common;
             x = nodes_[static_cast<size_t>(x)].parent) {
          in_rig[static_cast<size_t>(x)] = true;
        }
      }
    }
    root_ = common >= 0 ? nodes_[static_cast<size_t>(common)].world : Mat4{};
    for (size_t n = 0; n < nodes_.size(); ++n) {
      if (in_rig[n]) add_joint(n);
    }
    inverse_binds_.assign(joints_.size(), Mat4{});
    for (size_t n = 0; n < nodes_.size(); ++n) {
      if (is_bone[n]) inverse_binds_[static_cast<size_t>(joint_of_[n])] = offsets[n];
    }
    return true;
  }

  void add_joint(size_t n) {
    Joint joint;
    const std::string name = nodes_[n].node->mName.C_Str();
    joint.name = name.empty() ? "node_" + std::to_string(n) : name;
    int parent = -1;
    for (int x = nodes_[n].parent; x >= 0; x = nodes_[static_cast<size_t>(x)].parent) {
      if (joint_of_[static_cast<size_t>(x)] >= 0) {
        parent = joint_of_[static_cast<size_t>(x)];
        break;
      }
    }
    joint.parent =
        static_cast<int16_t>(joints_.size() < static_cast<size_t>(kMaxJoints) ? parent : -1);
    joint.rest = decompose(nodes_[n].local);
    joint_of_[n] = static_cast<int>(joints_.size());
    joints_.push_back(std::move(joint));
    joint_nodes_.push_back(static_cast<int>(n));
  }

  int carrying_joint(int n) const {
    for (int x = n; x >= 0; x = nodes_[static_cast<size_t>(x)].parent) {
      if (joint_of_[static_cast<size_t>(x)] >= 0) return x;
    }
    return -1;
  }

  void build_parts() {
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const aiNode* node = nodes_[n].node;
      for (unsigned k = 0; k < node->mNumMeshes; ++k) build_part(static_cast<int>(n), k);
    }
  }

  void build_part(int n, unsigned k) {
    const WalkedNode& w = nodes_[static_cast<size_t>(n)];
    const unsigned m = w.node->mMeshes[k];
    const aiMesh* me = mesh(m);
    const std::string at = idx("/meshes", m);
    if (!me || me->mNumVertices == 0 || !me->mVertices) {
      issues_.warning(at, "PRIMITIVE_NO_POSITION", "The mesh has no vertices; it is skipped.");
      return;
    }
    CookedPart part;
    part.source_node = n;
    part.source_mesh = static_cast<int>(m);
    part.source_primitive = static_cast<int>(k);
    const unsigned count = me->mNumVertices;
    size_t skipped_faces = 0;
    for (unsigned f = 0; f < me->mNumFaces; ++f) {
      const aiFace& face = me->mFaces[f];
      if (face.mNumIndices != 3 || !face.mIndices || face.mIndices[0] >= count ||
          face.mIndices[1] >= count || face.mIndices[2] >= count) {
        ++skipped_faces;
        continue;
      }
      part.indices.insert(part.indices.end(),
                          {face.mIndices[0], face.mIndices[1], face.mIndices[2]});
    }
    if (skipped_faces > 0) {
      issues_.warning(at, "PRIMITIVE_NOT_TRIANGLES",
                      std::to_string(skipped_faces) +
                          " faces of the mesh are points or lines; they are skipped.");
    }
    if (part.indices.empty()) return;
    part.positions.resize(count);
    for (unsigned v = 0; v < count; ++v) part.positions[v] = to_vec3(me->mVertices[v]);
    if (me->mNormals) {
      part.normals.resize(count);
      for (unsigned v = 0; v < count; ++v) part.normals[v] = normalize(to_vec3(me->mNormals[v]));
    }
    if (me->mNormals && me->mTangents && me->mBitangents) {
      part.tangents.resize(count);
      for (unsigned v = 0; v < count; ++v) {
        const Vec3 t = normalize(to_vec3(me->mTangents[v]));
        const Vec3 b = to_vec3(me->mBitangents[v]);
        const float hand = dot(cross(part.normals[v], t), b) < 0.0f ? -1.0f : 1.0f;
        part.tangents[v] = {t.x, t.y, t.z, hand};
      }
    }
    // Assimp's texture coordinates have v up (OpenGL); the pack's are glTF's (v down).
    for (unsigned set = 0; set < 2; ++set) {
      if (!me->mTextureCoords[set]) continue;
      std::vector<Vec2>& uv = set == 0 ? part.texcoords0 : part.texcoords1;
      uv.resize(count);
      for (unsigned v = 0; v < count; ++v) {
        uv[v] = {me->mTextureCoords[set][v].x, 1.0f - me->mTextureCoords[set][v].y};
      }
    }
    if (me->mColors[0]) {
      part.colors.resize(count);
      for (unsigned v = 0; v < count; ++v) {
        const aiColor4D& c = me->mColors[0][v];
        part.colors[v] = {c.r, c.g, c.b, c.a};
      }
    }
    part.material = model_material(me->mMaterialIndex);
    part.source_vertices.resize(count);
    for (uint32_t v = 0; v < count; ++v) part.source_vertices[v] = v;

    const bool skinned = me->mNumBones > 0 && !node_rig_;
    if (skinned && !skin_part(part, *me, at)) return;
    if (part.normals.empty()) {
      generate_flat_normals(part);
      issues_.note(at, "NORMALS_GENERATED",
                   "The mesh has no normals; flat normals were generated (" +
                       std::to_string(part.positions.size()) + " vertices after unwelding).");
    }
    if (!skinned && !node_rig_ && carrying_joint(n) >= 0) {
      attach_part(part, n, carrying_joint(n));
    } else if (!skinned && node_rig_) {
      part.joint = joint_of_[static_cast<size_t>(n)];
    } else if (!skinned) {
      transform_part(part, w.world, det3(w.world) < 0.0f);
    }
    out_->mesh.parts.push_back(std::move(part));
  }

  // Influences from the mesh's bones: the eight largest per vertex (by weight, then by
  // joint), renormalised; joints1/weights1 only when a vertex has more than four.
  bool skin_part(CookedPart& part, const aiMesh& me, const std::string& at) {
    const unsigned count = me.mNumVertices;
    std::vector<std::vector<std::pair<float, uint16_t>>> influences(count);
    // A mesh whose bind (mOffsetMatrix) differs from the joint's inverse bind (from the
    // first mesh that has the bone) by one matrix M = inverse(ibm) * offset is moved by M;
    // an inconsistent one keeps its vertices, with a warning.
    bool have_move = false, inconsistent = false;
    Mat4 move;
    for (unsigned b = 0; b < me.mNumBones; ++b) {
      const aiBone* bone = me.mBones[b];
      const int joint = joint_of_[static_cast<size_t>(node_named(bone->mName))];
      const Mat4& ibm = inverse_binds_[static_cast<size_t>(joint)];
      const Mat4 offset = to_mat4(bone->mOffsetMatrix);
      bool invertible = false;
      const Mat4 m = mul_affine(inverse_affine(ibm, &invertible), offset);
      if (!have_move) {
        move = m;
        have_move = true;
      } else if (!near_matrix(move, m, 1e-4f)) {
        inconsistent = true;
      }
      for (unsigned i = 0; i < bone->mNumWeights; ++i) {
        const aiVertexWeight& vw = bone->mWeights[i];
        if (vw.mVertexId >= count || !(vw.mWeight > 0.0f)) continue;
        influences[vw.mVertexId].push_back({vw.mWeight, static_cast<uint16_t>(joint)});
      }
    }
    if (inconsistent) {
      issues_.warning(at, "ASSIMP_LOSSY",
                      "The mesh's bone offset matrices do not agree with the inverse binds "
                      "the joints took from an earlier mesh by one matrix; its vertices are "
                      "kept as they are.");
    } else if (have_move && !near_matrix(move, Mat4{}, 0.0f)) {
      transform_part(part, move, det3(move) < 0.0f);
    }
    part.joints.resize(count);
    part.weights.resize(count);
    bool eight = false;
    for (const auto& list : influences) eight = eight || list.size() > 4;
    if (eight) {
      part.joints1.resize(count);
      part.weights1.resize(count);
    }
    size_t no_weight = 0, first_no_weight = 0;
    for (unsigned v = 0; v < count; ++v) {
      auto& list = influences[v];
      // The same joint twice (two bones of one node) is one influence.
      std::sort(list.begin(), list.end(),
                [](const auto& a, const auto& b) { return a.second < b.second; });
      std::vector<std::pair<float, uint16_t>> merged;
      for (const auto& [weight, joint] : list) {
        if (!merged.empty() && merged.back().second == joint) {
          merged.back().first += weight;
        } else {
          merged.push_back({weight, joint});
        }
      }
      std::stable_sort(merged.begin(), merged.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      if (merged.size() > 8) merged.resize(8);
      double sum = 0.0;
      for (const auto& [weight, joint] : merged) sum += static_cast<double>(weight);
      if (!(sum > 0.0)) {
        if (no_weight++ == 0) first_no_weight = v;
        part.weights[v] = {1, 0, 0, 0};
        continue;
      }
      float w[8] = {};
      uint16_t j[8] = {};
      for (size_t i = 0; i < merged.size(); ++i) {
        w[i] = static_cast<float>(static_cast<double>(merged[i].first) / sum);
        j[i] = merged[i].second;
      }
      part.joints[v] = JointIndices{{j[0], j[1], j[2], j[3]}};
      part.weights[v] = {w[0], w[1], w[2], w[3]};
      if (eight) {
        part.joints1[v] = JointIndices{{j[4], j[5], j[6], j[7]}};
        part.weights1[v] = {w[4], w[5], w[6], w[7]};
      }
    }
    if (no_weight > 0) {
      issues_.error(at, "SKIN_VERTEX_NO_WEIGHT",
                    std::to_string(no_weight) + " vertices (the first is " +
                        std::to_string(first_no_weight) + ") of the skinned mesh have no weight.");
      return false;
    }
    return true;
  }

  // A rigid mesh on node n under (or at) rig joint node j: skinned to j alone, placed so
  // the rest palette puts it where the scene does (import_gltf's attach_part).
  void attach_part(CookedPart& part, int n, int j) {
    const int joint = joint_of_[static_cast<size_t>(j)];
    Mat4 relative;
    for (int x = n; x != j; x = nodes_[static_cast<size_t>(x)].parent) {
      relative = mul_affine(nodes_[static_cast<size_t>(x)].local, relative);
    }
    bool invertible = false;
    const Mat4 bind = inverse_affine(inverse_binds_[static_cast<size_t>(joint)], &invertible);
    if (!invertible) {
      issues_.error(idx("/nodes", static_cast<size_t>(j)), "SKIN_IBM_SINGULAR",
                    std::string("The offset matrix of bone '") +
                        nodes_[static_cast<size_t>(j)].node->mName.C_Str() +
                        "' is singular, so a mesh cannot be attached to it.");
      return;
    }
    transform_part(part, mul_affine(bind, relative),
                   det3(nodes_[static_cast<size_t>(n)].world) < 0.0f);
    part.joints.assign(part.positions.size(),
                       JointIndices{{static_cast<uint16_t>(joint), 0, 0, 0}});
    part.weights.assign(part.positions.size(), Vec4{1, 0, 0, 0});
  }

  // The base colour factor (and opacity) and texture (docs/assimp.md).
  int model_material(unsigned m) {
    if (m >= scene_.mNumMaterials || !scene_.mMaterials[m]) return -1;
    if (const auto it = material_of_.find(m); it != material_of_.end()) return it->second;
    const aiMaterial* source = scene_.mMaterials[m];
    CookedMaterial cooked;
    aiString name;
    if (source->Get(AI_MATKEY_NAME, name) == AI_SUCCESS) cooked.name = name.C_Str();
    cooked.source_file = out_->mesh.source_file;
    cooked.info.source_material = static_cast<int>(m);
    aiColor4D color;
    if (source->Get(AI_MATKEY_BASE_COLOR, color) == AI_SUCCESS ||
        source->Get(AI_MATKEY_COLOR_DIFFUSE, color) == AI_SUCCESS) {
      const Vec4 c{color.r, color.g, color.b, color.a};
      if (finite_floats(c)) cooked.info.base_color = c;
    }
    float opacity = 1.0f;
    if (source->Get(AI_MATKEY_OPACITY, opacity) == AI_SUCCESS && std::isfinite(opacity) &&
        opacity >= 0.0f && opacity < 1.0f) {
      cooked.info.base_color.w = opacity;
      cooked.info.alpha_mode = AlphaMode::kBlend;
    }
    for (const aiTextureType type : {aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE}) {
      aiString path;
      unsigned uv = 0;
      if (source->GetTexture(type, 0, &path, nullptr, &uv) != AI_SUCCESS) continue;
      const std::string at = idx("/materials", m);
      if (uv > 1) {
        issues_.warning(at, "ASSIMP_LOSSY",
                        "The base colour texture uses uv set " + std::to_string(uv) +
                            "; only sets 0 and 1 are read, the texture is dropped.");
        break;
      }
      cooked.info.base_color_texture.texture = model_texture(path, at);
      cooked.info.base_color_texture.uv_set = static_cast<int>(uv);
      break;
    }
    const int index = static_cast<int>(out_->materials.size());
    out_->materials.push_back(std::move(cooked));
    material_of_.emplace(m, index);
    return index;
  }

  // The model's texture for a material's texture path: an embedded texture ("*N" or a
  // name Assimp resolves) or an image file beside the model; -1 (with a warning) when it
  // cannot be read or decoded.
  int model_texture(const aiString& path, const std::string& at) {
    const std::string key = path.C_Str();
    if (const auto it = texture_of_.find(key); it != texture_of_.end()) return it->second;
    CookedTexture cooked;
    cooked.source_file = out_->mesh.source_file;
    cooked.color_space = ColorSpace::kSrgb;
    std::string problem;
    if (const aiTexture* embedded = scene_.GetEmbeddedTexture(path.C_Str())) {
      for (unsigned t = 0; t < scene_.mNumTextures; ++t) {
        if (scene_.mTextures[t] == embedded) cooked.source_image = static_cast<int>(t);
      }
      if (embedded->mHeight == 0) {  // compressed: mWidth bytes of PNG, JPEG, ...
        problem =
            decode(reinterpret_cast<const uint8_t*>(embedded->pcData), embedded->mWidth, &cooked);
      } else if (embedded->mWidth > kGltfMaxImageSide || embedded->mHeight > kGltfMaxImageSide) {
        problem = "it is larger than " + std::to_string(kGltfMaxImageSide) + " pixels a side";
      } else {  // mWidth x mHeight texels, BGRA, rows top first
        cooked.width = embedded->mWidth;
        cooked.height = embedded->mHeight;
        cooked.mime_type = "image/png";
        const size_t texels = size_t{cooked.width} * cooked.height;
        cooked.rgba.resize(texels * 4);
        for (size_t i = 0; i < texels; ++i) {
          const aiTexel& texel = embedded->pcData[i];
          cooked.rgba[i * 4 + 0] = texel.r;
          cooked.rgba[i * 4 + 1] = texel.g;
          cooked.rgba[i * 4 + 2] = texel.b;
          cooked.rgba[i * 4 + 3] = texel.a;
        }
      }
    } else {
      const fs::path file = folder_ / fs::path(key).relative_path();
      const InputFile in = read_input_file(file, kGltfMaxDecodedBytes);
      problem = in.ok() ? decode(in.bytes.data(), in.bytes.size(), &cooked) : in.error;
    }
    int index = -1;
    if (problem.empty()) {
      index = static_cast<int>(out_->textures.size());
      out_->textures.push_back(std::move(cooked));
    } else {
      issues_.warning(at, "ASSIMP_LOSSY",
                      "The base colour texture '" + key + "' is dropped: " + problem + ".");
    }
    texture_of_.emplace(key, index);
    return index;
  }

  // PNG or JPEG bytes decoded into `out` (RGBA8, rows top first); "" or what is wrong.
  static std::string decode(const uint8_t* bytes, size_t size, CookedTexture* out) {
    const bool png = size >= 8 && std::memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) == 0;
    const bool jpeg = size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
    if (!png && !jpeg) return "it is neither PNG nor JPEG";
    if (size > static_cast<size_t>(INT32_MAX)) return "it is too large";
    const int length = static_cast<int>(size);
    int w = 0, h = 0, channels = 0;
    if (!stbi_info_from_memory(bytes, length, &w, &h, &channels)) {
      return std::string("its image data is invalid (") + stbi_failure_reason() + ")";
    }
    if (w <= 0 || h <= 0 || static_cast<uint32_t>(w) > kGltfMaxImageSide ||
        static_cast<uint32_t>(h) > kGltfMaxImageSide) {
      return "it is larger than " + std::to_string(kGltfMaxImageSide) + " pixels a side";
    }
    stbi_uc* pixels = stbi_load_from_memory(bytes, length, &w, &h, &channels, 4);
    if (!pixels) return std::string("its image data is invalid (") + stbi_failure_reason() + ")";
    out->width = static_cast<uint32_t>(w);
    out->height = static_cast<uint32_t>(h);
    out->mime_type = png ? "image/png" : "image/jpeg";
    out->rgba.assign(pixels, pixels + size_t{out->width} * out->height * 4);
    stbi_image_free(pixels);
    return {};
  }

  // One clip per animation with a channel on a rig joint: LINEAR keys, times in seconds.
  std::vector<Clip> build_clips(bool have_rig) {
    std::vector<Clip> clips;
    std::set<std::string> names;
    for (unsigned a = 0; a < scene_.mNumAnimations; ++a) {
      const aiAnimation* anim = scene_.mAnimations[a];
      if (!anim) continue;
      const std::string at = idx("/animations", a);
      // Ticks to seconds, once, in double (Assimp's default of 25 ticks a second when the
      // file gives none).
      const double tps = anim->mTicksPerSecond > 0.0 && std::isfinite(anim->mTicksPerSecond)
                             ? anim->mTicksPerSecond
                             : 25.0;
      double earliest = 0.0;
      for (unsigned c = 0; c < anim->mNumChannels; ++c) {
        const aiNodeAnim* ch = anim->mChannels[c];
        if (!ch) continue;
        for (unsigned k = 0; k < ch->mNumPositionKeys; ++k)
          earliest = std::min(earliest, ch->mPositionKeys[k].mTime);
        for (unsigned k = 0; k < ch->mNumRotationKeys; ++k)
          earliest = std::min(earliest, ch->mRotationKeys[k].mTime);
        for (unsigned k = 0; k < ch->mNumScalingKeys; ++k)
          earliest = std::min(earliest, ch->mScalingKeys[k].mTime);
      }
      if (earliest < 0.0) {
        issues_.warning(at, "ASSIMP_LOSSY",
                        "The animation has keys before time 0; every key is moved later by " +
                            std::to_string(-earliest / tps) + " s.");
      }
      const auto seconds = [&](double ticks) {
        return static_cast<float>((ticks - earliest) / tps);
      };
      Clip clip;
      size_t kept = 0, dropped_keys = 0;
      for (unsigned c = 0; c < anim->mNumChannels; ++c) {
        const aiNodeAnim* ch = anim->mChannels[c];
        if (!ch) continue;
        const int n = node_named(ch->mNodeName);
        const std::string cat = idx(at + "/channels", c);
        if (!have_rig || n < 0 || joint_of_[static_cast<size_t>(n)] < 0) {
          issues_.warning(cat, "ANIMATION_CHANNEL_OUTSIDE_RIG",
                          std::string("The channel moves node '") + ch->mNodeName.C_Str() +
                              "', which is not a joint of the rig; channel skipped.");
          continue;
        }
        const uint16_t joint = static_cast<uint16_t>(joint_of_[static_cast<size_t>(n)]);
        std::vector<float> times, values;
        const auto add = [&](Property property) {
          if (times.empty()) return;
          clip.add_channel(joint, property, Interpolation::kLinear, times, values);
          ++kept;
        };
        // Keys are taken in order; one whose time (in float seconds) is not after the
        // previous one's is dropped.
        const auto push_time = [&](double ticks) {
          const float t = seconds(ticks);
          if (!times.empty() && !(t > times.back())) {
            ++dropped_keys;
            return false;
          }
          times.push_back(t);
          return true;
        };
        times.clear();
        values.clear();
        for (unsigned k = 0; k < ch->mNumPositionKeys; ++k) {
          if (!push_time(ch->mPositionKeys[k].mTime)) continue;
          const aiVector3D& v = ch->mPositionKeys[k].mValue;
          values.insert(values.end(), {v.x, v.y, v.z});
        }
        add(Property::kTranslation);
        times.clear();
        values.clear();
        for (unsigned k = 0; k < ch->mNumRotationKeys; ++k) {
          if (!push_time(ch->mRotationKeys[k].mTime)) continue;
          const Quat q = to_quat(ch->mRotationKeys[k].mValue);
          values.insert(values.end(), {q.x, q.y, q.z, q.w});
        }
        add(Property::kRotation);
        times.clear();
        values.clear();
        for (unsigned k = 0; k < ch->mNumScalingKeys; ++k) {
          if (!push_time(ch->mScalingKeys[k].mTime)) continue;
          const aiVector3D& v = ch->mScalingKeys[k].mValue;
          values.insert(values.end(), {v.x, v.y, v.z});
        }
        add(Property::kScale);
      }
      if (dropped_keys > 0) {
        issues_.warning(at, "ASSIMP_LOSSY",
                        std::to_string(dropped_keys) +
                            " keys of the animation do not come after the key before them (in "
                            "float seconds); they are dropped.");
      }
      if (kept == 0) {
        issues_.warning(at, "ANIMATION_EMPTY",
                        "No channel of the animation moves a rig joint; animation skipped.");
        continue;
      }
      const std::string name = unique_clip_name(anim->mName.C_Str(), a, at, names, issues_);
      Clip named(name);
      for (const Channel& ch : clip.channels()) {
        named.add_channel(ch.joint, ch.property, ch.interpolation, ch.times, ch.values);
      }
      clips.push_back(std::move(named));
      clip_sources_.push_back(static_cast<int>(a));
    }
    return clips;
  }

  void check_finite() {
    for (size_t j = 0; j < joints_.size(); ++j) {
      if (!finite_floats(joints_[j].rest) || !finite_floats(inverse_binds_[j])) {
        issues_.error(
            idx("/nodes", static_cast<size_t>(joint_nodes_[j])), "VALUE_NOT_FINITE",
            "Joint " + std::to_string(j) + "'s rest pose or offset matrix is not finite.");
        return;
      }
    }
    if (!finite_floats(root_)) {
      issues_.error("/nodes", "VALUE_NOT_FINITE", "The skeleton's root matrix is not finite.");
      return;
    }
    for (const CookedPart& part : out_->mesh.parts) {
      const bool ok = std::all_of(part.positions.begin(), part.positions.end(),
                                  [](const Vec3& v) { return finite_floats(v); }) &&
                      std::all_of(part.normals.begin(), part.normals.end(),
                                  [](const Vec3& v) { return finite_floats(v); });
      if (!ok) {
        issues_.error(idx("/meshes", static_cast<size_t>(part.source_mesh)), "VALUE_NOT_FINITE",
                      "A vertex of the mesh is not finite once placed in the model's space.");
        return;
      }
    }
  }

  const aiScene& scene_;
  fs::path folder_;  // the model file's folder, for texture files
  ImportedModel* out_;
  Issues issues_;
  std::vector<WalkedNode> nodes_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<int> joint_of_;  // per walked node: its rig joint, or -1
  std::vector<Joint> joints_;
  std::vector<Mat4> inverse_binds_;
  std::vector<int> joint_nodes_;
  std::vector<int> clip_sources_;
  std::map<unsigned, int> material_of_;
  std::map<std::string, int> texture_of_;  // texture path -> model texture (-1: dropped)
  Mat4 root_;
  bool node_rig_ = false;
};

}  // namespace

bool is_assimp_issue_code(std::string_view code) {
  return std::any_of(std::begin(kAssimpIssueCodes), std::end(kAssimpIssueCodes),
                     [&](const GltfCodeInfo& info) { return info.code == code; });
}

AssimpTrialProgram find_assimp_trial_program() {
  constexpr const char* kName = "animpack-assimp-trial";
  AssimpTrialProgram found;
  std::string looked;
  // An executable regular file becomes the result; anything else is noted in `looked`.
  const auto take = [&](const fs::path& path) {
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0) {
      found.path = path;
      return true;
    }
    if (!looked.empty()) looked += ", ";
    looked += path.string();
    if (exists) looked += S_ISREG(st.st_mode) ? " (not executable)" : " (not a regular file)";
    return false;
  };
  if (const char* named = std::getenv(kAssimpTrialEnvironment); named && *named) {
    if (!take(fs::path(named))) {
      found.looked = std::string(kAssimpTrialEnvironment) + "=" + looked;
    }
    return found;
  }
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error && self.has_parent_path()) {
    if (take(self.parent_path() / kName)) return found;
    if (take((self.parent_path() / ANIMPACK_ASSIMP_TRIAL_FROM_BINDIR / kName).lexically_normal())) {
      return found;
    }
  }
  if (take(fs::path(ANIMPACK_ASSIMP_TRIAL_BUILT))) return found;
  found.looked = looked;
  return found;
}

ImportedModel import_assimp(const fs::path& file, std::string_view mesh_name,
                            std::string_view source_file, const ImportOptions& options) {
  ImportedModel out;
  out.mesh.name = std::string(mesh_name);
  out.mesh.source_file = std::string(source_file);
  const auto fail = [&](std::string code, std::string message) {
    out.issues.push_back({"", std::move(code), std::move(message), true, false});
    return std::move(out);
  };
  // The size and the first bytes, before Assimp sees the file.
  const InputFile head = read_input_file(file, kAssimpMaxFileBytes, 64);
  if (!head.ok() && !head.too_short) return fail("ASSIMP_READ_FAILED", head.error);
  if (head.size > kAssimpMaxFileBytes) {
    return fail("ASSIMP_FILE_TOO_LARGE", file.string() + " has " + std::to_string(head.size) +
                                             " bytes; the limit is " +
                                             std::to_string(kAssimpMaxFileBytes));
  }
  std::vector<uint8_t> first = head.bytes;
  if (head.too_short) {
    const InputFile whole = read_input_file(file, kAssimpMaxFileBytes);
    if (!whole.ok()) return fail("ASSIMP_READ_FAILED", whole.error);
    first = whole.bytes;
  }
  if (first.empty()) return fail("ASSIMP_READ_FAILED", file.string() + " is empty");
  if (const std::string why = check_header(lower_extension(file), first); !why.empty()) {
    return fail("ASSIMP_READ_FAILED", file.string() + " " + why);
  }
  const TrialResult trial = trial_read(file);
  if (!trial.ok) return fail("ASSIMP_READ_FAILED", file.string() + ": " + trial.reason);
  try {
    Assimp::Importer importer;
    configure(importer);
    const aiScene* scene = importer.ReadFile(file.string(), kReadFlags);
    if (!scene) {
      return fail("ASSIMP_READ_FAILED", file.string() + ": " + importer.GetErrorString());
    }
    Converter converter(*scene, file.parent_path(), &out);
    converter.run();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return fail("ASSIMP_READ_FAILED", file.string() + ": " + e.what());
  }
  // max_influences below 8: the same reduction and note as the glTF import's.
  const size_t keep = static_cast<size_t>(std::clamp(options.max_influences, 1, 8));
  if (keep < 8 && out.ok()) {
    import_detail::InfluenceReduction all;
    for (CookedPart& part : out.mesh.parts) {
      const import_detail::InfluenceReduction r = import_detail::reduce_part_influences(part, keep);
      all.changed += r.changed;
      all.largest_dropped = std::max(all.largest_dropped, r.largest_dropped);
    }
    if (all.changed > 0) {
      char largest[32];
      std::snprintf(largest, sizeof largest, "%.6g", all.largest_dropped);
      out.issues.push_back(
          {"", "INFLUENCES_REDUCED",
           std::to_string(all.changed) + " vertices had more than " + std::to_string(keep) +
               " influences and were reduced to their " + std::to_string(keep) +
               " largest, renormalised; the largest weight dropped is " + largest + ".",
           false, true});
    }
  }
  return out;
}

}  // namespace animpack
