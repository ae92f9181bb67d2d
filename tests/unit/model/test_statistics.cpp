// The one median every layer uses (model/statistics.hpp): the sweep's points, the boot sweep's
// boots, the fits' resamples, the fleet's hosts.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "model/statistics.hpp"

using hugetune::model::median;

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
