// Linear blend skinning in the vertex stage, written to repeat the CPU skin()'s operation
// order (runtime/src/skinning.cpp): each blended column is ((m0 w0 + m1 w1) + m2 w2) +
// m3 w3 (then + m4 w4 ... + m7 w7 for a vertex with eight influences, a weight of exactly
// 0 adding nothing), a point is ((c0 x + c1 y) + c2 z) + c3, a vector drops c3, and normal
// and tangent are divided by sqrt((x x + y y) + z z). Morph targets come first (morph.h's
// rule, apply_morph()'s order): base + w0 d0, then + w1 d1, ..., zero weights skipped.
// `precise` keeps the compiler from reordering or fusing those operations (GLSL 4.50
// §4.7).
#include "shaders.h"

namespace animpack::gl::shaders {

const char* const kVersion = "#version 450 core\n";
const char* const kWithMotion = "const bool kMotion = true;\n";
const char* const kWithoutMotion = "const bool kMotion = false;\n";

const char* const kSkinCommon = R"glsl(
// The skin store: 16-byte units. A skinned mesh's vertex v has two units at
// u_skin.x + 2 v: (joints 0|1 << 16, joints 2|3 << 16, 0, 0) and its four weights' bits;
// a mesh with eight influences (u_eight) has four at u_skin.x + 4 v: those two, then the
// same for joints and weights 4 to 7. A palette is one matrix per joint, four units (its
// columns) each.
layout(std430, binding = 0) readonly buffer SkinStore { uvec4 units[]; } store;
// The mesh's morph deltas (xyz of 16-byte units): target t's delta of vertex v for the
// stream whose block starts at b is at b + t * u_morph.y + v.
layout(std430, binding = 1) readonly buffer MorphDeltas { vec4 deltas[]; } morph;
// Every posed instance's morph weights (the current, then the previous frame's).
layout(std430, binding = 2) readonly buffer MorphWeights { float weights[]; } morph_weights;

// x: the mesh's first record unit, or -1 for a static mesh; y, z: the first unit of the
// current and previous palettes; w: 1 when posed, 0 for the bind pose.
uniform ivec4 u_skin;
// 1: the mesh's records hold eight influences.
uniform int u_eight;
// x: the mesh's target count (0: no morph, or the instance has no weights); y: its
// vertex count; z, w: the first current and previous weight in morph_weights.
uniform ivec4 u_morph;
// The first delta unit of the position, normal and tangent blocks (-1: none).
uniform ivec3 u_morph_blocks;

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_tangent;
layout(location = 3) in vec2 a_uv;

vec4 unit_vec4(int u) { return uintBitsToFloat(store.units[u]); }

// The vertex's blended palette matrix (upper 3x4 block, as four columns).
void blend(int palette, out vec4 out_c0, out vec4 out_c1, out vec4 out_c2, out vec4 out_c3) {
  int record = u_skin.x + (u_eight != 0 ? 4 : 2) * gl_VertexID;
  uvec4 j = store.units[record];
  vec4 w = uintBitsToFloat(store.units[record + 1]);
  int p0 = palette + 4 * int(j.x & 0xffffu);
  int p1 = palette + 4 * int(j.x >> 16);
  int p2 = palette + 4 * int(j.y & 0xffffu);
  int p3 = palette + 4 * int(j.y >> 16);
  precise vec4 c0 = unit_vec4(p0) * w.x;
  c0 = c0 + unit_vec4(p1) * w.y;
  c0 = c0 + unit_vec4(p2) * w.z;
  c0 = c0 + unit_vec4(p3) * w.w;
  precise vec4 c1 = unit_vec4(p0 + 1) * w.x;
  c1 = c1 + unit_vec4(p1 + 1) * w.y;
  c1 = c1 + unit_vec4(p2 + 1) * w.z;
  c1 = c1 + unit_vec4(p3 + 1) * w.w;
  precise vec4 c2 = unit_vec4(p0 + 2) * w.x;
  c2 = c2 + unit_vec4(p1 + 2) * w.y;
  c2 = c2 + unit_vec4(p2 + 2) * w.z;
  c2 = c2 + unit_vec4(p3 + 2) * w.w;
  precise vec4 c3 = unit_vec4(p0 + 3) * w.x;
  c3 = c3 + unit_vec4(p1 + 3) * w.y;
  c3 = c3 + unit_vec4(p2 + 3) * w.z;
  c3 = c3 + unit_vec4(p3 + 3) * w.w;
  if (u_eight != 0) {
    // Influences 4 to 7 continue the same sums; a weight of 0 adds nothing (as the CPU).
    uvec4 j1 = store.units[record + 2];
    vec4 w1 = uintBitsToFloat(store.units[record + 3]);
    for (int k = 0; k < 4; ++k) {
      float wk = w1[k];
      if (wk == 0.0) continue;
      uint pair = k < 2 ? j1.x : j1.y;
      int pk = palette + 4 * int((k & 1) == 0 ? pair & 0xffffu : pair >> 16);
      c0 = c0 + unit_vec4(pk) * wk;
      c1 = c1 + unit_vec4(pk + 1) * wk;
      c2 = c2 + unit_vec4(pk + 2) * wk;
      c3 = c3 + unit_vec4(pk + 3) * wk;
    }
  }
  out_c0 = c0;
  out_c1 = c1;
  out_c2 = c2;
  out_c3 = c3;
}

vec3 skin_point(vec4 c0, vec4 c1, vec4 c2, vec4 c3, vec3 p) {
  precise vec4 r = c0 * p.x + c1 * p.y + c2 * p.z + c3;
  return r.xyz;
}

vec3 skin_direction(vec4 c0, vec4 c1, vec4 c2, vec3 v) {
  precise vec4 r = c0 * v.x + c1 * v.y + c2 * v.z;
  precise float len = sqrt((r.x * r.x + r.y * r.y) + r.z * r.z);
  if (len == 0.0) return r.xyz;
  precise float inv = 1.0 / len;
  precise vec3 n = r.xyz * inv;
  return n;
}

bool posed() { return u_skin.x >= 0 && u_skin.w != 0; }

// base + w0 d0 + w1 d1 + ... of the block at `block` (left to right; zero weights add
// nothing), with the weights from `first`; moved: whether any delta was added.
vec3 morph_stream(vec3 base, int block, int first, out bool moved) {
  precise vec3 r = base;
  moved = false;
  if (block < 0) return r;
  for (int t = 0; t < u_morph.x; ++t) {
    float w = morph_weights.weights[first + t];
    if (w == 0.0) continue;
    precise vec3 d = morph.deltas[block + t * u_morph.y + gl_VertexID].xyz * w;
    r = r + d;
    moved = true;
  }
  return r;
}

// v / sqrt((x x + y y) + z z), as apply_morph() renormalises (v when of length 0).
vec3 unit_direction(vec3 v) {
  precise float len = sqrt((v.x * v.x + v.y * v.y) + v.z * v.z);
  if (len == 0.0) return v;
  precise float inv = 1.0 / len;
  precise vec3 n = v * inv;
  return n;
}

// The vertex in mesh space: morphed by the instance's weights (meshes with targets),
// then skinned under the current palette; and its position under the previous weights
// and palette (kMotion; else, and when both are the current ones, the current position).
// Unposed meshes keep their stored streams; a morphed mesh that is not skinned has its
// normal and tangent renormalised when a delta moved them, as apply_morph() does
// (skinning renormalises otherwise).
void skin_vertex(out vec3 position, out vec3 normal, out vec4 tangent, out vec3 previous) {
  vec3 base = a_position, base_normal = a_normal;
  vec4 base_tangent = a_tangent;
  vec3 previous_base = a_position;
  bool moved_normal = false, moved_tangent = false, moved = false;
  if (u_morph.x > 0) {
    base = morph_stream(a_position, u_morph_blocks.x, u_morph.z, moved);
    base_normal = morph_stream(a_normal, u_morph_blocks.y, u_morph.z, moved_normal);
    base_tangent = vec4(morph_stream(a_tangent.xyz, u_morph_blocks.z, u_morph.z, moved_tangent),
                        a_tangent.w);
    previous_base = base;
    if (kMotion && u_morph.w != u_morph.z) {
      previous_base = morph_stream(a_position, u_morph_blocks.x, u_morph.w, moved);
    }
  }
  if (!posed()) {
    position = base;
    normal = moved_normal ? unit_direction(base_normal) : base_normal;
    tangent = moved_tangent ? vec4(unit_direction(base_tangent.xyz), base_tangent.w)
                            : base_tangent;
    previous = previous_base;
    return;
  }
  vec4 c0, c1, c2, c3;
  blend(u_skin.y, c0, c1, c2, c3);
  position = skin_point(c0, c1, c2, c3, base);
  normal = skin_direction(c0, c1, c2, base_normal);
  tangent = vec4(skin_direction(c0, c1, c2, base_tangent.xyz), base_tangent.w);
  if (!kMotion || (u_skin.z == u_skin.y && u_morph.w == u_morph.z)) {
    previous = position;
    return;
  }
  if (u_skin.z != u_skin.y) blend(u_skin.z, c0, c1, c2, c3);
  previous = skin_point(c0, c1, c2, c3, previous_base);
}
)glsl";

