// Run records: what `hplx report RUN.json` does with a file, parsed and
// checked (parse_run_file), its tests read (collect_tests) and the page
// rendered (render_report).
#include "core/error.hpp"
#include "fuzz_check.hpp"
#include "report/html_report.hpp"
#include "report/run_record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz_text(data, size);
  try {
    std::vector<hplx::report::RunFile> files;
    files.push_back(hplx::report::parse_run_file(text, "fuzz/run.json"));
    const auto views = hplx::report::collect_tests(files);
    FUZZ_CHECK(views.size() == files.front().record.at("tests").size());
    const std::string html = hplx::report::render_report(files);
    FUZZ_CHECK(html.find("</html>") != std::string::npos);
  } catch (const hplx::UsageError& e) {
    FUZZ_CHECK(std::string(e.what()).find("fuzz/run.json") != std::string::npos);
  }
  return 0;
}
