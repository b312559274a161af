// The GLSL 4.50 sources of the renderer's programs (internal).
#pragma once

namespace animpack::gl::shaders {

// A vertex stage is kVersion, then kWithMotion or kWithoutMotion (whether the previous
// position is computed), then kSkinCommon (the skin store, the vertex inputs, blending
// and skinning), then kDrawVertex or kCaptureVertex. A fragment stage is kVersion, then
// kFragmentCommon (the inputs, the material's uniforms, base colour and holes), then
// kIdsFragment or kColorFragment.
extern const char* const kVersion;
extern const char* const kWithMotion;
extern const char* const kWithoutMotion;
extern const char* const kSkinCommon;
// The vertex stage of both render passes.
extern const char* const kDrawVertex;
// The ids/motion pass and the colour pass (the shading model of docs/gl.md).
extern const char* const kFragmentCommon;
extern const char* const kIdsFragment;
extern const char* const kColorFragment;
// The capture program (transform feedback): skinned position, normal, tangent and the
// position under the previous palette.
extern const char* const kCaptureVertex;
// The debug line program (after kVersion alone): world positions and linear colours.
extern const char* const kLineVertex;
extern const char* const kLineFragment;
// Bytes per captured vertex (3 + 3 + 4 + 3 floats).
inline constexpr int kCaptureStride = 52;

}  // namespace animpack::gl::shaders
