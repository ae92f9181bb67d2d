#include "model/fit/scaling_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
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
//
// The solver sees one residual per thread count, sqrt(weight) * (mean log seconds - curve), plus
// one constant: the square root of the spread within the counts. Their squares add up to the
// sum over every repetition (scaling_fit.hpp "CountSummary"), so the solver's relative
// tolerances judge the same objective as a residual per repetition would, at a cost per
// evaluation that depends on the thread counts alone.
struct LogUslResiduals : Eigen::DenseFunctor<double> {
    std::span<const CountSummary> counts;
    double within_root;  // sqrt of the summed spread within counts: no parameter moves it
    bool with_kappa;

    LogUslResiduals(std::span<const CountSummary> c, double within, bool kappa)
        : DenseFunctor(kappa ? 3 : 2, static_cast<int>(c.size()) + 1),
          counts(c),
          within_root(std::sqrt(within)),
          with_kappa(kappa) {}

    int operator()(const InputType& x, ValueType& r) const {
        const double s2 = x[1] * x[1];
        const double k2 = with_kappa ? x[2] * x[2] : 0.0;
        for (std::size_t i = 0; i < counts.size(); ++i) {
            const double n = counts[i].threads_per_node;
            const double d = 1 + s2 * (n - 1) + k2 * n * (n - 1);
            r[static_cast<Eigen::Index>(i)] =
                std::sqrt(counts[i].weight) *
                (counts[i].mean_log_seconds - (x[0] - std::log(n) + std::log(d)));
        }
        r[static_cast<Eigen::Index>(counts.size())] = within_root;
        return 0;
    }

    int df(const InputType& x, JacobianType& j) const {
        const double s2 = x[1] * x[1];
        const double k2 = with_kappa ? x[2] * x[2] : 0.0;
        for (std::size_t i = 0; i < counts.size(); ++i) {
            const auto row = static_cast<Eigen::Index>(i);
            const double n = counts[i].threads_per_node;
            const double d = 1 + s2 * (n - 1) + k2 * n * (n - 1);
            const double root_weight = std::sqrt(counts[i].weight);
            j(row, 0) = -root_weight;
            j(row, 1) = -root_weight * 2 * x[1] * (n - 1) / d;
            if (with_kappa)
                j(row, 2) = -root_weight * 2 * x[2] * n * (n - 1) / d;
        }
        j.row(static_cast<Eigen::Index>(counts.size())).setZero();
        return 0;
    }
};

double log_denominator(double n, double sigma, double kappa) {
    return std::log(1 + sigma * (n - 1) + kappa * n * (n - 1));
}

// The c that best fits given sigma and kappa: c enters the residuals linearly.
double best_offset(std::span<const CountSummary> counts, double sigma, double kappa) {
    double sum = 0, weight = 0;
    for (const auto& c : counts) {
        sum += c.weight * (c.mean_log_seconds + std::log(c.threads_per_node) -
                           log_denominator(c.threads_per_node, sigma, kappa));
        weight += c.weight;
    }
    return sum / weight;
}

std::vector<double> log_seconds_of(std::span<const Point> points) {
    std::vector<double> logs;
    logs.reserve(points.size());
    for (const auto& p : points)
        logs.push_back(std::log(p.seconds));
    return logs;
}

// `log_seconds` holds log(seconds) of each point. Two passes (mean, then squared deviations)
// keep the spread exact where it is tiny next to the level, as it is for repetitions of one
// measurement.
std::vector<CountSummary> summarize(std::span<const Point> points,
                                    std::span<const double> log_seconds) {
    std::map<double, CountSummary> by_count;
    for (std::size_t i = 0; i < points.size(); ++i) {
        auto& c = by_count[points[i].threads_per_node];
        c.threads_per_node = points[i].threads_per_node;
        c.weight += points[i].weight;
        c.mean_log_seconds += points[i].weight * log_seconds[i];
    }
    for (auto& [n, c] : by_count)
        c.mean_log_seconds /= c.weight;
    auto c = by_count.end();
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (c == by_count.end() || c->first != points[i].threads_per_node)
            c = by_count.find(points[i].threads_per_node);  // repetitions come grouped
        const double d = log_seconds[i] - c->second.mean_log_seconds;
        c->second.log_sum_squares += points[i].weight * d * d;
    }
    std::vector<CountSummary> out;
    out.reserve(by_count.size());
    for (const auto& [n, summary] : by_count)
        out.push_back(summary);
    return out;
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
        if (!std::isfinite(p.weight) || p.weight <= 0)
            return "weights must be finite and positive";
    }
    if (distinct_thread_counts(points) < static_cast<std::size_t>(parameters))
        return "needs at least " + std::to_string(parameters) + " distinct thread counts, got " +
               std::to_string(distinct_thread_counts(points));
    return std::nullopt;
}

