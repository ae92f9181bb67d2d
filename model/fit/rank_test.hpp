// Whether one set of measurements lies above another beyond chance: the one-sided Mann-Whitney
// rank test, which assumes nothing about the shape of the noise (a virtual machine's timings
// have long tails) and needs only a few repetitions.
#pragma once

#include <span>

namespace hugetune::model {

// Significance level of stands_above: with 3 repetitions against 3 the test can reach it only
// when every value of one set lies above every value of the other (probability 1/20).
inline constexpr double kRankTestLevel = 0.05;

// P(U >= U observed) when `higher` and `lower` come from one distribution, where U counts the
// pairs (h, l) with h > l (ties count a half): exact for small sets, by the normal approximation
// with continuity correction past 20 values in either set. 1 when either set is empty.
double rank_test_p_value(std::span<const double> higher, std::span<const double> lower);

// `higher` lies above `lower` at kRankTestLevel.
bool stands_above(std::span<const double> higher, std::span<const double> lower);

}  // namespace hugetune::model
