// The sweep's measurements for people: a table per phase, the sample, the placement and how
// many samples each point got; `hugetune sweep` prints them, and the report's summary under
// --verbose (reports/summary.hpp).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/documents/sweep.hpp"
#include "model/errors.hpp"

namespace hugetune {

// The points of each phase, sorted by threads per node.
std::map<std::string, std::vector<const model::MeasuredPoint*>> points_by_phase(
    const std::vector<model::MeasuredPoint>& points);

// A point's fastest and slowest sample; (0, 0) for none.
std::pair<double, double> sample_range(const model::MeasuredPoint& point);

// One table per phase of the sweep points: N, median, spread, GiB/s.
std::string format_phase_tables(const std::vector<model::MeasuredPoint>& points);

// Which placement the measurements, and so the prediction, came from (docs/kernel-facts.md "The
// sweep against the boot"): node-local on several nodes leaves out what limits the boot's
// scaling, and the line says how to measure as the boot does.
std::string placement_line(const model::MeasuredSweep& sweep, const SettingWords& words);

// One line: how many samples each point got (threads per node : samples) and why measuring
// stopped; nothing for a sweep that does not say (written before the adaptive rule).
std::string sampling_line(const model::MeasuredSweep& sweep);

// The console output of `hugetune sweep`: the sample, the phase tables, what spread means and
// the sweep's notes.
// Settings the user can change are named as `words` says (the command line's flags).
std::string format_sweep_summary(const model::MeasuredSweep& sweep, const SettingWords& words = {});

}  // namespace hugetune
