// The fleet report: one JSON document per run of `hugetune run`, validated by
// model/documents/schema/report.schema.json. Assembled from the results of the earlier stages,
// which arrive as JSON values (probe, sweep, fit); this module reads them and writes nothing
// itself.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/documents/sweep.hpp"
#include "model/report_version.hpp"
#include "model/warning.hpp"

namespace hugetune {

struct ReportInputs {
    nlohmann::json probe;  // to_json(Probe)
    nlohmann::json sweep;  // the sweep document (see `hugetune sweep --out`)
    nlohmann::json fit;    // the fit result (`hugetune fit --json`): model, phases, recommendation
    nlohmann::json boot_pool;  // {pages, page_size_kb, source}: what the predictions are for
    // The additive blocks (model/documents/breakdown.hpp's writers); null: left out.
    nlohmann::json breakdown, what_if, first_touch;
    std::string tool_version;
    std::string tool_commit = "unknown";  // the short commit hash; "unknown" outside a git tree
    std::chrono::system_clock::time_point generated_at;
};

// The threshold behind the noisy warning, named so the README can quote it.
inline constexpr double kNoisySpreadRatio = 0.25;  // (max - min) / median of a point's samples

// The report's warnings, one sentence each: the fit's about the machine, what only the probe
// says (init_on_alloc_unknown) and what only the sweep's points show (oversubscribed,
// shortfall, noisy), then the fit's about the result. The model judges the machine's facts and
// the fit; this judges the rest, so no code comes from two places.
std::vector<model::Warning> collect_warnings(const nlohmann::json& probe,
                                             const model::MeasuredSweep& sweep,
                                             const nlohmann::json& fit);

nlohmann::json build_report(const ReportInputs& inputs);

}  // namespace hugetune
