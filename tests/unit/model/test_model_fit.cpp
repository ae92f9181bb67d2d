// Curve fitting: parameters from known truth, model choice, statuses, resampling.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "model/cost_curve.hpp"
#include "model/fit/model_selection.hpp"
#include "model/fit/resampling.hpp"
#include "model/fit/scaling_fit.hpp"
#include "tests/unit/support/model_test_data.hpp"

using namespace hugetune::model;
using testdata::kSweepCounts;
using testdata::usl_points;

namespace {

double relative_error(double got, double want) {
    return std::abs(got - want) / std::abs(want);
}

// A sweep doubles the thread count per step, so "within one step" means within a factor 2.
bool within_one_sweep_step(double got, double want) {
    return std::abs(std::log2(got / want)) <= 1.0;
}

struct Truth {
    double sigma, kappa;
};
const Truth kTruths[] = {{0.05, 0.002}, {0.02, 0.0005}, {0.1, 0.01}, {0.3, 0.001}};

}  // namespace

TEST_CASE("usl fit on noise-free data returns sigma and kappa to at least 10 digits") {
    // Measured here: relative errors around 1e-15, i.e. all of double precision; 1e-10 leaves
    // room for other compilers and libms while still catching a solver that stops early.
    for (const auto& t : kTruths) {
        CAPTURE(t.sigma);
        CAPTURE(t.kappa);
        const auto fit = fit_usl(usl_points(kSweepCounts, t.sigma, t.kappa));
        REQUIRE(fit.status == FitStatus::converged);
        CHECK(relative_error(fit.sigma, t.sigma) < 1e-10);
        CHECK(relative_error(fit.kappa, t.kappa) < 1e-10);
        CHECK(relative_error(fit.lambda, 1.0 / 100) < 1e-10);
        CHECK(fit.r2 > 1 - 1e-12);
        REQUIRE(fit.n_star());
        CHECK(relative_error(*fit.n_star(), std::sqrt((1 - t.sigma) / t.kappa)) < 1e-9);
    }
}

TEST_CASE("usl fit with 5% noise lands N* within one sweep step of the truth") {
    for (const auto& t : kTruths) {
        const double truth = std::sqrt((1 - t.sigma) / t.kappa);
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            CAPTURE(t.sigma);
            CAPTURE(t.kappa);
            CAPTURE(seed);
            const auto points = usl_points(kSweepCounts, t.sigma, t.kappa, 5, 0.05, seed);
            const auto fit = fit_usl(points);
            REQUIRE(fit.ok());
            REQUIRE(fit.n_star());
            CHECK(within_one_sweep_step(*fit.n_star(), truth));
            // The same data pick the USL: the retrograde part is far above the noise.
            CHECK(fit_and_select(points).chose_usl);
        }
    }
}

TEST_CASE("noise-free N* is within one step even from one sample per count") {
    const auto fit = fit_usl(usl_points({1, 2, 4, 8, 16, 32}, 0.05, 0.002));
    REQUIRE(fit.n_star());
    CHECK(within_one_sweep_step(*fit.n_star(), std::sqrt(0.95 / 0.002)));
}

TEST_CASE("amdahl data: sigma comes back, AICc prefers amdahl over the extra kappa") {
    const auto points = usl_points(kSweepCounts, 0.1, 0.0, 5, 0.05, 7);
    const auto selection = fit_and_select(points);
    REQUIRE(selection.any_converged);
    CHECK_FALSE(selection.chose_usl);
    CHECK(selection.chosen().model == CurveModel::amdahl);
    CHECK(selection.chosen().kappa == 0);
    CHECK(std::abs(selection.chosen().sigma - 0.1) < 0.02);
    CHECK(selection.reason.find("AICc") != std::string::npos);
    // The USL never fits worse than its special case.
    CHECK(selection.usl.rss <= selection.amdahl.rss * (1 + 1e-9));
}

TEST_CASE("sigma and kappa stay non-negative on data that scale better than linearly") {
    // Times that fall faster than 1/N would want sigma < 0.
    std::vector<Point> points = {{1, 100}, {2, 45}, {4, 20}, {8, 9}, {16, 4}};
    for (const auto& fit : {fit_usl(points), fit_amdahl(points)}) {
        CHECK(fit.sigma >= 0);
        CHECK(fit.kappa >= 0);
        CHECK(fit.sigma < 1e-4);
    }
}

