#include "model/fit/scaling_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unsupported/Eigen/LevenbergMarquardt>

namespace hugetune::model {
namespace {

// The fit is made on log(seconds): timing noise is multiplicative (a 5% jitter is 5% at every
// thread count), so equal weights in log space give every thread count the same say, and the
// residual is the same whether one thinks in times or in throughputs (log X = -log T + const).
//
// Parameters seen by the solver: c = log(1 / lambda), s and k with sigma = s^2, kappa = k^2.
// Squaring keeps sigma and kappa >= 0 without a constrained solver, and keeps the USL
// denominator >= 1 at every measured N >= 1, so the log is always defined. The price: at a
// boundary optimum (sigma or kappa = 0) the gradient in s or k vanishes and the solver creeps
// toward 0 instead of stepping onto it; the remaining value is far below anything that moves a
// recommendation.
struct LogUslResiduals : Eigen::DenseFunctor<double> {
    std::span<const Point> points;
    bool with_kappa;

    LogUslResiduals(std::span<const Point> p, bool kappa)
        : DenseFunctor(kappa ? 3 : 2, static_cast<int>(p.size())), points(p), with_kappa(kappa) {}

    int operator()(const InputType& x, ValueType& r) const {
        const double s2 = x[1] * x[1];
        const double k2 = with_kappa ? x[2] * x[2] : 0.0;
        for (std::size_t i = 0; i < points.size(); ++i) {
            const double n = points[i].threads_per_node;
            const double d = 1 + s2 * (n - 1) + k2 * n * (n - 1);
            r[static_cast<Eigen::Index>(i)] =
                std::log(points[i].seconds) - (x[0] - std::log(n) + std::log(d));
        }
        return 0;
    }

