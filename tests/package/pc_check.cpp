// Built by scripts/package_test.sh with nothing but the installed pkg-config files
// (animpack, animpack-gl, animpack-trace): opens a pack, writes a 2x2 PNG with the
// tracer, and makes an (empty) GL context object, so each library is linked.
//   pc_check PACK OUT.png
#include <cstdio>

#include "animpack/gl/context.h"
#include "animpack/pack.h"
#include "animpack/tracer/image.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  auto pack = animpack::Pack::open(argv[1]);
  if (!pack) {
    std::fprintf(stderr, "pc_check: %s\n", pack.error().message());
    return 1;
  }
  if (auto w = animpack::trace::write_png(animpack::trace::Image(2, 2), argv[2]); !w) {
    std::fprintf(stderr, "pc_check: %s\n", w.error().message());
    return 1;
  }
  const animpack::gl::Context none;
  std::printf("pc_check: %zu objects; gl context valid: %d\n", pack->objects().size(),
              none.valid() ? 1 : 0);
  return none.valid() ? 1 : 0;
}
