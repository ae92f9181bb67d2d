// The values the kernel parameter may take, their predicted boot seconds, and the decision
// among them.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "model/cost_curve.hpp"
#include "model/recommend.hpp"
#include "model/recommend/machine.hpp"

namespace hugetune::model::recommend {

// One value the kernel parameter may take: a per-node count times the nodes, or the default.
struct Candidate {
    double threads_per_node = 1;
    int total = 1;
};

// Predicted boot seconds at every candidate value, through one curve.
struct PoolPredictor {
    Evaluator evaluator;
    std::vector<Candidate> candidates;  // ascending by total
    std::size_t default_index = 0;      // the kernel default's

    std::vector<double> predict(const CostCurve& curve) const;
};

// Every per-node count up to the limit (in a fallback the measured ones) and the kernel
// default, which is a total that may act as a fraction of a thread per node.
PoolPredictor candidates(bool fallback, std::span<const Point> series, const ThreadLimits& limits,
                         const Evaluator& evaluator);

// The decision on one set of predictions. The default stays when it is within the tolerance of
// the best (changing a boot parameter for less is not worth it, and the fewest threads within
// the tolerance could otherwise be slower than the default) or when the whole allocation at the
// default is short; otherwise the fewest threads within the tolerance of the best, which are
// then faster than the default.
struct Choice {
    Decision decision = Decision::keep_default;
    std::size_t pick = 0;  // indices into the predictions
    std::size_t best = 0;
};

Choice decide(const std::vector<double>& predicted, std::size_t default_index,
              const RecommendOptions& options);

// The decision on the fitted curve, with every candidate's prediction (no intervals yet).
struct Pick {
    Choice choice;
    std::vector<Prediction> predictions;
};

Pick pick_value(const CostCurve& curve, const PoolPredictor& predictor,
                const RecommendOptions& options);

// The decision's three predictions, read once the bootstrap has given them their intervals.
struct Outcome {
    Decision decision = Decision::keep_default;
    Prediction chosen, best, at_default;
    // The default is a total; spread over the nodes it acts as default / nodes threads per node,
    // often a fraction (36 over 4 nodes = 9; 1 over 2 nodes = 0.5). The curve is continuous in
    // N, so it is read there directly; below one per node it scales as T(1) / N (CostCurve).
    double default_threads_per_node = 1;
    double saving_seconds = 0;  // 0 when keeping the default
};

Outcome settle(const Choice& choice, const std::vector<Prediction>& predictions,
               std::size_t default_index, int nodes);

// The fitted series' medians as boot seconds at their total, for the chart.
std::vector<Prediction> measured_boot_seconds(std::span<const Point> series,
                                              const Evaluator& evaluator);

}  // namespace hugetune::model::recommend
