// The determinism guard: runtime sources may not call the C library's transcendentals
// or fused multiply-add, and the runtime must be built without contraction or
// fast-math. Only animpack::det's functions (det::sin, ...) are allowed.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/test_data.h"

namespace {

namespace fs = std::filesystem;

// Names that vary across C libraries, or fuse operations.
const std::set<std::string>& banned() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s;
    for (const char* base :
         {"sin",   "cos",   "tan",   "asin", "acos", "atan",   "atan2",  "sinh", "cosh",  "tanh",
          "asinh", "acosh", "atanh", "exp",  "exp2", "expm1",  "log",    "log2", "log10", "log1p",
          "pow",   "cbrt",  "hypot", "erf",  "erfc", "tgamma", "lgamma", "fma",  "sincos"}) {
      s.insert(base);
      s.insert(std::string(base) + "f");
      s.insert(std::string(base) + "l");
      s.insert(std::string("__builtin_") + base);
      s.insert(std::string("__builtin_") + base + "f");
    }
    return s;
  }();
  return names;
}

// Strips // and /* */ comments and string literals, keeping line structure.
std::string strip(const std::string& src) {
  std::string out;
  for (size_t i = 0; i < src.size(); ++i) {
    if (src.compare(i, 2, "//") == 0) {
      while (i < src.size() && src[i] != '\n') ++i;
      if (i < src.size()) out += '\n';
    } else if (src.compare(i, 2, "/*") == 0) {
      i += 2;
      while (i + 1 < src.size() && src.compare(i, 2, "*/") != 0) {
        if (src[i] == '\n') out += '\n';
        ++i;
      }
      ++i;
    } else if (src[i] == '"') {
      ++i;
      while (i < src.size() && src[i] != '"') i += src[i] == '\\' ? 2 : 1;
      out += "\"\"";
    } else {
      out += src[i];
    }
  }
  return out;
}

// Every call of a banned name not qualified by det::, as "line: name".
std::vector<std::string> violations(const std::string& source) {
  const std::string s = strip(source);
  std::vector<std::string> found;
  int line = 1;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (!(std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    const std::string word = s.substr(i, j - i);
    size_t k = j;
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    const bool called = k < s.size() && s[k] == '(';
    // What qualifies it: "det::" is ours; a member access (".", "->") is not a libm call.
    size_t b = i;
    while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
    const bool qualified_det = b >= 5 && s.compare(b - 5, 5, "det::") == 0;
    const bool member = (b >= 1 && s[b - 1] == '.') || (b >= 2 && s.compare(b - 2, 2, "->") == 0);
    // A definition inside namespace det (e.g. "float sin(float x)") is preceded by a type.
    size_t t = b;
    while (t > 0 && (std::isalnum(static_cast<unsigned char>(s[t - 1])) || s[t - 1] == '_')) --t;
    const std::string before = s.substr(t, b - t);
    const bool definition = before == "float" || before == "double" || before == "void";
    if (called && banned().count(word) && !qualified_det && !member && !definition) {
      found.push_back(std::to_string(line) + ": " + word);
    }
    i = j;
  }
  return found;
}

std::string read(const fs::path& p) { return animpack::test_data::read_test_file(p); }

TEST(SourceGuard, CatchesTranscendentalsAndFusedMultiplyAdd) {
  EXPECT_EQ(violations("float y = std::sin(x);").size(), 1u);
  EXPECT_EQ(violations("float y = sinf(x) + ::cos(x);").size(), 2u);
  EXPECT_EQ(violations("double z = fma(a, b, c);").size(), 1u);
  EXPECT_EQ(violations("auto p = std::pow (a, 2);").size(), 1u);
  EXPECT_EQ(violations("auto q = __builtin_fmaf(a, b, c);").size(), 1u);
  EXPECT_TRUE(violations("float y = det::sin(x); // std::sin(x)").empty());
  EXPECT_TRUE(violations("float sin(float x);").empty());
  EXPECT_TRUE(violations("s = \"cos(x)\"; y = std::sqrt(x); z = std::floor(x);").empty());
}

TEST(SourceGuard, RuntimeSourcesCallNoTranscendentalsOrFma) {
  const fs::path root = fs::path(ANIMPACK_SOURCE_DIR) / "runtime";
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".h" && ext != ".hpp" && ext != ".inl") continue;
    ++files;
    for (const std::string& v : violations(read(entry.path()))) {
      ADD_FAILURE() << entry.path().string() << ":" << v;
    }
  }
  EXPECT_GE(files, 10) << "the guard looked at the runtime's sources";
}

TEST(SourceGuard, RuntimeIsBuiltWithoutContractionOrFastMath) {
  const std::string cmake = read(fs::path(ANIMPACK_SOURCE_DIR) / "runtime" / "CMakeLists.txt");
  EXPECT_NE(cmake.find("-ffp-contract=off"), std::string::npos);
  EXPECT_NE(cmake.find("-fno-fast-math"), std::string::npos);
  EXPECT_EQ(cmake.find("-ffast-math"), std::string::npos);
  EXPECT_EQ(cmake.find("-Ofast"), std::string::npos);
  EXPECT_EQ(cmake.find("-funsafe-math"), std::string::npos);
  const std::string defaults =
      read(fs::path(ANIMPACK_SOURCE_DIR) / "cmake" / "AnimpackDefaults.cmake");
  EXPECT_EQ(defaults.find("-ffast-math"), std::string::npos);
}

}  // namespace
