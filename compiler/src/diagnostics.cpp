#include "animpack/compiler/diagnostics.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>
#include <vector>

namespace animpack {
namespace {

// The line'th line (1-based) of text without its line ending; nullopt past the end.
std::optional<std::string_view> source_line(std::string_view text, int line) {
  if (line <= 0) return std::nullopt;
  size_t begin = 0;
  for (int i = 1; i < line; ++i) {
    const size_t nl = text.find('\n', begin);
    if (nl == std::string_view::npos) return std::nullopt;
    begin = nl + 1;
  }
  if (begin >= text.size() && line > 1) return std::nullopt;  // after the final newline
  size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  std::string_view out = text.substr(begin, end - begin);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

size_t utf8_sequence_length(std::string_view text, size_t i);

// One byte as \xNN.
void append_hex(std::string& out, unsigned char byte) {
  static const char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

// The units of `text` one at a time (a valid UTF-8 sequence, or one byte), each as it is
// printed: unchanged when printable, else \xNN for each byte (control characters, NUL,
// DEL, C1 controls, bytes that are not UTF-8). `keep` names ASCII controls left as they
// are. Calls unit(printed, printed_width_in_code_points) for each.
template <typename Unit>
void for_each_printed(std::string_view text, std::string_view keep, Unit&& unit) {
  std::string printed;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    printed.clear();
    size_t len = 1;
    if (c < 0x80) {
      if ((c < 0x20 || c == 0x7F) && keep.find(static_cast<char>(c)) == std::string_view::npos) {
        append_hex(printed, c);
      } else {
        printed += static_cast<char>(c);
      }
    } else {
      len = utf8_sequence_length(text, i);
      // U+0080..U+009F (C1 controls) are C2 80..C2 9F.
      const bool c1 = len == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
      if (len == 0 || c1) {
        len = len == 0 ? 1 : len;
        for (size_t k = 0; k < len; ++k)
          append_hex(printed, static_cast<unsigned char>(text[i + k]));
      } else {
        printed.append(text.substr(i, len));
      }
    }
    unit(printed, printed.size() > len ? static_cast<int>(printed.size()) : 1);
    i += len;
  }
}

}  // namespace

std::string printable(std::string_view text, std::string_view keep) {
  std::string out;
  out.reserve(text.size());
  for_each_printed(text, keep, [&](const std::string& unit, int) { out += unit; });
  return out;
}

namespace {

// The source line as printed (printable(), tabs kept), and below it spaces (tabs where
// the line has tabs) up to code point `col` of the line, then a caret.
std::pair<std::string, std::string> printed_line_and_caret(std::string_view line, int col) {
  std::string text, caret;
  int points = 0;  // code points of the line passed so far
  for_each_printed(line, "\t", [&](const std::string& unit, int width) {
    text += unit;
    if (points < col - 1) {
      if (unit == "\t") {
        caret += '\t';
      } else {
        caret.append(static_cast<size_t>(width), ' ');
      }
      ++points;
    }
  });
  for (; points < col - 1; ++points) caret += ' ';  // a column past the line's end
  caret += '^';
  return {text, caret};
}

// GitHub workflow command escaping (actions/toolkit, command.ts escapeData/escapeProperty),
// after printable() (which keeps CR and LF for the %0D and %0A of the toolkit).
std::string github_escape(std::string_view raw, bool property) {
  const std::string text = printable(raw, "\r\n");
  std::string out;
  for (char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The length of the valid UTF-8 sequence at text[i], or 0 when it is not one
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  size_t len = 0;
  uint32_t cp = 0;
  if (b0 < 0x80) return 1;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

const DiagnosticCode* find_diagnostic_code(std::string_view code) {
  for (const DiagnosticCode& entry : kDiagnosticCodes) {
    if (entry.code == code) return &entry;
  }
  return nullptr;
}

void DiagnosticSink::add_source(std::string file, std::string text) {
  sources_.insert_or_assign(std::move(file), std::move(text));
}

const std::string* DiagnosticSink::source(std::string_view file) const {
  const auto it = sources_.find(file);
  return it == sources_.end() ? nullptr : &it->second;
}

size_t DiagnosticSink::add(Diagnostic diagnostic) {
  const size_t index = diagnostics_.size();
  if (diagnostic.parent < 0 || static_cast<size_t>(diagnostic.parent) >= index) {
    diagnostic.parent = -1;
  }
  diagnostics_.push_back(std::move(diagnostic));
  return index;
}

size_t DiagnosticSink::report(std::string_view code, std::string_view file, int line, int col,
                              std::string message) {
  const DiagnosticCode* entry = find_diagnostic_code(code);
  assert(entry && "a diagnostic code missing from kDiagnosticCodes");
  return add(Diagnostic{std::string(code), entry ? entry->severity : Severity::kError,
                        std::string(file), line, col, std::move(message)});
}

size_t DiagnosticSink::add_note(size_t parent, std::string_view code, std::string_view file,
                                int line, int col, std::string message) {
  Diagnostic note{std::string(code), Severity::kNote, std::string(file), line, col,
                  std::move(message)};
  note.parent = parent < diagnostics_.size() ? static_cast<int>(parent) : -1;
  return add(std::move(note));
}

void DiagnosticSink::sort() {
  // Groups: a diagnostic without a parent heads one; every note joins its parent's group
  // (parents come first, so one pass finds each note's head). The heads are sorted by
  // place, stably; each group keeps its report order behind its head.
  const size_t n = diagnostics_.size();
  std::vector<size_t> head(n);
  std::vector<size_t> heads;
  for (size_t i = 0; i < n; ++i) {
    const int p = diagnostics_[i].parent;
    head[i] = p < 0 ? i : head[static_cast<size_t>(p)];
    if (p < 0) heads.push_back(i);
  }
  std::stable_sort(heads.begin(), heads.end(), [&](size_t a, size_t b) {
    const Diagnostic& x = diagnostics_[a];
    const Diagnostic& y = diagnostics_[b];
    return std::tie(x.file, x.line, x.col) < std::tie(y.file, y.line, y.col);
  });
  std::vector<std::vector<size_t>> members(n);
  for (size_t i = 0; i < n; ++i) {
    if (head[i] != i) members[head[i]].push_back(i);
  }
  std::vector<size_t> order;
  order.reserve(n);
  for (size_t h : heads) {
    order.push_back(h);
    order.insert(order.end(), members[h].begin(), members[h].end());
  }
  std::vector<int> new_index(n);
  for (size_t k = 0; k < n; ++k) new_index[order[k]] = static_cast<int>(k);
  std::vector<Diagnostic> sorted;
  sorted.reserve(n);
  for (size_t i : order) {
    sorted.push_back(std::move(diagnostics_[i]));
    if (sorted.back().parent >= 0) {
      sorted.back().parent = new_index[static_cast<size_t>(sorted.back().parent)];
    }
  }
  diagnostics_ = std::move(sorted);
}

size_t DiagnosticSink::error_count() const {
  return static_cast<size_t>(
      std::count_if(diagnostics_.begin(), diagnostics_.end(),
                    [](const Diagnostic& d) { return d.severity == Severity::kError; }));
}

size_t DiagnosticSink::warning_count() const {
  return static_cast<size_t>(
      std::count_if(diagnostics_.begin(), diagnostics_.end(),
                    [](const Diagnostic& d) { return d.severity == Severity::kWarning; }));
}

std::optional<DiagnosticFormat> parse_diagnostic_format(std::string_view name) {
  if (name == "gcc") return DiagnosticFormat::kGcc;
  if (name == "github") return DiagnosticFormat::kGithub;
  if (name == "json") return DiagnosticFormat::kJson;
  if (name == "sarif") return DiagnosticFormat::kSarif;
  return std::nullopt;
}

std::optional<ColorMode> parse_color_mode(std::string_view name) {
  if (name == "auto") return ColorMode::kAuto;
  if (name == "always") return ColorMode::kAlways;
  if (name == "never") return ColorMode::kNever;
  return std::nullopt;
}

bool use_color(ColorMode mode, bool terminal, const char* no_color) {
  switch (mode) {
    case ColorMode::kAlways:
      return true;
    case ColorMode::kNever:
      return false;
    case ColorMode::kAuto:
      return terminal && (no_color == nullptr || no_color[0] == '\0');
  }
  return false;
}

bool use_color_on_stderr(ColorMode mode) {
  return use_color(mode, ::isatty(STDERR_FILENO) == 1, std::getenv("NO_COLOR"));
}

std::string sarif_uri(std::string_view path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string_view("-._~/!$&'()*+,;=@").find(ch) != std::string_view::npos;
    if (keep) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t len = utf8_sequence_length(text, i);
      if (len == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        ++i;
      } else {
        out.append(text.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return out;
}

namespace {

// ANSI SGR sequences of the coloured gcc format (GCC's and Clang's choices).
constexpr std::string_view kBold = "\033[1m";
constexpr std::string_view kReset = "\033[0m";

std::string_view severity_color(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "\033[1;31m";  // bold red
    case Severity::kWarning:
      return "\033[1;35m";  // bold magenta
    case Severity::kNote:
      return "\033[1;36m";  // bold cyan
  }
  return kBold;
}

constexpr std::string_view kCaretColor = "\033[1;32m";  // bold green

std::string format_gcc(const Diagnostic& d, const std::string* source, DiagnosticStyle style) {
  std::string out;
  std::string place = printable(d.file);
  if (d.line > 0) {
    place += ':' + std::to_string(d.line);
    if (d.col > 0) place += ':' + std::to_string(d.col);
  }
  place += ':';
  const std::string severity = std::string(severity_name(d.severity)) + ':';
  if (style.color) {
    out += std::string(kBold) + place + std::string(kReset) + ' ' +
           std::string(severity_color(d.severity)) + severity + std::string(kReset);
  } else {
    out += place + ' ' + severity;
  }
  out += ' ' + printable(d.message) + " [" + printable(d.code) + "]\n";
  if (source == nullptr || d.line <= 0) return out;
  const std::optional<std::string_view> line = source_line(*source, d.line);
  if (!line) return out;
  char number[32];
  std::snprintf(number, sizeof number, " %4d | ", d.line);
  auto [text, caret] = printed_line_and_caret(*line, d.col);
  out += number;
  out += text;
  out += '\n';
  if (d.col > 0) {
    if (style.color) {
      caret.insert(caret.size() - 1, kCaretColor);
      caret += kReset;
    }
    out += std::string(std::string_view(number).size() - 2, ' ') + "| ";
    out += caret;
    out += '\n';
  }
  return out;
}

// SARIF's level for a severity.
const char* sarif_level(Severity severity) { return severity_name(severity); }  // the same words

using Json = nlohmann::ordered_json;

// The SARIF log of `diagnostics` (in their order; parent indices into the same vector).
std::string format_sarif(const std::vector<Diagnostic>& diagnostics) {
  // Artifacts in order of first use; rules in the order of kDiagnosticCodes.
  std::vector<std::string> files;
  std::map<std::string, size_t, std::less<>> file_index;
  std::vector<bool> used(std::size(kDiagnosticCodes), false);
  for (const Diagnostic& d : diagnostics) {
    if (file_index.try_emplace(d.file, files.size()).second) files.push_back(d.file);
    for (size_t r = 0; r < std::size(kDiagnosticCodes); ++r) {
      if (kDiagnosticCodes[r].code == d.code) used[r] = true;
    }
  }
  Json rules = Json::array();
  std::map<std::string_view, size_t> rule_index;
  for (size_t r = 0; r < std::size(kDiagnosticCodes); ++r) {
    if (!used[r]) continue;
    const DiagnosticCode& entry = kDiagnosticCodes[r];
    rule_index[entry.code] = rules.size();
    rules.push_back(Json{
        {"id", std::string(entry.code)},
        {"shortDescription", {{"text", std::string(entry.title)}}},
        {"fullDescription", {{"text", std::string(entry.explanation)}}},
        {"defaultConfiguration", {{"level", sarif_level(entry.severity)}}},
    });
  }
  // A location: the file (by artifact index), the region when the line is known, the JSON
  // pointer as a logical location.
  const auto location = [&](const Diagnostic& d) {
    Json physical{
        {"artifactLocation", {{"uri", sarif_uri(d.file)}, {"index", file_index.at(d.file)}}}};
    if (d.line > 0) {
      Json region{{"startLine", d.line}};
      if (d.col > 0) region["startColumn"] = d.col;
      physical["region"] = std::move(region);
    }
    Json out{{"physicalLocation", std::move(physical)}};
    if (!d.pointer.empty()) {
      out["logicalLocations"] = Json::array({Json{{"fullyQualifiedName", d.pointer}}});
    }
    return out;
  };
  const auto properties = [](const Diagnostic& d) {
    Json p = Json::object();
    if (!d.pointer.empty()) p["jsonPointer"] = d.pointer;
    if (!d.source_code.empty()) p["sourceCode"] = d.source_code;
    return p;
  };
  Json results = Json::array();
  std::vector<size_t> result_of(diagnostics.size(), 0);
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    const Diagnostic& d = diagnostics[i];
    if (d.parent >= 0 && static_cast<size_t>(d.parent) < i) {
      // A note of an earlier diagnostic: one of its result's related locations.
      const size_t result = result_of[static_cast<size_t>(d.parent)];
      result_of[i] = result;
      Json& related = results[result]["relatedLocations"];
      if (related.is_null()) related = Json::array();
      Json where = location(d);
      where["id"] = related.size() + 1;
      where["message"] = Json{{"text", d.message}};
      Json p = properties(d);
      p["code"] = d.code;
      where["properties"] = std::move(p);
      related.push_back(std::move(where));
      continue;
    }
    result_of[i] = results.size();
    Json result{{"ruleId", d.code}};
    if (const auto it = rule_index.find(d.code); it != rule_index.end()) {
      result["ruleIndex"] = it->second;
    }
    result["level"] = sarif_level(d.severity);
    result["message"] = Json{{"text", d.message}};
    result["locations"] = Json::array({location(d)});
    if (Json p = properties(d); !p.empty()) result["properties"] = std::move(p);
    results.push_back(std::move(result));
  }
  Json artifacts = Json::array();
  for (const std::string& f : files)
    artifacts.push_back(Json{{"location", {{"uri", sarif_uri(f)}}}});
  Json driver{{"name", "animpack"}, {"version", ANIMPACK_VERSION}};
  if (!rules.empty()) driver["rules"] = std::move(rules);
  Json run{{"tool", {{"driver", std::move(driver)}}}};
  if (!artifacts.empty()) run["artifacts"] = std::move(artifacts);
  run["results"] = std::move(results);
  run["columnKind"] = "unicodeCodePoints";
  const Json log{{"version", "2.1.0"}, {"runs", Json::array({std::move(run)})}};
  // Bytes that are not UTF-8 become U+FFFD, as in the json format.
  return log.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string format_diagnostic(const Diagnostic& d, DiagnosticFormat format,
                              const std::string* source, DiagnosticStyle style) {
  std::string out;
  switch (format) {
    case DiagnosticFormat::kGcc:
      return format_gcc(d, source, style);
    case DiagnosticFormat::kGithub: {
      switch (d.severity) {
        case Severity::kError:
          out += "::error";
          break;
        case Severity::kWarning:
          out += "::warning";
          break;
        case Severity::kNote:
          out += "::notice";
          break;
      }
      out += " file=" + github_escape(d.file, true);
      if (d.line > 0) {
        out += ",line=" + std::to_string(d.line);
        if (d.col > 0) out += ",col=" + std::to_string(d.col);
      }
      out += ",title=" + github_escape(d.code, true);
      out += "::" + github_escape(d.message, false) + "\n";
      break;
    }
    case DiagnosticFormat::kJson: {
      out += "{\"file\":\"" + json_escape(d.file) + "\",\"line\":" + std::to_string(d.line) +
             ",\"column\":" + std::to_string(d.col) + ",\"severity\":\"" +
             severity_name(d.severity) + "\",\"code\":\"" + json_escape(d.code) +
             "\",\"message\":\"" + json_escape(d.message) + "\",\"pointer\":\"" +
             json_escape(d.pointer) + "\",\"source_code\":\"" + json_escape(d.source_code) +
             "\",\"parent\":" + (d.parent >= 0 ? std::to_string(d.parent) : "null") + "}\n";
      break;
    }
    case DiagnosticFormat::kSarif: {
      Diagnostic alone = d;
      alone.parent = -1;
      return format_sarif({alone});
    }
  }
  return out;
}

std::string format_diagnostics(const DiagnosticSink& sink, DiagnosticFormat format,
                               DiagnosticStyle style) {
  if (format == DiagnosticFormat::kSarif) return format_sarif(sink.diagnostics());
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) {
    out += format_diagnostic(d, format, sink.source(d.file), style);
  }
  return out;
}

std::string diagnostic_codes_markdown() {
  std::string out =
      "# Diagnostics\n"
      "\n"
      "<!-- Generated from kDiagnosticCodes in "
      "compiler/include/animpack/compiler/diagnostics.h: do not edit by hand. Regenerate "
      "with\n"
      "     ANIMPACK_WRITE_DOCS=1 ./build/dev/tests/scene/scene_tests "
      "--gtest_filter='DiagnosticsDoc.*' -->\n"
      "\n"
      "Every problem the cooker finds is a diagnostic: a stable code from the table below, a "
      "severity,\n"
      "the file, a 1-based line and column (code points; 0 when the problem has no place, "
      "such as a\n"
      "file that cannot be read) and a message. All of them are collected in one run and "
      "printed in\n"
      "source order, each once. Only errors (E codes) fail a cook; warnings (W codes) are "
      "printed and\n"
      "the cook goes on. Codes are never reused; tests assert codes and positions, not "
      "messages.\n"
      "\n"
      "Formats (`format_diagnostic`, the command line's `--format`):\n"
      "\n"
      "- `gcc` (the default): `scene.toml:14:9: error: mesh walker has no clip Jog [E0202]`, "
      "then the\n"
      "  source line and a caret under the column, as GCC prints them.\n"
      "- `github`: a GitHub Actions workflow command, "
      "`::error file=scene.toml,line=14,col=9,title=E0202::mesh walker has no clip Jog`\n"
      "  (`::warning` for warnings).\n"
      "- `json`: one JSON object a line with the keys `file`, `line`, `column`, `severity`, "
      "`code`,\n"
      "  `message`, `pointer` (a glTF problem's JSON pointer), `source_code` (the glTF "
      "reader's issue\n"
      "  code) and `parent` (for a note, the index of the diagnostic it belongs to).\n"
      "- `sarif`: one SARIF 2.1.0 log, the codes below as its rules (docs/cli.md).\n"
      "\n"
      "A note that belongs to a diagnostic is printed right after it. The `gcc` format is "
      "coloured on a\n"
      "terminal (`--color`, `NO_COLOR`: docs/cli.md).\n"
      "\n"
      "In `gcc` and `github`, a character of a file name or message that is not printable (an "
      "ASCII\n"
      "control character such as NUL or ESC, DEL, a C1 control, a byte that is not UTF-8) is "
      "written as\n"
      "`\\xNN`, one for each byte, so that no name can cut or garble the output; `json` escapes "
      "them as\n"
      "JSON does (`\\u0000`) and replaces bytes that are not UTF-8 with U+FFFD, as does `sarif`.\n"
      "\n"
      "| code | severity | title | rule and place |\n"
      "| --- | --- | --- | --- |\n";
  for (const DiagnosticCode& entry : kDiagnosticCodes) {
    out += "| `" + std::string(entry.code) + "` | " + severity_name(entry.severity) + " | " +
           markdown_cell(entry.title) + " | " + markdown_cell(entry.explanation) + " |\n";
  }
  return out;
}

}  // namespace animpack
