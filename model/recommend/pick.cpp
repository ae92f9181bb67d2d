#include "model/recommend/pick.hpp"

#include <algorithm>
#include <cmath>

#include "model/fit/resampling.hpp"

namespace hugetune::model::recommend {

std::vector<double> PoolPredictor::predict(const CostCurve& curve) const {
    std::vector<double> seconds;
    seconds.reserve(candidates.size());
    for (const auto& c : candidates)
        seconds.push_back(evaluator.seconds(curve, c.total));
    return seconds;
}

namespace {

std::vector<int> per_node_counts(bool fallback, std::span<const Point> series,
                                 int max_threads_per_node) {
    std::vector<int> per_node;
    if (!fallback) {
        for (int n = 1; n <= max_threads_per_node; ++n)
            per_node.push_back(n);
        return per_node;
    }
    for (const auto& md : medians_per_count(series))
        if (md.threads_per_node <= max_threads_per_node)
            per_node.push_back(static_cast<int>(md.threads_per_node));
    if (per_node.empty())
        per_node.push_back(max_threads_per_node);
    return per_node;
}

}  // namespace

PoolPredictor candidates(bool fallback, std::span<const Point> series, const ThreadLimits& limits,
                         const Evaluator& ev) {
    const int default_total = std::min(limits.default_threads, limits.cpu_cap);
    PoolPredictor p{ev, {}, 0};
    for (int n : per_node_counts(fallback, series, limits.max_threads_per_node))
        p.candidates.push_back({static_cast<double>(n), ev.total(n)});
    auto& out = p.candidates;
    const auto at_default = std::find_if(
        out.begin(), out.end(), [&](const Candidate& c) { return c.total == default_total; });
    if (at_default == out.end()) {
        const auto after = std::find_if(
            out.begin(), out.end(), [&](const Candidate& c) { return c.total > default_total; });
        out.insert(after, {static_cast<double>(default_total) / ev.nodes, default_total});
    }
    for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i].total == default_total) {
            p.default_index = i;
            break;
        }
    return p;
}

Choice decide(const std::vector<double>& predicted, std::size_t default_index,
              const RecommendOptions& o) {
    Choice c;
    c.best = static_cast<std::size_t>(std::min_element(predicted.begin(), predicted.end()) -
                                      predicted.begin());
    const double good_enough = predicted[c.best] * (1 + o.tolerance);
    if (predicted[default_index] <= good_enough ||
        predicted[default_index] < o.small_boot_seconds) {
        c.pick = default_index;
        return c;
    }
    c.decision = Decision::set;
    c.pick = fewest_within_tolerance(predicted, o.tolerance);
    return c;
}

Pick pick_value(const CostCurve& curve, const PoolPredictor& predictor, const RecommendOptions& o) {
    const auto predicted = predictor.predict(curve);
    Pick p{decide(predicted, predictor.default_index, o), {}};
    for (std::size_t i = 0; i < predictor.candidates.size(); ++i) {
        const Candidate& c = predictor.candidates[i];
        p.predictions.push_back({c.threads_per_node, c.total, predicted[i], {}, {}});
    }
    return p;
}

Outcome settle(const Choice& choice, const std::vector<Prediction>& predictions,
               std::size_t default_index, int nodes) {
    Outcome out{choice.decision,
                predictions[choice.pick],
                predictions[choice.best],
                predictions[default_index],
                0,
                0};
    out.default_threads_per_node = static_cast<double>(out.at_default.total_threads) / nodes;
    if (out.decision == Decision::set)
        out.saving_seconds = out.at_default.seconds - out.chosen.seconds;
    return out;
}

std::vector<Prediction> measured_boot_seconds(std::span<const Point> series, const Evaluator& ev) {
    std::vector<Prediction> out;
    for (const auto& md : medians_per_count(series)) {
        const double total = md.threads_per_node * ev.nodes;
        out.push_back({md.threads_per_node,
                       static_cast<int>(std::lround(total)),
                       md.seconds * ev.scale,
                       {},
                       {}});
    }
    return out;
}

}  // namespace hugetune::model::recommend
