// The report's inputs for a fitted sweep: what `run` writes and `fit --plot` draws from one
// place, so the two never differ.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/recommend.hpp"
#include "reports/report.hpp"

namespace hugetune::cli {

// The probe, the sweep and the fit; the pool the predictions are for; this build; now. The
// additive blocks (breakdown, what_if, first_touch) are left to the caller.
ReportInputs fitted_report_inputs(nlohmann::json probe, nlohmann::json sweep,
                                  const model::Recommendation& recommendation,
                                  std::uint64_t page_size_kb);

}  // namespace hugetune::cli
