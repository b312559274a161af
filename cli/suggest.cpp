// Did-you-mean (suggest.h): optimal string alignment distance, ASCII case ignored.
#include "suggest.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace animpack::cli {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: the distance between a's first i and b's first j characters; three rows.
  const size_t n = b.size();
  std::vector<size_t> before(n + 1), prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= n; ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1])) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[n];
}

std::string closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  const size_t limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance && d < word.size()) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* o : command.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string option_suggestion(const CLI::App& command, std::string_view arg) {
  const std::string_view name = arg.substr(0, arg.find('='));
  const std::string s = closest_name(name, option_names(command));
  return s.empty() ? "" : " (did you mean '" + s + "'?)";
}

}  // namespace animpack::cli
