// The predicted time of one series at any thread count: the fitted curve, corrected to pass
// through the measured medians, or the measurements alone when no fit is usable.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "model/fit/scaling_fit.hpp"

namespace hugetune::model {

class CostCurve {
  public:
    // `fit` absent: predictions interpolate the medians (the non-convergence fallback).
    CostCurve(std::span<const Point> points, std::optional<ScalingFit> fit);

    // Seconds for the series' work at `threads_per_node` (> 0, fractional allowed: a total
    // thread count spread over nodes).
    double seconds(double threads_per_node) const;

    const std::optional<ScalingFit>& fit() const { return fit_; }
    const std::vector<Point>& medians() const { return medians_; }

  private:
    double log_seconds_at_least_one(double threads_per_node) const;

    std::optional<ScalingFit> fit_;
    std::vector<Point> medians_;
    std::vector<double> log_n_;           // measured counts, ascending
    std::vector<double> log_correction_;  // log(median / curve) at each; log median if no fit
};

}  // namespace hugetune::model
