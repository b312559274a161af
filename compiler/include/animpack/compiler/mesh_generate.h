// Vertex streams the cooker makes when a file lacks them: flat normals (glTF 2.0, "Meshes":
// "When normals are not specified, client implementations MUST calculate flat normals")
// and tangents for normal mapping ("When tangents are not specified, client
// implementations SHOULD calculate tangents using default MikkTSpace algorithms with the
// specified vertex positions, normals, and texture coordinates").
//
//   if (part.normals.empty()) animpack::generate_flat_normals(part);   // unwelds first
//   if (uses_normal_map && part.tangents.empty())
//     if (!animpack::generate_tangents(part, 0)) report("no TEXCOORD_0 to build tangents from");
#pragma once

#include "animpack/compiler/cooked.h"

namespace animpack {

// Unwelds the part (every triangle corner its own vertex: every per-vertex stream,
// source_vertices included, copied per corner; indices become 0, 1, 2, ...) and gives each
// corner its triangle's unit face normal (counter-clockwise front, as glTF winds). A
// degenerate triangle gets the normal of the nearest non-degenerate one before it in the
// list, or +z when there is none. Sets normals_generated.
void generate_flat_normals(CookedPart& part);

// Tangents by the MikkTSpace rules (docs/pack-format.md, "Generated streams", says where
// the result may differ from the reference implementation): per-triangle tangent and
// bitangent from positions and the uv set's coordinates, accumulated per vertex weighted
// by the corner angle, over the vertices that share position, normal and uv (welded by
// value, as MikkTSpace does), split where handedness differs, then made orthogonal to the
// normal (Gram-Schmidt) and unit; w is +1 or -1 (bitangent = w * cross(normal, tangent)).
// A vertex whose triangles have degenerate uvs gets any unit vector orthogonal to its
// normal with w = +1. Needs normals and the uv set (0 or 1): false and the part unchanged
// without them. Sets tangents_generated.
bool generate_tangents(CookedPart& part, int uv_set);

}  // namespace animpack
