// The one-sided rank test that decides where alloc minus zero is the boot's work, not noise.
#include <doctest/doctest.h>

#include <vector>

#include "model/fit/rank_test.hpp"
#include "tests/unit/support/model_test_data.hpp"

using namespace hugetune::model;

TEST_CASE("exact tails of the rank test on small sets") {
    // 3 against 3, every value above: 1 ordering of C(6, 3) = 20.
    CHECK(rank_test_p_value(std::vector<double>{4, 5, 6}, std::vector<double>{1, 2, 3}) ==
          doctest::Approx(1.0 / 20));
    CHECK(stands_above(std::vector<double>{4, 5, 6}, std::vector<double>{1, 2, 3}));
    // One pair out of order: U = 8 of 9; P(U >= 8) = 2 / 20.
    CHECK(rank_test_p_value(std::vector<double>{2.5, 5, 6}, std::vector<double>{1, 2, 3}) ==
          doctest::Approx(2.0 / 20));
    CHECK_FALSE(stands_above(std::vector<double>{2.5, 5, 6}, std::vector<double>{1, 2, 3}));
    // 5 against 5, separated: 1 / C(10, 5) = 1 / 252.
    CHECK(rank_test_p_value(std::vector<double>{6, 7, 8, 9, 10},
                            std::vector<double>{1, 2, 3, 4, 5}) == doctest::Approx(1.0 / 252));
    // Two against two can never reach 5% (1 / 6 at best), and one against one says nothing.
    CHECK_FALSE(stands_above(std::vector<double>{3, 4}, std::vector<double>{1, 2}));
    CHECK(rank_test_p_value(std::vector<double>{2}, std::vector<double>{1}) ==
          doctest::Approx(0.5));
    // The other direction is not "above", and an empty set proves nothing.
    CHECK(rank_test_p_value(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}) ==
          doctest::Approx(1.0));
    CHECK(rank_test_p_value({}, std::vector<double>{1}) == 1.0);
}

TEST_CASE("ties count a half and make the test no bolder") {
    // All equal: U = 4.5 of 9, rounded up to 5: P(U >= 5) = 1/2 by symmetry.
    CHECK(rank_test_p_value(std::vector<double>{1, 1, 1}, std::vector<double>{1, 1, 1}) ==
          doctest::Approx(0.5));
    CHECK_FALSE(stands_above(std::vector<double>{2, 2, 3}, std::vector<double>{1, 2, 2}));
}

TEST_CASE("large sets: the normal approximation agrees with the exact tail near the limit") {
    testdata::Noise noise(7);
    std::vector<double> a, b;
    for (int i = 0; i < 20; ++i) {
        a.push_back(1.3 + 0.5 * noise.normal());
        b.push_back(1.0 + 0.5 * noise.normal());
    }
    const double exact = rank_test_p_value(a, b);
    a.push_back(1.3);  // 21 values: past the exact limit; one value moves p only a little
    b.push_back(1.0);
    const double approx = rank_test_p_value(a, b);
    CHECK(approx == doctest::Approx(exact).epsilon(0.35));
    // Shifted by two standard deviations, 200 against 200 is far beyond chance; unshifted not.
    std::vector<double> high, low, same;
    for (int i = 0; i < 200; ++i) {
        high.push_back(2.0 + noise.normal());
        low.push_back(noise.normal());
        same.push_back(noise.normal());
    }
    CHECK(rank_test_p_value(high, low) < 1e-6);
    CHECK_FALSE(stands_above(same, low));
}
