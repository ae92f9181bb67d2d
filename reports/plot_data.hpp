// What a report's charts draw (reports/plot.hpp), taken from the report: the gnuplot script and
// the summary's text charts are drawn from it.
#pragma once

#include "model/documents/report.hpp"
#include "reports/plot.hpp"

namespace hugetune {

// The measured medians (with their spread) and fitted throughput per phase, in GiB/s over all
// nodes, with the recommended and default thread counts marked, and the report's breakdown and
// what-if rows as bars. A whole report (report.run).
PlotData plot_data_from_report(const model::Report& report);

}  // namespace hugetune
