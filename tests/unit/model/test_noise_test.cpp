// The tests the adaptive rule settles two points by from two samples a side, the noise of one
// sample pooled over every candidate (model/fit/noise_test.hpp): their values on small sets, and
// on samples drawn from known noise how often they say "apart" or "together" when it is false
// (at most about their 5% level) and when it is true.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "model/fit/noise_test.hpp"

using namespace hugetune::model;

TEST_CASE("pooled_log_noise: each point's squared deviations over the pooled degrees of freedom") {
    const std::vector<std::vector<double>> points = {
        {std::exp(0.0), std::exp(0.2)}, {std::exp(1.0), std::exp(1.2)}, {5.0}};
    const auto noise = pooled_log_noise(points);
    REQUIRE(noise.has_value());
    // Each pair: deviations of 0.1 twice, 0.02 of squares; 0.04 over 2 degrees of freedom.
    CHECK(noise->degrees_of_freedom == 2);
    CHECK(noise->log_sd == doctest::Approx(std::sqrt(0.02)));
    // One point of two samples is one degree of freedom: too few to say anything.
    CHECK_FALSE(pooled_log_noise(std::vector<std::vector<double>>{{1.0, 1.1}, {2.0}}));
    // A sample that is no time is left out with its point.
    CHECK_FALSE(pooled_log_noise(std::vector<std::vector<double>>{{1.0, 1.1}, {0.0, 2.0}}));
}

TEST_CASE("apart_beyond and together_within on two samples a side") {
    const PooledNoise quiet{0.005, 6};
    // Twice as slow, every sample beyond: apart.
    CHECK(
        apart_beyond(std::vector<double>{2.0, 2.02}, std::vector<double>{1.0, 1.01}, 0.02, quiet));
    CHECK_FALSE(
        apart_beyond(std::vector<double>{1.0, 1.01}, std::vector<double>{2.0, 2.02}, 0.02, quiet));
    // One slow sample does not make a point slower: its other sample overlaps.
    CHECK_FALSE(
        apart_beyond(std::vector<double>{1.0, 1.5}, std::vector<double>{1.0, 1.01}, 0.02, quiet));
    // Every sample beyond the tolerance, but the gap within what the machine's noise allows.
    const PooledNoise noisy{0.165, 3};
    CHECK(
        apart_beyond(std::vector<double>{1.10, 1.11}, std::vector<double>{1.0, 1.01}, 0.02, quiet));
    CHECK_FALSE(
        apart_beyond(std::vector<double>{1.10, 1.11}, std::vector<double>{1.0, 1.01}, 0.02, noisy));
    // One sample has no spread: nothing is shown.
    CHECK_FALSE(
        apart_beyond(std::vector<double>{2.0}, std::vector<double>{1.0, 1.01}, 0.02, quiet));
    // Within a tenth of a percent on a quiet machine: together; 5% apart, or noisy: not.
    CHECK(together_within(std::vector<double>{1.000, 1.001}, std::vector<double>{1.002, 1.001},
                          0.02, PooledNoise{0.001, 6}));
    CHECK_FALSE(together_within(std::vector<double>{1.00, 1.001}, std::vector<double>{1.05, 1.051},
                                0.02, PooledNoise{0.001, 6}));
    CHECK_FALSE(together_within(std::vector<double>{1.000, 1.001},
                                std::vector<double>{1.002, 1.001}, 0.02, noisy));
}

namespace {

// Six points of two samples, each sample its point's time times a noise of log-sd `sd`, and with
// probability `outliers` a further 30% slower (a busy spell of the host): the first point
// `gap` (a share) slower than the second, the others as the second. How often `test` says yes
// for the first against the second, over `trials` sweeps. At a gap on the tolerance a test at
// 5% says yes in about 5% of sweeps; 4,000 sweeps measure that share to about 0.35 points, so
// the checks below allow 6%.
constexpr double kLevelWithTrialsError = 0.06;
template <typename Test>
double share_saying(Test test, double gap, double sd, double outliers, int trials) {
    std::mt19937_64 rng(20261207);
    std::normal_distribution<double> noise(0, sd);
    std::bernoulli_distribution slow(outliers);
    int yes = 0;
    for (int t = 0; t < trials; ++t) {
        std::vector<std::vector<double>> points(6);
        for (std::size_t i = 0; i < points.size(); ++i)
            for (int k = 0; k < 2; ++k)
                points[i].push_back((i == 0 ? 1 + gap : 1.0) * std::exp(noise(rng)) *
                                    (slow(rng) ? 1.3 : 1.0));
        const auto pooled = pooled_log_noise(points);
        REQUIRE(pooled.has_value());
        yes += test(points[0], points[1], *pooled) ? 1 : 0;
    }
    return static_cast<double>(yes) / trials;
}

}  // namespace

TEST_CASE("apart_beyond: rarely when the gap is at the tolerance, nearly always when far beyond") {
    auto apart = [](const auto& a, const auto& b, const PooledNoise& n) {
        return apart_beyond(a, b, 0.02, n);
    };
    // Slower by exactly the tolerance: "apart" would be wrong; at most its level, with or without
    // a long tail.
    CHECK(share_saying(apart, 0.02, 0.03, 0.0, 4000) <= kLevelWithTrialsError);
    CHECK(share_saying(apart, 0.02, 0.03, 0.1, 4000) <= kLevelWithTrialsError);
    CHECK(share_saying(apart, 0.0, 0.03, 0.1, 4000) <= kLevelWithTrialsError);
    // Twice as slow on a machine with 3% noise: told apart at two samples a side.
    CHECK(share_saying(apart, 1.0, 0.03, 0.0, 2000) >= 0.95);
}

TEST_CASE("together_within: rarely when the gap is at the tolerance, often when the same") {
    auto together = [](const auto& a, const auto& b, const PooledNoise& n) {
        return together_within(a, b, 0.02, n);
    };
    CHECK(share_saying(together, 0.02, 0.003, 0.0, 4000) <= kLevelWithTrialsError);
    CHECK(share_saying(together, 0.03, 0.003, 0.1, 4000) <= kLevelWithTrialsError);
    // The same time on a quiet machine (0.3% noise): together in most sweeps.
    CHECK(share_saying(together, 0.0, 0.003, 0.0, 2000) >= 0.5);
}