    int df(const InputType& x, JacobianType& j) const {
        const double s2 = x[1] * x[1];
        const double k2 = with_kappa ? x[2] * x[2] : 0.0;
        for (std::size_t i = 0; i < points.size(); ++i) {
            const auto row = static_cast<Eigen::Index>(i);
            const double n = points[i].threads_per_node;
            const double d = 1 + s2 * (n - 1) + k2 * n * (n - 1);
            j(row, 0) = -1;
            j(row, 1) = -2 * x[1] * (n - 1) / d;
            if (with_kappa)
                j(row, 2) = -2 * x[2] * n * (n - 1) / d;
        }
        return 0;
    }
};

double log_denominator(double n, double sigma, double kappa) {
    return std::log(1 + sigma * (n - 1) + kappa * n * (n - 1));
}

// The c that best fits given sigma and kappa: c enters the residuals linearly.
double best_offset(std::span<const Point> points, double sigma, double kappa) {
    double sum = 0;
    for (const auto& p : points)
        sum += std::log(p.seconds) + std::log(p.threads_per_node) -
               log_denominator(p.threads_per_node, sigma, kappa);
    return sum / static_cast<double>(points.size());
}

std::string termination_text(Eigen::LevenbergMarquardtSpace::Status s) {
    using namespace Eigen::LevenbergMarquardtSpace;
    switch (s) {
        case RelativeReductionTooSmall:
            return "converged: relative reduction below tolerance";
        case RelativeErrorTooSmall:
            return "converged: relative parameter change below tolerance";
        case RelativeErrorAndReductionTooSmall:
            return "converged: reduction and step below tolerance";
        case CosinusTooSmall:
            return "converged: residuals orthogonal to the Jacobian";
        case FtolTooSmall:
            return "converged: no further reduction possible in double precision";
        case XtolTooSmall:
            return "converged: no further improvement possible in double precision";
        case GtolTooSmall:
            return "converged: gradient at machine precision";
        case TooManyFunctionEvaluation:
            return "did not converge: too many function evaluations";
        case ImproperInputParameters:
            return "solver refused its input";
        case UserAsked:
            return "stopped by the residual function";
        default:
            return "solver ended in an unexpected state";
    }
}

bool converged(Eigen::LevenbergMarquardtSpace::Status s) {
    using namespace Eigen::LevenbergMarquardtSpace;
    return s == RelativeReductionTooSmall || s == RelativeErrorTooSmall ||
           s == RelativeErrorAndReductionTooSmall || s == CosinusTooSmall || s == FtolTooSmall ||
           s == XtolTooSmall || s == GtolTooSmall;
}

std::optional<std::string> input_problem(std::span<const Point> points, int parameters) {
    for (const auto& p : points) {
        if (!std::isfinite(p.threads_per_node) || p.threads_per_node < 1)
            return "thread counts must be finite and at least 1";
        if (!std::isfinite(p.seconds) || p.seconds <= 0)
            return "times must be finite and positive";
    }
    if (distinct_thread_counts(points) < static_cast<std::size_t>(parameters))
        return "needs at least " + std::to_string(parameters) + " distinct thread counts, got " +
               std::to_string(distinct_thread_counts(points));
    return std::nullopt;
}

void fill_quality(ScalingFit& fit, std::span<const Point> points) {
    const double c = -std::log(fit.lambda);
    double mean_y = 0;
    for (const auto& p : points)
        mean_y += std::log(p.seconds);
    mean_y /= static_cast<double>(points.size());
    double rss = 0, tss = 0;
    fit.residuals.clear();
    for (const auto& p : points) {
        const double y = std::log(p.seconds);
        const double r = y - (c - std::log(p.threads_per_node) +
                              log_denominator(p.threads_per_node, fit.sigma, fit.kappa));
        fit.residuals.push_back(r);
        rss += r * r;
        tss += (y - mean_y) * (y - mean_y);
    }
    fit.rss = rss;
    // Identical times everywhere leave nothing to explain: call a perfect fit of them 1.
    fit.r2 = tss > 0 ? 1 - rss / tss : (rss < 1e-24 ? 1.0 : 0.0);

    // AICc with K = curve parameters + 1 (the noise variance is estimated too), the usual
    // least-squares form (Burnham & Anderson). It needs n > K + 1; with fewer points the
    // small-sample correction is undefined and we say so instead of inventing a value.
    const double n = static_cast<double>(points.size());
    const double k = fit.parameters + 1;
    if (n - k - 1 > 0) {
        const double rss_floor = std::max(rss, n * 1e-300);  // a perfect fit must stay finite
        fit.aicc = n * std::log(rss_floor / n) + 2 * k + 2 * k * (k + 1) / (n - k - 1);
    } else {
        fit.aicc.reset();
    }
}

ScalingFit fit_curve(std::span<const Point> points, bool with_kappa, const FitOptions& options,
                     const ScalingFit* start) {
    ScalingFit best;
    best.model = with_kappa ? "usl" : "amdahl";
    best.parameters = with_kappa ? 3 : 2;
    if (auto problem = input_problem(points, best.parameters)) {
        best.message = *problem;
        return best;
    }

    // sigma and kappa interact (a curve can bend through either), so one starting point can
    // land in a poor local minimum; a few starts spread over plausible values are cheap.
    std::vector<std::pair<double, double>> starts;
    if (start != nullptr && start->lambda > 0 && std::isfinite(start->sigma) &&
        std::isfinite(start->kappa))
        starts.emplace_back(std::max(start->sigma, 1e-6), std::max(start->kappa, 1e-8));
    else
        for (double sigma0 : {0.02, 0.2, 0.7})
            for (double kappa0 : {1e-4, 1e-3, 1e-2, 1e-1}) {
                starts.emplace_back(sigma0, kappa0);
                if (!with_kappa)
                    break;
            }

    double best_rss = std::numeric_limits<double>::infinity();
    bool best_converged = false;
    int evaluations = 0;
    for (const auto& [sigma0, kappa0] : starts) {
        LogUslResiduals f(points, with_kappa);
        Eigen::VectorXd x(f.inputs());
        x[0] = best_offset(points, sigma0, with_kappa ? kappa0 : 0);
        x[1] = std::sqrt(sigma0);
        if (with_kappa)
            x[2] = std::sqrt(kappa0);
        Eigen::LevenbergMarquardt<LogUslResiduals> lm(f);
        lm.setMaxfev(options.max_evaluations);
        const auto status = lm.minimize(x);
        evaluations += static_cast<int>(lm.nfev());
        if (!x.allFinite())
            continue;
        Eigen::VectorXd r(f.values());
        f(x, r);
        const double rss = r.squaredNorm();
        const bool ok = converged(status);
        // A converged run always beats one that stopped early; otherwise the lower RSS wins.
        if (!std::isfinite(rss) || (best_converged && !ok) ||
            (ok == best_converged && rss >= best_rss))
            continue;
        best_rss = rss;
        best_converged = ok;
        best.lambda = std::exp(-x[0]);
        best.sigma = x[1] * x[1];
        best.kappa = with_kappa ? x[2] * x[2] : 0.0;
        best.status = ok ? FitStatus::converged : FitStatus::not_converged;
        best.message = termination_text(status);
    }
    best.evaluations = evaluations;
    if (!std::isfinite(best_rss)) {
        best.status = FitStatus::not_converged;
        best.message = "the solver produced no finite parameters";
        return best;
    }
    fill_quality(best, points);
    return best;
}

}  // namespace

std::string to_string(FitStatus status) {
    switch (status) {
        case FitStatus::converged:
            return "converged";
        case FitStatus::not_converged:
            return "not_converged";
        case FitStatus::invalid_input:
            return "invalid_input";
    }
    return "unknown";
}

double ScalingFit::seconds(double threads_per_node) const {
    const double n = threads_per_node;
    return (1 + sigma * (n - 1) + kappa * n * (n - 1)) / (lambda * n);
}

std::optional<double> ScalingFit::n_star() const {
    if (kappa <= 0 || sigma >= 1)
        return std::nullopt;
    return std::sqrt((1 - sigma) / kappa);
}

std::size_t distinct_thread_counts(std::span<const Point> points) {
    std::set<double> counts;
    for (const auto& p : points)
        counts.insert(p.threads_per_node);
    return counts.size();
}

ScalingFit fit_usl(std::span<const Point> points, const FitOptions& options,
                   const ScalingFit* start) {
    return fit_curve(points, true, options, start);
}

ScalingFit fit_amdahl(std::span<const Point> points, const FitOptions& options,
                      const ScalingFit* start) {
    return fit_curve(points, false, options, start);
}

}  // namespace hugetune::model
