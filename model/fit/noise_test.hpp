// Whether two points stand apart, or together, beyond a tolerance with as few as two samples a
// side: the noise of one sample is taken from every point of the sweep at once instead of from
// the two points alone, as a rank test must (model/fit/rank_test.hpp cannot reject at 5% with
// fewer than three samples a side). Used by the sweep's adaptive rule (tuner/sweep/adaptive.hpp)
// and by the fit where it asks whether alloc stands above zero (model/cost_basis.hpp), so that
// what settles a point is evidence the fit takes too; stated in docs/sweep-format.md "Sampling".
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace hugetune::model {

// The spread of one sample around its point's mean, in natural logarithms of seconds (a
// machine's timing noise is a share of the time, so one value serves slow and fast points),
// pooled over every point with at least two samples: the root of the summed squared deviations
// from each point's own mean over their degrees of freedom (samples less one a point). Absent
// when fewer than two degrees of freedom are pooled. A long tail of the noise raises it, so a
// slow outlier makes the tests below say less, not more.
struct PooledNoise {
    double log_sd = 0;
    int degrees_of_freedom = 0;
};
std::optional<PooledNoise> pooled_log_noise(std::span<const std::vector<double>> points);

// `higher` stands above `lower` grown by `tolerance` (a share): every sample of `higher` lies
// above every sample of `lower` times (1 + tolerance), so no single slow sample makes it so, and
// the gap of their mean logarithms beyond log(1 + tolerance) passes the one-sided 5% t test with
// the pooled noise. Needs two samples a side.
bool apart_beyond(std::span<const double> higher, std::span<const double> lower, double tolerance,
                  const PooledNoise& noise);

// `a` and `b` are within `tolerance` of each other either way: every sample of each lies below
// every sample of the other times (1 + tolerance), and the gap of their mean logarithms, widened
// by the one-sided 5% t margin with the pooled noise, stays inside log(1 + tolerance) (two
// one-sided tests). Needs two samples a side.
bool together_within(std::span<const double> a, std::span<const double> b, double tolerance,
                     const PooledNoise& noise);

// `higher` stands above `lower` at 5% by either test: the rank test (model/fit/rank_test.hpp),
// or, where `noise` is given, apart_beyond with no tolerance. From 3 samples a side every sample
// beyond every other already passes the rank test, so the second test adds only where a side
// has two samples (the adaptive rule's, docs/sweep-format.md "Sampling").
bool shown_above(std::span<const double> higher, std::span<const double> lower,
                 const std::optional<PooledNoise>& noise);

}  // namespace hugetune::model
