// Scaling curves fitted to measured times: the Universal Scalability Law (USL) and Amdahl's law
// (the USL with kappa = 0), fitted by Levenberg-Marquardt. Pure functions of their arguments.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/enum_names.hpp"

namespace hugetune::model {

// One measurement: `threads_per_node` threads took `seconds` to do the fixed amount of work of
// its series (several repetitions per thread count are separate points).
struct Point {
    double threads_per_node = 0;
    double seconds = 0;
    // How many repetitions of this value the point stands for: 1 for a measurement, more for a
    // block of a long series in a bootstrap resample (resampling.hpp).
    double weight = 1;
};

// All the least-squares fit in log space needs from the repetitions at one thread count. The
// sum of squares over every point splits into the spread within each count plus each count's
// weighted distance from the curve, so a fit of the summaries has the same optimum and the
// same residual sum of squares as a fit of every point, at a cost that does not grow with them.
struct CountSummary {
    double threads_per_node = 0;
    double weight = 0;            // repetitions: the sum of the points' weights
    double mean_log_seconds = 0;  // weighted mean of log(seconds)
    double log_sum_squares = 0;   // weighted squared deviations of log(seconds) from that mean
};

// One summary per distinct thread count, ascending.
std::vector<CountSummary> summarize_counts(std::span<const Point> points);

enum class FitStatus {
    converged,      // the solver met its tolerances
    not_converged,  // it ran out of function evaluations; the parameters are not trustworthy
    invalid_input,  // too few distinct thread counts, or a non-positive / non-finite value
};
inline constexpr auto kFitStatusNames =
    enum_names<FitStatus>({{FitStatus::converged, "converged"},
                           {FitStatus::not_converged, "not_converged"},
                           {FitStatus::invalid_input, "invalid_input"}});

std::string to_string(FitStatus status);

// Which curve: the USL, or Amdahl's law (the USL with kappa = 0).
enum class CurveModel { usl, amdahl };
inline constexpr auto kCurveModelNames =
    enum_names<CurveModel>({{CurveModel::usl, "usl"}, {CurveModel::amdahl, "amdahl"}});

// "usl" or "amdahl", as the report names the curve.
std::string to_string(CurveModel model);

// The most points whose residuals a fit keeps: a fleet's pooled series past about 3,000 hosts
// has more, and a SKU of 100,000 hosts would hold (and write) hundreds of MB of them for no
// reader: the fit's own judgement needs only rss and how many points there were.
inline constexpr std::size_t kMaxKeptResiduals = 100'000;

// X(N) = lambda * N / (1 + sigma * (N - 1) + kappa * N * (N - 1)): throughput in units of the
// series' work per second (pages per second for a sweep, "one table's job" for a boot table).
struct ScalingFit {
    CurveModel model = CurveModel::usl;
    double lambda = 0;  // throughput of one thread
    double sigma = 0;   // contention (serial fraction), >= 0
    double kappa = 0;   // coherency cost, >= 0; 0 for Amdahl
    FitStatus status = FitStatus::invalid_input;
    std::string message;  // the solver's termination reason, or why no fit was made

    // Quality, in the space the fit was made in: natural log of seconds (see scaling_fit.cpp).
    double rss = 0;              // residual sum of squares, every repetition counted
    double r2 = 0;               // 1 - rss / total sum of squares of log seconds
    std::optional<double> aicc;  // small-sample AIC over the repetitions; absent when too few
    // log(measured) - log(fitted), one per point, input order; empty past kMaxKeptResiduals
    // points, where rss and r2 stand for them.
    std::vector<double> residuals;
    std::size_t fitted_points = 0;  // the points the quality is over, weights not counted
    int parameters = 0;             // curve parameters fitted (3 for USL, 2 for Amdahl)
    int evaluations = 0;            // residual evaluations the solver used

    bool ok() const { return status == FitStatus::converged; }
    // Seconds for the series' work at `threads_per_node` (> 0) threads: 1 / X(N) * N-scaled work.
    double seconds(double threads_per_node) const;
    // X(N) itself, the series' work per second at `threads_per_node` (> 0) threads.
    double throughput(double threads_per_node) const;
    // Throughput peak of a retrograde USL: sqrt((1 - sigma) / kappa); absent when kappa = 0
    // (throughput keeps rising) or sigma >= 1 (one thread is already the best).
    std::optional<double> n_star() const;
};

struct FitOptions {
    int max_evaluations = 400;  // residual evaluations per solver run (Eigen's default)
};

// Both fit every point (repetitions included, each as often as its weight says) through the
// per-count summaries, and return a summary of the fit; they never throw.
// `start`, when given and usable, replaces the built-in starting points (bootstrap warm start).
ScalingFit fit_usl(std::span<const Point> points, const FitOptions& options = {},
                   const ScalingFit* start = nullptr);
ScalingFit fit_amdahl(std::span<const Point> points, const FitOptions& options = {},
                      const ScalingFit* start = nullptr);

// Distinct thread counts among the points.
std::size_t distinct_thread_counts(std::span<const Point> points);

}  // namespace hugetune::model
