// hplx_html_check FILE [ID:TAG:MIN ...]: exits 0 when FILE is well-formed
// HTML and, for each ID:TAG:MIN, the element with that id holds at least MIN
// <TAG> elements; otherwise prints why and exits 1. For the e2e tests.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "html_check.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: hplx_html_check FILE [ID:TAG:MIN ...]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::printf("html_check: cannot open %s\n", argv[1]);
    return 1;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string html = ss.str();
  if (const std::string err = hplx::test::check_html(html); !err.empty()) {
    std::printf("html_check: %s: not well-formed: %s\n", argv[1], err.c_str());
    return 1;
  }
  for (int a = 2; a < argc; ++a) {
    const std::string spec = argv[a];
    const size_t c1 = spec.find(':'), c2 = spec.rfind(':');
    if (c1 == std::string::npos || c1 == c2) {
      std::fprintf(stderr, "html_check: bad spec %s (want ID:TAG:MIN)\n", spec.c_str());
      return 2;
    }
    const std::string id = spec.substr(0, c1), tag = spec.substr(c1 + 1, c2 - c1 - 1);
    const int min = std::stoi(spec.substr(c2 + 1));
    const std::string element = hplx::test::element_by_id(html, id);
    const int n = hplx::test::count_tags(element, tag);
    if (element.empty() || n < min) {
      std::printf("html_check: %s: #%s has %d <%s>, want >= %d\n", argv[1], id.c_str(), n,
                  tag.c_str(), min);
      return 1;
    }
    std::printf("html_check: #%s: %d <%s>\n", id.c_str(), n, tag.c_str());
  }
  std::printf("html_check: %s: well-formed\n", argv[1]);
  return 0;
}