TEST_CASE("a fit that runs out of evaluations says so instead of returning numbers silently") {
    const auto points = usl_points(kSweepCounts, 0.05, 0.002, 3, 0.05, 3);
    const auto fit = fit_usl(points, FitOptions{.max_evaluations = 2});
    CHECK(fit.status == FitStatus::not_converged);
    CHECK(fit.message.find("did not converge") != std::string::npos);
    const auto selection = select_model(fit, fit_amdahl(points, FitOptions{.max_evaluations = 2}));
    CHECK_FALSE(selection.any_converged);
    CHECK(selection.reason.find("neither fit converged") != std::string::npos);
}

TEST_CASE("too few or invalid points give invalid_input with a reason") {
    CHECK(fit_usl(std::vector<Point>{{1, 10}, {2, 6}, {2, 6.1}}).status ==
          FitStatus::invalid_input);
    CHECK(fit_amdahl(std::vector<Point>{{1, 10}, {2, -6}}).status == FitStatus::invalid_input);
    const auto fit = fit_usl(std::vector<Point>{{1, 10}, {2, 6}});
    CHECK(fit.message.find("at least 3 distinct") != std::string::npos);
}

TEST_CASE("AICc is absent when there are too few points for its correction") {
    const std::vector<Point> five = {{2, 44}, {4, 22}, {8, 16}, {16, 19}, {32, 20}};
    const auto selection = fit_and_select(five);
    CHECK_FALSE(selection.usl.aicc);  // K = 4 needs n >= 6
    CHECK(selection.amdahl.aicc);
    CHECK_FALSE(selection.chose_usl);
    CHECK(selection.reason.find("needs at least 6") != std::string::npos);
    // The USL itself still fits and peaks in the measured range.
    REQUIRE(selection.usl.ok());
    REQUIRE(selection.usl.n_star());
    CHECK(*selection.usl.n_star() > 8);
    CHECK(*selection.usl.n_star() < 16);
}

TEST_CASE("residuals are log(measured / fitted), one per point") {
    const auto points = usl_points(kSweepCounts, 0.05, 0.002, 2, 0.05, 11);
    const auto fit = fit_usl(points);
    REQUIRE(fit.residuals.size() == points.size());
    for (std::size_t i = 0; i < points.size(); ++i)
        CHECK(fit.residuals[i] ==
              doctest::Approx(std::log(points[i].seconds / fit.seconds(points[i].threads_per_node)))
                  .epsilon(1e-9));
}

TEST_CASE("the resampler's engine is std::mt19937_64 output for output") {
    for (const std::uint64_t seed : {0ULL, 1ULL, 42ULL, 5489ULL, ~0ULL}) {
        std::mt19937_64 reference(seed);
        Mt19937_64 ours(seed);
        bool same = true;
        for (int i = 0; i < 5000; ++i)  // across 16 regenerations of the state
            same = same && ours() == reference();
        CHECK(same);
    }
}

TEST_CASE("resampling is deterministic for a seed and keeps samples per count") {
    const auto points = usl_points(kSweepCounts, 0.05, 0.002, 5, 0.05, 5);
    Resampler a(42), b(42), c(43);
    const auto ra = resample_repetitions(points, a);
    const auto rb = resample_repetitions(points, b);
    const auto rc = resample_repetitions(points, c);
    REQUIRE(ra.size() == points.size());
    bool differs = false;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        CHECK(ra[i].seconds == rb[i].seconds);
        differs = differs || ra[i].seconds != rc[i].seconds;
        // Every resampled value is one of the samples measured at its own count.
        bool found = false;
        for (const auto& p : points)
            found = found ||
                    (p.threads_per_node == ra[i].threads_per_node && p.seconds == ra[i].seconds);
        CHECK(found);
    }
    CHECK(differs);
    CHECK(has_repetitions(points));
    CHECK_FALSE(has_repetitions(usl_points(kSweepCounts, 0.05, 0.002)));
}

TEST_CASE("the cost curve equals the measured median at measured counts") {
    const std::vector<Point> points = {{2, 44}, {4, 22}, {8, 16}, {16, 19}, {32, 20}};
    const CostCurve curve(points, fit_amdahl(points));
    for (const auto& p : points)
        CHECK(curve.seconds(p.threads_per_node) == doctest::Approx(p.seconds));
    // Between measured counts it stays between their values here (a smooth in-between).
    CHECK(curve.seconds(6) < 22);
    CHECK(curve.seconds(6) > 16);
    // Fewer threads than nodes: each thread covers more nodes' pages in turn.
    CHECK(curve.seconds(0.5) == doctest::Approx(2 * curve.seconds(1)));
    const CostCurve measured_only(points, std::nullopt);
    CHECK(measured_only.seconds(8) == doctest::Approx(16));
    CHECK(measured_only.seconds(1) == doctest::Approx(88));  // 2 threads' per-thread rate
    CHECK(measured_only.seconds(64) == doctest::Approx(20));
}
