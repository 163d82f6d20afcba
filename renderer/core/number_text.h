#pragma once
// Numbers written as text, as scene files give them: one number (the whole word, finite), and a list
// in one string, its numbers separated by commas or spaces (Mitsuba's form: an rgb's value, a
// tabulated plugin's values).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace dray {

// The number `text` spells (all of it), if it is one and finite.
inline bool parse_number(const std::string& text, double& v) {
  char* end = nullptr;
  errno = 0;
  v = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && errno == 0 && std::isfinite(v);
}

// The words of a list separated by commas or spaces.
inline std::vector<std::string> list_words(std::string text) {
  for (char& c : text)
    if (c == ',') c = ' ';
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace dray
