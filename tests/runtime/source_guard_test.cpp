// The determinism guard: runtime sources may not call the C library's transcendentals
// or fused multiply-add, and the runtime must be built without contraction or
// fast-math. Only animpack::det's functions (det::sin, ...) are allowed.
#include <gtest/gtest.h>

#include <algorithm>
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

// Float-to-integer conversions that skip the range check (animpack::clamp_to_int64, in
// limits.h), as "line: text": a static_cast to an integer type of a floor, round, ceil,
// trunc or fmod result, and the C library's rounding conversions. (A heuristic: the
// conversions of plain float variables were audited by hand; they all go through
// clamp_to_int64.)
std::vector<std::string> unchecked_conversions(const std::string& source) {
  const std::string s = strip(source);
  std::vector<std::string> found;
  static const char* const kIntegers[] = {
      "int",     "long",    "unsigned", "short",    "char",     "size_t",   "int8_t",   "int16_t",
      "int32_t", "int64_t", "uint8_t",  "uint16_t", "uint32_t", "uint64_t", "ptrdiff_t"};
  static const char* const kFloatResults[] = {"floor(", "round(", "ceil(", "trunc(", "fmod("};
  static const char* const kConversions[] = {"lround",  "llround",  "lrint",  "llrint",
                                             "lroundf", "llroundf", "lrintf", "llrintf"};
  const auto line_of = [&](size_t at) {
    return std::to_string(1 +
                          std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  };
  for (size_t at = s.find("static_cast<"); at != std::string::npos;
       at = s.find("static_cast<", at + 1)) {
    const size_t open = s.find('>', at);
    if (open == std::string::npos || open + 1 >= s.size() || s[open + 1] != '(') continue;
    std::string type = s.substr(at + 12, open - at - 12);
    if (type.rfind("std::", 0) == 0) type = type.substr(5);
    bool integer = false;
    for (const char* t : kIntegers) integer = integer || type == t;
    if (!integer) continue;
    int depth = 0;
    size_t end = open + 1;
    for (; end < s.size(); ++end) {
      if (s[end] == '(') ++depth;
      if (s[end] == ')' && --depth == 0) break;
    }
    const std::string argument = s.substr(open + 1, end - open);
    for (const char* f : kFloatResults) {
      if (argument.find(f) != std::string::npos) {
        found.push_back(line_of(at) + ": static_cast<" + type + ">" + argument);
        break;
      }
    }
  }
  for (const char* c : kConversions) {
    const std::string call = std::string(c) + "(";
    for (size_t at = s.find(call); at != std::string::npos; at = s.find(call, at + 1)) {
      const bool word_start =
          at == 0 || !(std::isalnum(static_cast<unsigned char>(s[at - 1])) || s[at - 1] == '_');
      if (word_start) found.push_back(line_of(at) + ": " + c);
    }
  }
  return found;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether the '{' at s[i] opens a function body: it follows a ')' (a parameter list),
// possibly through const, noexcept, override, final, & or &&.
bool opens_body(const std::string& s, size_t i) {
  size_t b = i;
  for (;;) {
    while (b > 0 && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    if (b == 0) return false;
    if (s[b - 1] == ')') return true;
    if (s[b - 1] == '&') {
      --b;
      continue;
    }
    size_t t = b;
    while (t > 0 && word_char(s[t - 1])) --t;
    const std::string w = s.substr(t, b - t);
    if (w != "const" && w != "noexcept" && w != "override" && w != "final") return false;
    b = t;
  }
}

// Arithmetic (+ - * / and their compound and ++ -- forms) inside inline function bodies,
// as "line: op": a public header's inline body is compiled with the application's
// flags, where a * b + c may be fused. Unary + - * (sign, dereference) and -> are not
// arithmetic.
std::vector<std::string> inline_arithmetic(const std::string& source) {
  const std::string s = strip(source);
  std::vector<std::string> found;
  std::vector<bool> braces;  // for each open brace: inside a function body
  int line = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n') ++line;
    const bool in_body = !braces.empty() && braces.back();
    if (c == '{') {
      braces.push_back(in_body || opens_body(s, i));
    } else if (c == '}') {
      if (!braces.empty()) braces.pop_back();
    } else if (in_body && (c == '+' || c == '-' || c == '*' || c == '/')) {
      if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
        ++i;
        continue;
      }
      size_t b = i;
      while (b > 0 && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
      size_t t = b;
      while (t > 0 && word_char(s[t - 1])) --t;
      const bool after_operand = b > 0 &&
                                 (word_char(s[b - 1]) || s[b - 1] == ')' || s[b - 1] == ']') &&
                                 s.compare(t, b - t, "return") != 0;
      const bool step = c != '*' && c != '/' && i + 1 < s.size() && s[i + 1] == c;  // ++ --
      if (c == '/' || after_operand || step) found.push_back(std::to_string(line) + ": " + c);
      if (step) ++i;
    }
  }
  return found;
}

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

TEST(SourceGuard, CatchesArithmeticInInlineFunctionBodies) {
  EXPECT_EQ(inline_arithmetic("inline Vec3 lerp(Vec3 a, Vec3 b, float t) {\n"
                              "  const float u = 1.0f - t;\n"
                              "  return {a.x * u + b.x * t};\n"
                              "}")
                .size(),
            4u);
  EXPECT_EQ(inline_arithmetic("struct S { float h() const { return w / 2; } float w; };").size(),
            1u);
  EXPECT_EQ(inline_arithmetic("int f() noexcept { int i = 0; i += 2; ++i; return i--; }").size(),
            3u);
  EXPECT_TRUE(inline_arithmetic("Vec3 lerp(Vec3 a, Vec3 b, float t);\n"
                                "float m[16] = {1, 0, -1, +2};\n"
                                "Vec3 v{1 * 2, -3, 4 / 5};")
                  .empty());
  EXPECT_TRUE(inline_arithmetic("inline bool operator==(const V& a, const V& b) {\n"
                                "  return a.x == b.x && -a.y == -b.y; }\n"
                                "T&& operator*() && { return std::move(*this).value(); }\n"
                                "const P& p() const { return *p_; }\n"
                                "const C& c() const { return s_->clips()[0]; }  // a - b\n")
                  .empty());
}

// The application's flags never compile the runtime's float math: the public headers
// declare it and math.cpp (built with -ffp-contract=off) defines it (tests/app_flags).
TEST(SourceGuard, PublicHeadersHoldNoInlineArithmetic) {
  const fs::path root = fs::path(ANIMPACK_SOURCE_DIR) / "runtime" / "include" / "animpack";
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".h") continue;
    ++files;
    for (const std::string& v : inline_arithmetic(read(entry.path()))) {
      ADD_FAILURE() << entry.path().string() << ":" << v;
    }
  }
  EXPECT_GE(files, 10) << "the guard looked at the public headers";
}

