// The console summary of a report, for people: per-phase tables, the model, the
// recommendation with the predicted boot times, warnings and a small chart. It reads only the
// report document, so a stored report prints the same summary later.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "reports/plot.hpp"

namespace hugetune {

// One table per phase of the sweep points: N, median, spread, GiB/s.
std::string format_phase_tables(const nlohmann::json& sweep_points);

// The console output of `hugetune sweep`, from its "hugetune-sweep" document: the sample, the
// phase tables, what spread means and the sweep's notes.
std::string format_sweep_summary(const nlohmann::json& sweep);

// The measured medians (with their spread) and fitted throughput per phase, in GiB/s over all
// nodes, with the recommended and default thread counts marked.
PlotData plot_data_from_report(const nlohmann::json& report);

std::string format_report_summary(const nlohmann::json& report);

}  // namespace hugetune
