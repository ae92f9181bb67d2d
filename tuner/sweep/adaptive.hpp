// The adaptive rule: after the first round, which points could still change the decision, and
// when to stop measuring. Pure: it reads the samples so far and nothing else, so the same
// samples give the same rounds (the unit tests run it through a fake machine).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "tuner/sweep/sweep.hpp"

namespace hugetune {

// The indexes of `points` whose samples could still change the decision. Within each phase (the
// HVO pass's points a group of their own), the point of the smallest median is the best, and
// every other point is weighed against it:
// - settled apart when its samples stand above the best's grown by `tolerance`: slower by more
//   than the decision's tolerance, it cannot be the count the decision takes;
// - settled together when each one's samples stand below the other's grown by `tolerance`: within
//   the tolerance of each other either way, the decision takes the fewer threads of the two
//   whichever is faster;
// - open otherwise, and then the best is open too.
// "Stand above" is either test at 5%: the rank test the fit already uses
// (model/fit/rank_test.hpp, from 3 samples a side), or, from 2 samples a side, every sample
// beyond every other and the gap beyond a t margin with the noise of one sample pooled over
// every candidate point of the sweep (model/fit/noise_test.hpp).
// A point with one sample has no spread of its own and is open while weighed against another.
// A point alone in its phase has nothing to be weighed against and is settled; so is a point
// whose count oversubscribes a node, which the decision cannot take (the kernel value is capped
// at the CPUs), so it is neither weighed nor the best: both keep the first round's sample.
std::vector<std::size_t> open_points(std::span<const PointResult> points, double tolerance);

// What the rule does after a round: measure `next` again (in an order the loop shuffles), or
// stop for `stopped`.
struct AdaptiveStep {
    std::vector<std::size_t> next;
    std::optional<StopReason> stopped;
};

// The next round of an adaptive sweep (options.adaptive): the open points that have fewer than
// options.most_repetitions() samples; settled when none is open, maximum when every open point
// has its most, budget when the timed seconds so far and the next round's (each point's mean so
// far) would pass options.budget_seconds.
AdaptiveStep next_adaptive_round(std::span<const PointResult> points, const SweepOptions& options);

}  // namespace hugetune
