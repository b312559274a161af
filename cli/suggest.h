// Did-you-mean for the command line: the known word closest to a mistyped one.
//
//   const std::string s = closest_name("cok", {"cook", "check", "inspect"});  // "cook"
//   if (!s.empty()) message += "; did you mean '" + s + "'?";
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace animpack::cli {

// The optimal-string-alignment (restricted Damerau-Levenshtein) distance between `a` and
// `b`, ASCII case ignored: insertions, deletions, substitutions and swaps of two
// neighbours each cost 1.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` by edit_distance, or "" when none is close enough: the
// distance must be at most 1 for words of up to 4 characters, 2 up to 8, else 3, and less
// than the word's length (so "x" suggests nothing). Ties go to the first candidate.
std::string closest_name(std::string_view word, const std::vector<std::string>& candidates);

// Every option name `command` accepts, as typed: "--long" and "-s" (help included).
std::vector<std::string> option_names(const CLI::App& command);

// " (did you mean 'NAME'?)" for the option `arg` (an "--opt=value" compared without its
// value) among `command`'s options, or "" when none is close.
std::string option_suggestion(const CLI::App& command, std::string_view arg);

}  // namespace animpack::cli
