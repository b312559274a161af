// The scene suites' reader: parse a scene text and keep its diagnostics, sorted, with a
// one-line-each listing for failure messages.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "animpack/compiler/diagnostics.h"
#include "animpack/compiler/scene.h"

namespace animpack::scene_test {

struct Read {
  Scene scene;
  std::vector<Diagnostic> diagnostics;
};

// Parses `text` as the scene file `name` (the name diagnostics give).
inline Read read(const std::string& text, const std::string& name) {
  DiagnosticSink sink;
  Scene scene = parse_scene(text, name, sink);
  sink.sort();
  return {std::move(scene), sink.diagnostics()};
}

// "CODE LINE:COL MESSAGE" per diagnostic, one a line.
inline std::string all(const Read& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) {
    out += d.code + " " + std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.message +
           "\n";
  }
  return out;
}

}  // namespace animpack::scene_test
