// The `fit` document (`hugetune fit --json`, a report's `fit` block, a fleet answer's kept fit):
// a Recommendation as JSON, its one writer and its one reader. A report carries the
// Recommendation itself from the fit to the file; the reader gives a stored one back whole, less
// what the document does not keep (the solver's evaluations, the curve the predictions follow).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "model/recommend.hpp"

namespace hugetune::model {

class JsonField;

// The unit of every fitted lambda of a sweep's fit: what the plot can draw as throughput.
inline constexpr const char* kPagesPerSecondPerNode = "pages per second per node";

nlohmann::json to_json(const ScalingFit& fit);
nlohmann::json to_json(const ModelSelection& selection);
nlohmann::json to_json(const Recommendation& recommendation);

// The top-level `model` block of a report: each phase's model, keyed by phase.
nlohmann::json models_by_phase_json(const Recommendation& recommendation);

// Reads what to_json(Recommendation) wrote; a fit block written by an earlier hugetune reads
// with what it lacks at its defaults. InputError naming the field by its JSON path.
Recommendation read_fit(const JsonField& fit);

}  // namespace hugetune::model
