#include "report/ranks_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <vector>

#include "report/svg.hpp"

namespace hplx::report {

namespace {

using nlohmann::json;

// The rows shown: every rank up to kAllRanks, else the slow ones and the
// slowest others up to kAllRanks in all, in rank order.
std::vector<const json*> shown_rows(const json& ranks, const std::set<long>& slow) {
  std::vector<const json*> rows;
  for (const json& r : ranks) rows.push_back(&r);
  if (rows.size() <= kAllRanks) return rows;
  std::stable_sort(rows.begin(), rows.end(), [&](const json* a, const json* b) {
    const bool sa = slow.count(a->value("rank", -1L)), sb = slow.count(b->value("rank", -1L));
    if (sa != sb) return sa;
    return a->value("update_s", 0.0) > b->value("update_s", 0.0);
  });
  rows.resize(kAllRanks);
  std::sort(rows.begin(), rows.end(), [](const json* a, const json* b) {
    return a->value("rank", 0L) < b->value("rank", 0L);
  });
  return rows;
}

}  // namespace

std::string ranks_section(const json& test) {
  const auto it = test.find("ranks");
  if (it == test.end() || !it->is_object() || !it->contains("ranks")) return "";
  const json& ranks = (*it)["ranks"];
  std::set<long> slow;
  std::ostringstream named;
  for (const json& s : it->value("slow", json::array())) {
    slow.insert(s.value("rank", -1L));
    named << fmt::format("{}rank {} on {} ({:+.0f}%)", slow.size() > 1 ? ", " : "",
                         s.value("rank", -1L), escape_html(s.value("host", std::string("?"))),
                         100 * s.value("slower", 0.0));
  }
  const double threshold = it->value("slow_threshold", 0.0);
  std::ostringstream out;
  out << "<h3>Ranks</h3>\n<p class=\"caption\">";
  if (slow.empty())
    out << fmt::format("No rank's update took more than {:.0f}% longer than the others' median.",
                       100 * threshold);
  else
    out << fmt::format("Slow (update more than {:.0f}% longer than the others' median): {}.",
                       100 * threshold, named.str());
  const std::vector<const json*> rows = shown_rows(ranks, slow);
  if (rows.size() < ranks.size())
    out << fmt::format(" {} of {} ranks shown: the slow ones and the slowest others.", rows.size(),
                       ranks.size());
  out << "</p>\n<table class=\"ranks\"><tr><th>rank</th><th>host</th><th>update (s)</th>"
         "<th>FACT (s)</th><th>wait (s)</th><th></th></tr>\n";
  for (const json* r : rows) {
    const bool is_slow = slow.count(r->value("rank", -1L)) > 0;
    out << fmt::format(
        "<tr{}><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
        is_slow ? " class=\"slow\"" : "", r->value("rank", -1L),
        escape_html(r->value("host", std::string("?"))), format_number(r->value("update_s", 0.0)),
        format_number(r->value("fact_s", 0.0)), format_number(r->value("wait_s", 0.0)),
        is_slow ? "slow" : "");
  }
  out << "</table>\n";
  return out.str();
}

}  // namespace hplx::report
