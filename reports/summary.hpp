// The console summary of a report, for people: the recommendation with the predicted boot
// times, warnings, and under --verbose the sweep's tables, the model and small charts. It reads
// only the report (model/documents/report.hpp), so a stored report prints the same summary later.
#pragma once

#include <string>
#include <vector>

#include "model/boot_comparison.hpp"
#include "model/documents/report.hpp"
#include "model/errors.hpp"
#include "model/input/fit_input.hpp"

namespace hugetune {

// The breakdown of the predicted boot, the what-if rows and the first touch (the report's
// `breakdown`, `what_if` and `first_touch`), as the report's summary and `hugetune fit` print
// them; empty when there is none of them.
std::string format_breakdown(const std::optional<model::BootBreakdown>& breakdown,
                             const std::vector<model::WhatIf>& what_if,
                             const std::optional<model::FirstTouch>& first_touch);

// The console summary of a run, the answer first: the decision, its predicted boot time and the
// default's with intervals, the pool, how sure and why, whether this machine can answer at all
// (cannot_answer), then the predicted boot at each measured count and the warnings, one line
// each. `verbose` adds the answer's details as `fit --verbose` prints them (the verdict, the
// curve and its model and each other phase's, every prediction), then the raw measurements, the
// breakdown, the what-if rows, the notes, the warnings whole and the charts.
std::string format_report_summary(const model::Report& report, const SettingWords& words = {},
                                  bool verbose = false);

// Why this machine's sweep cannot answer well, each a clause: a virtual machine (the `vm`
// warning), or fewer than model::kMinThreadCounts of the measured counts per node (`grid`) on
// hardware threads of their own. Empty when it can.
std::vector<std::string> cannot_answer(const model::Recommendation& recommendation,
                                       const std::vector<int>& grid);

// The distinct thread counts per node an input measured.
std::vector<int> thread_grid(const model::SweepData& data);

// The console output of `hugetune fit`, the answer first and its details under `verbose` as the
// run's summary prints them (one printer of an answer), then the warnings whole.
std::string format_fit_summary(const model::Recommendation& recommendation,
                               const std::vector<int>& grid, const SettingWords& words = {},
                               bool verbose = false);

// Measured boots (a boot sweep) against the prediction for their pool, one row per value.
std::string format_boot_comparison(const model::BootComparison& comparison);

}  // namespace hugetune
