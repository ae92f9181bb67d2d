// The console summary of a report, for people: per-phase tables, the model, the
// recommendation with the predicted boot times, warnings and a small chart. It reads only the
// report (model/documents/report.hpp), so a stored report prints the same summary later.
#pragma once

#include <string>
#include <vector>

#include "model/documents/report.hpp"
#include "model/documents/sweep.hpp"

#include "reports/plot.hpp"

namespace hugetune {

// One table per phase of the sweep points: N, median, spread, GiB/s.
std::string format_phase_tables(const std::vector<model::MeasuredPoint>& points);

// The console output of `hugetune sweep`: the sample, the phase tables, what spread means and
// the sweep's notes.
std::string format_sweep_summary(const model::MeasuredSweep& sweep);

// The measured medians (with their spread) and fitted throughput per phase, in GiB/s over all
// nodes, with the recommended and default thread counts marked. A whole report (report.run).
PlotData plot_data_from_report(const model::Report& report);

std::string format_report_summary(const model::Report& report);

}  // namespace hugetune