const char* const kDrawVertex = R"glsl(
layout(location = 4) in vec2 a_uv1;
layout(location = 5) in vec4 a_color;

uniform mat4 u_model;
uniform mat4 u_previous_model;
uniform mat4 u_view_proj;
uniform mat4 u_previous_view_proj;
uniform mat3 u_normal_matrix;

out vec3 v_normal;
out vec4 v_tangent;
out vec2 v_uv;
out vec2 v_uv1;
out vec4 v_color;
out vec3 v_world;
out vec4 v_clip;
out vec4 v_previous_clip;
invariant gl_Position;

void main() {
  vec3 position, normal, previous;
  vec4 tangent;
  skin_vertex(position, normal, tangent, previous);
  precise vec4 world = u_model * vec4(position, 1.0);
  precise vec4 previous_world = u_previous_model * vec4(previous, 1.0);
  precise vec4 clip = u_view_proj * world;
  precise vec4 previous_clip = u_previous_view_proj * previous_world;
  gl_Position = clip;
  v_clip = clip;
  v_previous_clip = previous_clip;
  v_world = world.xyz;
  v_normal = u_normal_matrix * normal;
  v_tangent = vec4(mat3(u_model) * tangent.xyz, tangent.w);
  v_uv = a_uv;
  v_uv1 = a_uv1;
  v_color = a_color;
}
)glsl";