double total_weight(std::span<const CountSummary> counts) {
    double weight = 0;
    for (const auto& c : counts)
        weight += c.weight;
    return weight;
}

void fill_quality(ScalingFit& fit, std::span<const Point> points,
                  std::span<const double> log_seconds, std::span<const CountSummary> counts) {
    const double c = -std::log(fit.lambda);
    const auto fitted_log = [&](double n) {
        return c - std::log(n) + log_denominator(n, fit.sigma, fit.kappa);
    };
    const double weight = total_weight(counts);
    double mean_y = 0;
    for (const auto& s : counts)
        mean_y += s.weight * s.mean_log_seconds;
    mean_y /= weight;
    // Both sums split into the spread within each count and each count's weighted distance.
    double rss = 0, tss = 0;
    for (const auto& s : counts) {
        const double r = s.mean_log_seconds - fitted_log(s.threads_per_node);
        const double from_mean = s.mean_log_seconds - mean_y;
        rss += s.log_sum_squares + s.weight * r * r;
        tss += s.log_sum_squares + s.weight * from_mean * from_mean;
    }
    fit.residuals.clear();
    fit.fitted_points = points.size();
    if (points.size() <= kMaxKeptResiduals) {
        fit.residuals.reserve(points.size());
        for (std::size_t i = 0; i < points.size(); ++i)
            fit.residuals.push_back(log_seconds[i] - fitted_log(points[i].threads_per_node));
    }
    fit.rss = rss;
    // Identical times everywhere leave nothing to explain: call a perfect fit of them 1.
    fit.r2 = tss > 0 ? 1 - rss / tss : (rss < 1e-24 ? 1.0 : 0.0);

    // AICc with K = curve parameters + 1 (the noise variance is estimated too), the usual
    // least-squares form (Burnham & Anderson). It needs n > K + 1; with fewer points the
    // small-sample correction is undefined and we say so instead of inventing a value.
    const double n = weight;
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
    best.model = with_kappa ? CurveModel::usl : CurveModel::amdahl;
    best.parameters = with_kappa ? 3 : 2;
    if (auto problem = input_problem(points, best.parameters)) {
        best.message = *problem;
        return best;
    }
    const auto log_seconds = log_seconds_of(points);
    const auto counts = summarize(points, log_seconds);
    double within = 0;
    for (const auto& c : counts)
        within += c.log_sum_squares;

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
        LogUslResiduals f(counts, within, with_kappa);
        Eigen::VectorXd x(f.inputs());
        x[0] = best_offset(counts, sigma0, with_kappa ? kappa0 : 0);
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
    fill_quality(best, points, log_seconds, counts);
    return best;
}

}  // namespace

std::string to_string(FitStatus status) {
    return std::string(name_of(kFitStatusNames, status));
}

std::string to_string(CurveModel model) {
    return std::string(name_of(kCurveModelNames, model));
}

double ScalingFit::seconds(double threads_per_node) const {
    const double n = threads_per_node;
    return (1 + sigma * (n - 1) + kappa * n * (n - 1)) / (lambda * n);
}

double ScalingFit::throughput(double threads_per_node) const {
    return 1 / seconds(threads_per_node);
}

std::optional<double> ScalingFit::n_star() const {
    if (kappa <= 0 || sigma >= 1)
        return std::nullopt;
    return std::sqrt((1 - sigma) / kappa);
}

std::vector<CountSummary> summarize_counts(std::span<const Point> points) {
    return summarize(points, log_seconds_of(points));
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
