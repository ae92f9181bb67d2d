// The series a recommendation fits (from the cost basis, model/cost_basis.hpp) and the fits of
// it and of every measured phase.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/cost_basis.hpp"
#include "model/fit/model_selection.hpp"
#include "model/recommend.hpp"
#include "model/recommend/remarks.hpp"

namespace hugetune::model::recommend {

// Seconds per page for a sweep series (what carries over to a boot pool of any size, and makes
// lambda a rate in pages per second per node); a boot table's seconds stay as they are.
std::vector<Point> per_page(std::span<const Point> points, double pages_per_node);

// The series fitted for the recommendation, rebuilt the same way from resampled data.
struct Series {
    std::vector<Point> points;
    int dropped = 0;
};

Series build_series(const BasisChoice& basis, std::span<const Point> main,
                    std::span<const Point> zero, std::span<const Point> grow);

// The cost basis and the series fitted for it. `basis` points into the SweepData it was chosen
// from.
struct CostSeries {
    BasisChoice basis;
    Series series;
    std::string curve;  // boot, alloc or alloc_only
    Remarks remarks;
};

// Throws InputError without a boot or alloc series.
CostSeries choose_cost_series(const SweepData& data, const SettingWords& words = {});

// Every phase fitted for the record, and the recommendation's own series.
struct FittedModels {
    std::vector<PhaseModel> phases;
    ModelSelection model;
    std::optional<ScalingFit> chosen;  // absent: no fit converged, or the series is held flat
    bool fallback = false;             // no fit converged: decide on the measured counts
    Remarks remarks;
};

FittedModels fit_models(const SweepData& data, const CostSeries& cost, const FitOptions& fit);

}  // namespace hugetune::model::recommend