const char* const kFragmentCommon = R"glsl(
in vec3 v_normal;
in vec4 v_tangent;
in vec2 v_uv;
in vec2 v_uv1;
in vec4 v_color;
in vec3 v_world;
in vec4 v_clip;
in vec4 v_previous_clip;

// 0: a material (or the plain colour), 1: a sprite frame.
uniform int u_mode;
uniform vec4 u_uv_rect;  // the sprite frame: offset xy, scale zw
// The material: base colour factor; (metallic, roughness, occlusion strength, normal
// scale); emissive factor times strength; alpha mode (0 opaque, 1 mask, 2 blend), cutoff.
uniform vec4 u_base_color;
uniform vec4 u_terms;
uniform vec3 u_emissive;
uniform int u_alpha_mode;
uniform float u_alpha_cutoff;
uniform int u_has_tangents;
// Slots 0 base colour, 1 metallic-roughness, 2 normal, 3 occlusion, 4 emissive: textured
// or not, uv set, and the rows of the uv transform (uv' = (row0 . (uv, 1), row1 . (uv, 1))).
uniform int u_slot_on[5];
uniform int u_slot_uv[5];
uniform vec3 u_slot_row0[5];
uniform vec3 u_slot_row1[5];
layout(binding = 0) uniform sampler2D u_base_tex;  // also the sprite's atlas
layout(binding = 1) uniform sampler2D u_mr_tex;
layout(binding = 2) uniform sampler2D u_normal_tex;
layout(binding = 3) uniform sampler2D u_occlusion_tex;
layout(binding = 4) uniform sampler2D u_emissive_tex;

vec2 slot_uv(int k) {
  vec3 uv = vec3(u_slot_uv[k] == 1 ? v_uv1 : v_uv, 1.0);
  return vec2(dot(u_slot_row0[k], uv), dot(u_slot_row1[k], uv));
}

vec4 sprite_texel() { return texture(u_base_tex, u_uv_rect.xy + v_uv * u_uv_rect.zw); }

// factor x texel (linear: an sRGB texture is decoded by GL) x vertex colour.
vec4 base_color() {
  vec4 base = u_base_color;
  if (u_slot_on[0] != 0) base = base * texture(u_base_tex, slot_uv(0));
  return base * v_color;
}

// MASK: below the cutoff. OPAQUE and BLEND surfaces have no holes (a BLEND fragment of
// alpha 0 changes no colour but keeps its id, as the tracer's first surface does).
bool is_hole(float alpha) { return u_alpha_mode == 1 && alpha < u_alpha_cutoff; }
)glsl";

const char* const kIdsFragment = R"glsl(
uniform uint u_id;
uniform vec2 u_viewport;

layout(location = 1) out uint o_id;
layout(location = 2) out vec2 o_motion;

void main() {
  if (u_mode == 1) {
    if (sprite_texel().a < 0.5) discard;
  } else if (u_alpha_mode != 0 && is_hole(base_color().a)) {
    discard;
  }
  o_id = u_id;
  // Pixels moved since the previous frame: x right, y down.
  vec2 d = (v_clip.xy / v_clip.w - v_previous_clip.xy / v_previous_clip.w) * 0.5 * u_viewport;
  o_motion = vec2(d.x, -d.y);
}
)glsl";

const char* const kColorFragment = R"glsl(
uniform vec3 u_light;       // the way the light travels, unit length
uniform float u_ambient;
uniform vec3 u_eye;
uniform int u_orthographic;
uniform vec3 u_to_eye;      // orthographic: the unit vector against the view direction

