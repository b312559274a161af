// What the flat pass (flat_sprites.cpp) needs of a Renderer's target (internal).
#pragma once

#include <cstdint>

#include "animpack/gl/renderer.h"
#include "animpack/result.h"

namespace animpack::gl {

class Context;

// The renderer's context and render target as its last render() left them.
struct RenderTarget {
  Context* context = nullptr;
  uint32_t fbo = 0;  // a GLuint: colour at attachment 0, ids at 1, motion at 2
  uint32_t width = 0, height = 0;
  bool rendered = false;
};

struct RendererAccess {
  // The renderer's context (current) and target. kInvalidArgument for an empty renderer
  // or a context that is not current.
  static Result<RenderTarget> target(const Renderer& renderer);
  // Its context alone; nullptr for an empty renderer.
  static Context* context(const Renderer& renderer);
};

}  // namespace animpack::gl
