// libFuzzer target: the glTF reader on arbitrary bytes (as .gltf JSON or .glb). Buffer
// URIs resolve against a folder that does not exist. Must never crash or hang.
#include <cstddef>
#include <cstdint>

#include "animpack/compiler/gltf_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const animpack::GltfDocument doc =
      animpack::read_gltf({data, size}, "/nonexistent-animpack-fuzz-dir");
  (void)doc.ok();
  return 0;
}
