// Linear blend skinning in the vertex stage, written to repeat the CPU skin()'s operation
// order (runtime/src/skinning.cpp): each blended column is ((m0 w0 + m1 w1) + m2 w2) +
// m3 w3, a point is ((c0 x + c1 y) + c2 z) + c3, a vector drops c3, and normal and tangent
// are divided by sqrt((x x + y y) + z z). `precise` keeps the compiler from reordering
// or fusing those operations (GLSL 4.50 §4.7).
#include "shaders.h"

namespace animpack::gl::shaders {

const char* const kVersion = "#version 450 core\n";
const char* const kWithMotion = "const bool kMotion = true;\n";
const char* const kWithoutMotion = "const bool kMotion = false;\n";

const char* const kSkinCommon = R"glsl(
// The skin store: 16-byte units. A skinned mesh's vertex v has two units at
// u_skin.x + 2 v: (joints 0|1 << 16, joints 2|3 << 16, 0, 0) and its four weights' bits.
// A palette is one matrix per joint, four units (its columns) each.
layout(std430, binding = 0) readonly buffer SkinStore { uvec4 units[]; } store;

// x: the mesh's first record unit, or -1 for a static mesh; y, z: the first unit of the
// current and previous palettes; w: 1 when posed, 0 for the bind pose.
uniform ivec4 u_skin;

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_tangent;
layout(location = 3) in vec2 a_uv;

vec4 unit_vec4(int u) { return uintBitsToFloat(store.units[u]); }

// The vertex's blended palette matrix (upper 3x4 block, as four columns).
void blend(int palette, out vec4 out_c0, out vec4 out_c1, out vec4 out_c2, out vec4 out_c3) {
  int record = u_skin.x + 2 * gl_VertexID;
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

// The vertex in mesh space under the current palette, and its position under the
// previous one (kMotion; else, and when both palettes are one, the current position).
// Unposed and static meshes keep their stored streams.
void skin_vertex(out vec3 position, out vec3 normal, out vec4 tangent, out vec3 previous) {
  if (!posed()) {
    position = a_position;
    normal = a_normal;
    tangent = a_tangent;
    previous = a_position;
    return;
  }
  vec4 c0, c1, c2, c3;
  blend(u_skin.y, c0, c1, c2, c3);
  position = skin_point(c0, c1, c2, c3, a_position);
  normal = skin_direction(c0, c1, c2, a_normal);
  tangent = vec4(skin_direction(c0, c1, c2, a_tangent.xyz), a_tangent.w);
  if (!kMotion || u_skin.z == u_skin.y) {
    previous = position;
    return;
  }
  blend(u_skin.z, c0, c1, c2, c3);
  previous = skin_point(c0, c1, c2, c3, a_position);
}
)glsl";

const char* const kDrawVertex = R"glsl(
uniform mat4 u_model;
uniform mat4 u_previous_model;
uniform mat4 u_view_proj;
uniform mat4 u_previous_view_proj;
uniform mat3 u_normal_matrix;

out vec3 v_normal;
out vec2 v_uv;
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
  v_normal = u_normal_matrix * normal;
  v_uv = a_uv;
}
)glsl";

const char* const kIdsFragment = R"glsl(#version 450 core
in vec3 v_normal;
in vec2 v_uv;
in vec4 v_clip;
in vec4 v_previous_clip;

uniform uint u_id;
uniform int u_textured;
uniform vec4 u_uv_rect;  // offset xy, scale zw
uniform vec2 u_viewport;
layout(binding = 0) uniform sampler2D u_texture;

layout(location = 1) out uint o_id;
layout(location = 2) out vec2 o_motion;

void main() {
  if (u_textured != 0 && texture(u_texture, u_uv_rect.xy + v_uv * u_uv_rect.zw).a < 0.5) discard;
  o_id = u_id;
  // Pixels moved since the previous frame: x right, y down.
  vec2 d = (v_clip.xy / v_clip.w - v_previous_clip.xy / v_previous_clip.w) * 0.5 * u_viewport;
  o_motion = vec2(d.x, -d.y);
}
)glsl";

const char* const kColorFragment = R"glsl(#version 450 core
in vec3 v_normal;
in vec2 v_uv;
in vec4 v_clip;
in vec4 v_previous_clip;

uniform int u_textured;
uniform vec4 u_uv_rect;
uniform vec4 u_color;
layout(binding = 0) uniform sampler2D u_texture;

layout(location = 0) out vec4 o_color;

void main() {
  if (u_textured != 0) {
    vec4 t = texture(u_texture, u_uv_rect.xy + v_uv * u_uv_rect.zw);
    if (t.a < 0.5) discard;
    o_color = vec4(t.rgb, 1.0);
    return;
  }
  float len = length(v_normal);
  vec3 n = len > 0.0 ? v_normal / len : vec3(0.0, 0.0, 1.0);
  // Two-sided: a light above and in front, plus ambient.
  float light = 0.35 + 0.65 * abs(dot(n, vec3(0.3578, 0.8050, 0.4472)));
  o_color = vec4(u_color.rgb * light, 1.0);
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

}  // namespace animpack::gl::shaders
