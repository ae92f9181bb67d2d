// The one median every layer uses (model/statistics.hpp): the sweep's points, the boot sweep's
// boots, the fits' resamples, the fleet's hosts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "model/statistics.hpp"

using hugetune::model::median;
using hugetune::model::student_t_upper_5;

TEST_CASE("median of odd, even, single and empty lists") {
    CHECK(median({3, 1, 2}) == 2);
    CHECK(median({4, 1, 3, 2}) == 2.5);
    CHECK(median({7}) == 7);
    CHECK(median({}) == 0);
    CHECK(median({2, 2, 1, 2}) == 2);
}

TEST_CASE("median agrees with the middle of the sorted list, whatever the order") {
    std::mt19937 rng(20261201);
    std::uniform_real_distribution<double> value(0, 100);
    for (std::size_t size = 1; size <= 40; ++size) {
        std::vector<double> values(size);
        for (auto& v : values)
            v = value(rng);
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const double expected =
            size % 2 == 1 ? sorted[size / 2] : (sorted[size / 2 - 1] + sorted[size / 2]) / 2;
        CAPTURE(size);
        CHECK(median(values) == expected);
    }
}

namespace {

// P(T > t) for Student's t with `df` degrees of freedom, by Simpson's rule on its density from t
// to a point far in the tail, plus the tail beyond it by the density's power law.
double t_tail(double t, int df) {
    const double nu = df;
    const double scale = std::exp(std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2)) /
                         std::sqrt(nu * 3.14159265358979323846);
    auto density = [&](double x) { return scale * std::pow(1 + x * x / nu, -(nu + 1) / 2); };
    const double far = 2000;
    const int steps = 100000;
    const double h = (far - t) / steps;
    double sum = density(t) + density(far);
    for (int i = 1; i < steps; ++i)
        sum += density(t + i * h) * (i % 2 == 1 ? 4 : 2);
    // Beyond `far` the density is scale * nu^((nu+1)/2) * x^-(nu+1) to within a part in 10^5.
    const double beyond = scale * std::pow(nu, (nu + 1) / 2) * std::pow(far, -nu) / nu;
    return sum * h / 3 + beyond;
}

}  // namespace

TEST_CASE("student_t_upper_5: each tabled value leaves 5% above it, computed from the density") {
    // The closed forms at 1 and 2 degrees of freedom.
    CHECK(student_t_upper_5(1) ==
          doctest::Approx(std::tan(0.45 * 3.14159265358979323846)).epsilon(1e-3));
    CHECK(student_t_upper_5(2) == doctest::Approx(0.9 / std::sqrt(0.095)).epsilon(1e-3));
    for (int df = 1; df <= 30; ++df) {
        CAPTURE(df);
        CHECK(t_tail(student_t_upper_5(df), df) == doctest::Approx(0.05).epsilon(0.01));
        if (df > 1)
            CHECK(student_t_upper_5(df) < student_t_upper_5(df - 1));
    }
    // Past the table, the value at 30: a little above the normal's 1.645.
    CHECK(student_t_upper_5(1000) == student_t_upper_5(30));
    CHECK(0.5 * std::erfc(student_t_upper_5(1000) / std::sqrt(2.0)) < 0.05);
}