layout(location = 0) out vec4 o_color;

const float kPi = 3.14159265358979;

// The target is sRGB: GL encodes what this stage writes. A sprite's texels are stored
// bytes to show as they are, so they are decoded first (exact curve).
float srgb_to_linear(float c) {
  return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

vec3 unit_or(vec3 v, vec3 fallback) {
  float len = length(v);
  return len > 0.0 ? v / len : fallback;
}

void main() {
  if (u_mode == 1) {
    vec4 t = sprite_texel();
    if (t.a < 0.5) discard;
    o_color = vec4(srgb_to_linear(t.r), srgb_to_linear(t.g), srgb_to_linear(t.b), 1.0);
    return;
  }
  vec4 base = base_color();
  if (u_alpha_mode != 0 && is_hole(base.a)) discard;
  // Only double-sided surfaces show their back faces: their normal turns to the viewer.
  vec3 n = unit_or(v_normal, vec3(0.0, 0.0, 1.0));
  if (!gl_FrontFacing) n = -n;
  if (u_slot_on[2] != 0 && u_has_tangents != 0) {
    vec3 t = unit_or(v_tangent.xyz, vec3(1.0, 0.0, 0.0));
    vec3 b = (v_tangent.w < 0.0 ? -1.0 : 1.0) * cross(n, t);
    vec3 m = (2.0 * texture(u_normal_tex, slot_uv(2)).rgb - 1.0) *
             vec3(u_terms.w, u_terms.w, 1.0);
    n = unit_or(t * m.x + b * m.y + n * m.z, n);
  }
  float metallic = u_terms.x;
  float roughness = u_terms.y;
  if (u_slot_on[1] != 0) {
    vec4 mr = texture(u_mr_tex, slot_uv(1));
    metallic *= mr.b;
    roughness *= mr.g;
  }
  roughness = max(roughness, 0.045);
  float ao = 1.0;
  if (u_slot_on[3] != 0) ao = 1.0 + u_terms.z * (texture(u_occlusion_tex, slot_uv(3)).r - 1.0);
  vec3 emissive = u_emissive;
  if (u_slot_on[4] != 0) emissive *= texture(u_emissive_tex, slot_uv(4)).rgb;

  vec3 c_diff = base.rgb * (1.0 - metallic);
  vec3 f0 = vec3(0.04 * (1.0 - metallic)) + base.rgb * metallic;
  float a = roughness * roughness;
  float a2 = a * a;
  vec3 l = -u_light;
  vec3 v = u_orthographic != 0 ? u_to_eye : unit_or(u_eye - v_world, n);
  vec3 h = unit_or(l + v, n);
  float nl = max(dot(n, l), 0.0);
  float nv = max(dot(n, v), 0.0);
  float nh = dot(n, h);
  float vh = dot(v, h);
  float dd = nh * nh * (a2 - 1.0) + 1.0;
  float d = a2 / (kPi * dd * dd);
  float vis_den = nl * sqrt(nv * nv * (1.0 - a2) + a2) + nv * sqrt(nl * nl * (1.0 - a2) + a2);
  float vis = vis_den > 0.0 ? 0.5 / vis_den : 0.0;
  float x = clamp(1.0 - vh, 0.0, 1.0);
  vec3 f = f0 + (vec3(1.0) - f0) * (x * x * x * x * x);
  float irradiance = kPi * (1.0 - u_ambient);
  vec3 direct = (c_diff / kPi + f * (d * vis)) * (nl * irradiance);
  vec3 ambient = u_ambient * ao * (c_diff + f0);
  vec3 c = clamp(direct + ambient + emissive, 0.0, 1.0);
  float alpha = u_alpha_mode == 2 ? clamp(base.a, 0.0, 1.0) : 1.0;
  o_color = vec4(c, alpha);  // encoded by GL: the target is sRGB
}
)glsl";

const char* const kCaptureVertex = R"glsl(
layout(xfb_buffer = 0, xfb_stride = 52) out;
layout(xfb_offset = 0) out vec3 o_position;
layout(xfb_offset = 12) out vec3 o_normal;
layout(xfb_offset = 24) out vec4 o_tangent;
layout(xfb_offset = 40) out vec3 o_previous;

void main() {
  skin_vertex(o_position, o_normal, o_tangent, o_previous);
  gl_Position = vec4(o_position, 1.0);
}
)glsl";

const char* const kLineVertex = R"(
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_color;
uniform mat4 u_view_proj;
out vec4 v_color;
void main() {
  v_color = a_color;
  gl_Position = u_view_proj * vec4(a_position, 1.0);
}
)";

const char* const kLineFragment = R"(
in vec4 v_color;
layout(location = 0) out vec4 o_color;
void main() { o_color = v_color; }
)";

}  // namespace animpack::gl::shaders
