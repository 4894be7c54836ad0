// `hplx report`: one self-contained HTML page (inline CSS and SVG, no
// script, no network) from one or more `hplx lu --json` records (and
// `hplx hpl-mxp --json` records: report/hpl_mxp_page.hpp draws those, after
// the LU tests).
//
// Page layout:
//   - the files read; per record with a "top500" object (core/top500.hpp),
//     section "top500-figures-<f>": Rmax, Nmax, N_half (and how it was
//     found), Rpeak (and where from), Rmax/Rpeak, the Green500 Gflops/W,
//     over the chart "top500-<f>" (Gflops against N of the passed tests);
//   - with several tests, a summary table and the Gflops
//     against N (one line per NB) and against NB (one line per N) charts;
//   - per test (section id "test-<i>", i counting tests over all files):
//     a headline (variant, N, NB, grid, Gflops, verdict), the balance point
//     sentence, the per-iteration breakdown (svg "breakdown-<i>"), the
//     running Gflops (svg "gflops-<i>"), and a table of parameters, results
//     (with the energy: joules, watts, Gflops/W, or why not measured) and
//     the machine.
//   - the definition of the balance point.
// Model overlay: a test's optional "prediction" object
// {"time_s", "gflops", "iterations": [{"k", "iter_s"}]} is drawn as a dashed
// predicted iteration time in the breakdown, a dashed predicted Gflops line
// and table rows beside the measured values; without it nothing is drawn.
#pragma once

#include <string>
#include <vector>

#include "report/run_record.hpp"

namespace hplx::report {

// The HTML page for the loaded records (load_run_file). Throws UsageError
// for a malformed test (see collect_tests).
std::string render_report(const std::vector<RunFile>& files);

}  // namespace hplx::report
