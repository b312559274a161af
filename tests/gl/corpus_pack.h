// Corpus models cooked for the GL tests: a one-object scene naming a corpus glTF, cooked
// by cook_scene (the whole cooker) and written by the pack writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace animpack::gl::testing {

// The pack of a scene with one mesh `name` from tests/data/corpus/gltf/`file` and one
// object showing it, playing `clip` (none when empty). Cook errors fail the calling test
// (and give what the cooker made anyway).
std::vector<uint8_t> cook_corpus(const std::string& name, const std::string& file,
                                 const std::string& clip);

}  // namespace animpack::gl::testing