// Runs `check` (source text -> "line: what" findings) over every source file of runtime/
// and fails the test for each finding, naming the file.
template <typename Check>
void check_runtime_sources(Check check) {
  const fs::path root = fs::path(ANIMPACK_SOURCE_DIR) / "runtime";
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".h" && ext != ".hpp" && ext != ".inl") continue;
    ++files;
    for (const std::string& v : check(read(entry.path()))) {
      ADD_FAILURE() << entry.path().string() << ":" << v;
    }
  }
  EXPECT_GE(files, 10) << "the guard looked at the runtime's sources";
}

TEST(SourceGuard, RuntimeSourcesCallNoTranscendentalsOrFma) { check_runtime_sources(violations); }

TEST(SourceGuard, CatchesUncheckedFloatToIntegerConversions) {
  EXPECT_EQ(unchecked_conversions("k = static_cast<int64_t>(std::floor(x / p));").size(), 1u);
  EXPECT_EQ(unchecked_conversions("n = static_cast<std::size_t>(round(x)) + lround(y);").size(),
            2u);
  EXPECT_TRUE(unchecked_conversions("k = clamp_to_int64(std::floor(x), 0, 9);").empty());
  EXPECT_TRUE(unchecked_conversions("y = static_cast<double>(std::floor(x));").empty());
  EXPECT_TRUE(unchecked_conversions("// static_cast<int>(std::floor(x))").empty());
}

TEST(SourceGuard, RuntimeFloatToIntegerConversionsAreRangeChecked) {
  check_runtime_sources(unchecked_conversions);
}

TEST(SourceGuard, RuntimeIsBuiltWithoutContractionOrFastMath) {
  const std::string cmake = read(fs::path(ANIMPACK_SOURCE_DIR) / "runtime" / "CMakeLists.txt");
  EXPECT_NE(cmake.find("-ffp-contract=off"), std::string::npos);
  EXPECT_NE(cmake.find("-fno-fast-math"), std::string::npos);
  EXPECT_NE(cmake.find("-Wfloat-conversion"), std::string::npos)
      << "implicit float-to-integer conversions must warn";
  EXPECT_EQ(cmake.find("-ffast-math"), std::string::npos);
  EXPECT_EQ(cmake.find("-Ofast"), std::string::npos);
  EXPECT_EQ(cmake.find("-funsafe-math"), std::string::npos);
  const std::string defaults =
      read(fs::path(ANIMPACK_SOURCE_DIR) / "cmake" / "AnimpackDefaults.cmake");
  EXPECT_EQ(defaults.find("-ffast-math"), std::string::npos);
}

}  // namespace
