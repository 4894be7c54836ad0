// A structural check of the HTML that `hplx report` writes, for the tests:
// every element closed and properly nested, entities well-formed, and a way
// to find an element by id and count the tags inside it. Not a general HTML
// parser: it knows the void elements and that <style>/<script> hold raw text.
#pragma once

#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace hplx::test {

inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "" when well-formed, otherwise what is wrong and the line.
inline std::string check_html(const std::string& html) {
  static const std::set<std::string> kVoid = {"area",   "base",  "br",    "col",  "embed",
                                              "hr",     "img",   "input", "link", "meta",
                                              "source", "track", "wbr"};
  std::vector<std::pair<std::string, int>> open;  // tag, line
  int line = 1;
  size_t i = 0;
  auto fail = [&](const std::string& what) { return "line " + std::to_string(line) + ": " + what; };
  while (i < html.size()) {
    const char c = html[i];
    if (c == '\n') ++line;
    if (c == '&') {
      size_t j = i + 1;
      while (j < html.size() &&
             (std::isalnum(static_cast<unsigned char>(html[j])) || html[j] == '#'))
        ++j;
      if (j == i + 1 || j >= html.size() || html[j] != ';') return fail("bare '&' (not an entity)");
      i = j + 1;
      continue;
    }
    if (c != '<') {
      if (c == '>') return fail("stray '>' in text");
      ++i;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      const size_t end = html.find("-->", i);
      if (end == std::string::npos) return fail("unclosed comment");
      for (size_t k = i; k < end; ++k) line += html[k] == '\n';
      i = end + 3;
      continue;
    }
    if (html.compare(i, 2, "<!") == 0) {
      i = html.find('>', i);
      if (i == std::string::npos) return fail("unclosed <!...>");
      ++i;
      continue;
    }
    // A tag: scan to its '>' outside quotes.
    size_t j = i + 1;
    char quote = 0;
    for (; j < html.size(); ++j) {
      if (html[j] == '\n') ++line;
      if (quote) {
        if (html[j] == quote) quote = 0;
      } else if (html[j] == '"' || html[j] == '\'') {
        quote = html[j];
      } else if (html[j] == '<') {
        return fail("'<' inside a tag");
      } else if (html[j] == '>') {
        break;
      }
    }
    if (j >= html.size()) return fail("unterminated tag");
    const std::string body = html.substr(i + 1, j - i - 1);
    i = j + 1;
    if (body.empty()) return fail("empty tag <>");
    if (body[0] == '/') {
      const std::string name = lower(body.substr(1, body.find_first_of(" \t\n", 1) - 1));
      if (open.empty()) return fail("</" + name + "> closes nothing");
      if (open.back().first != name)
        return fail("</" + name + "> closes <" + open.back().first + "> opened on line " +
                    std::to_string(open.back().second));
      open.pop_back();
      continue;
    }
    size_t n = 0;
    while (n < body.size() && (std::isalnum(static_cast<unsigned char>(body[n])) || body[n] == '-'))
      ++n;
    if (n == 0) return fail("a tag without a name: <" + body + ">");
    const std::string name = lower(body.substr(0, n));
    if (body.back() == '/' || kVoid.count(name)) continue;
    if (name == "style" || name == "script") {
      const size_t end = lower(html).find("</" + name, i);
      if (end == std::string::npos) return fail("unclosed <" + name + ">");
      for (size_t k = i; k < end; ++k) line += html[k] == '\n';
      i = end;
    }
    open.emplace_back(name, line);
  }
  if (!open.empty())
    return "<" + open.back().first + "> opened on line " + std::to_string(open.back().second) +
           " is never closed";
  return "";
}

// The element with id="id", from its start tag to its end tag (assumes the
// page is well-formed and the element does not nest an element of its own
// name); "" when there is none.
inline std::string element_by_id(const std::string& html, const std::string& id) {
  const size_t attr = html.find("id=\"" + id + "\"");
  if (attr == std::string::npos) return "";
  const size_t start = html.rfind('<', attr);
  size_t n = start + 1;
  while (n < html.size() && std::isalnum(static_cast<unsigned char>(html[n]))) ++n;
  const std::string name = html.substr(start + 1, n - start - 1);
  const size_t end = html.find("</" + name + ">", attr);
  if (end == std::string::npos) return "";
  return html.substr(start, end + name.size() + 3 - start);
}

// How many <tag ...> start tags `fragment` holds.
inline int count_tags(const std::string& fragment, const std::string& tag) {
  int count = 0;
  for (size_t p = fragment.find("<" + tag); p != std::string::npos;
       p = fragment.find("<" + tag, p + 1)) {
    const char next = p + 1 + tag.size() < fragment.size() ? fragment[p + 1 + tag.size()] : 0;
    if (next == ' ' || next == '>' || next == '/' || next == '\n') ++count;
  }
  return count;
}

}  // namespace hplx::test
