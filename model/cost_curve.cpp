#include "model/cost_curve.hpp"

#include <algorithm>
#include <cmath>

#include "model/fit/resampling.hpp"

namespace hugetune::model {

CostCurve::CostCurve(std::span<const Point> points, std::optional<ScalingFit> fit)
    : fit_(std::move(fit)), medians_(medians_per_count(points)) {
    for (const auto& m : medians_) {
        log_n_.push_back(std::log(m.threads_per_node));
        const double base = fit_ ? std::log(fit_->seconds(m.threads_per_node)) : 0.0;
        log_correction_.push_back(std::log(m.seconds) - base);
    }
}

// Where a thread count was measured, the measurement is the prediction: a few-parameter curve
// can miss a sharp knee (the published Skylake table bends harder at 8 threads per node than any
// USL curve does), and a recommendation must not contradict what was measured. Between measured
// counts the log correction is interpolated linearly in log N, and held at its end values beyond
// them, so the curve supplies the shape and the data the level. A curve that fits well is
// hardly changed. Without a curve the same interpolation runs over the log medians themselves.
double CostCurve::log_seconds_at_least_one(double n) const {
    const double x = std::log(n);
    double correction = 0;
    if (x <= log_n_.front()) {
        correction = log_correction_.front();
    } else if (x >= log_n_.back()) {
        correction = log_correction_.back();
    } else {
        const auto hi = static_cast<std::size_t>(std::upper_bound(log_n_.begin(), log_n_.end(), x) -
                                                 log_n_.begin());
        const std::size_t lo = hi - 1;
        const double t = (x - log_n_[lo]) / (log_n_[hi] - log_n_[lo]);
        correction = log_correction_[lo] + t * (log_correction_[hi] - log_correction_[lo]);
    }
    if (fit_)
        return std::log(fit_->seconds(n)) + correction;
    // No curve: below the smallest measured count assume that count's per-thread throughput.
    if (x < log_n_.front())
        return correction + log_n_.front() - x;
    return correction;
}

double CostCurve::seconds(double threads_per_node) const {
    // Fewer threads than nodes: each thread covers 1 / N nodes' share of the pool in turn.
    if (threads_per_node < 1)
        return std::exp(log_seconds_at_least_one(1.0)) / threads_per_node;
    return std::exp(log_seconds_at_least_one(threads_per_node));
}

}  // namespace hugetune::model
