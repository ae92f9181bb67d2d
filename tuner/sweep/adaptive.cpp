#include "tuner/sweep/adaptive.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "model/fit/noise_test.hpp"
#include "model/fit/rank_test.hpp"

namespace hugetune {
namespace {

std::vector<double> grown(const std::vector<double>& samples, double tolerance) {
    std::vector<double> out;
    out.reserve(samples.size());
    for (double s : samples)
        out.push_back(s * (1 + tolerance));
    return out;
}

// Apart or together by the rank test, or, with as few as two samples a side, by the tests on the
// noise pooled over every candidate (model/fit/noise_test.hpp); either way more samples would
// not change which of the two the decision takes. One sample has no spread of its own: a point
// weighed against another is not settled before each has two.
bool settled_against(const PointResult& point, const PointResult& best, double tolerance,
                     const std::optional<model::PooledNoise>& noise) {
    const auto& p = point.samples_seconds;
    const auto& b = best.samples_seconds;
    if (p.size() < 2 || b.size() < 2)
        return false;
    if (model::stands_above(p, grown(b, tolerance)) ||
        (model::stands_above(grown(b, tolerance), p) &&
         model::stands_above(grown(p, tolerance), b)))
        return true;
    return noise && (model::apart_beyond(p, b, tolerance, *noise) ||
                     model::together_within(p, b, tolerance, *noise));
}

// The indexes of the candidates of each phase, the HVO pass's apart. An oversubscribed count
// cannot be the decision's: the kernel value is capped at the CPUs (model/recommend.hpp
// cpu_cap), so such a point only shapes the curve and keeps the first round's sample.
std::map<std::pair<Phase, bool>, std::vector<std::size_t>> groups_of(
    std::span<const PointResult> points) {
    std::map<std::pair<Phase, bool>, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (!points[i].oversubscribed)
            groups[{points[i].phase, points[i].hvo_flipped}].push_back(i);
    return groups;
}

// The timing noise of the candidates, every phase's: a property of the machine, not of a point.
std::optional<model::PooledNoise> candidates_noise(std::span<const PointResult> points) {
    std::vector<std::vector<double>> samples;
    for (const auto& p : points)
        if (!p.oversubscribed)
            samples.push_back(p.samples_seconds);
    return model::pooled_log_noise(samples);
}

void add_open_of_group(std::span<const PointResult> points, const std::vector<std::size_t>& group,
                       double tolerance, const std::optional<model::PooledNoise>& noise,
                       std::vector<std::size_t>& open) {
    const std::size_t best =
        *std::min_element(group.begin(), group.end(), [&](std::size_t a, std::size_t b) {
            return points[a].median_seconds() < points[b].median_seconds();
        });
    bool any = false;
    for (std::size_t i : group)
        if (i != best && !settled_against(points[i], points[best], tolerance, noise)) {
            open.push_back(i);
            any = true;
        }
    if (any)
        open.push_back(best);
}

double mean(const std::vector<double>& samples) {
    return samples.empty() ? 0.0
                           : std::accumulate(samples.begin(), samples.end(), 0.0) /
                                 static_cast<double>(samples.size());
}

double timed_seconds(std::span<const PointResult> points) {
    double seconds = 0;
    for (const auto& p : points)
        seconds += std::accumulate(p.samples_seconds.begin(), p.samples_seconds.end(), 0.0);
    return seconds;
}

}  // namespace

std::vector<std::size_t> open_points(std::span<const PointResult> points, double tolerance) {
    std::vector<std::size_t> open;
    const auto noise = candidates_noise(points);
    for (const auto& [key, group] : groups_of(points))
        add_open_of_group(points, group, tolerance, noise, open);
    std::sort(open.begin(), open.end());
    return open;
}

AdaptiveStep next_adaptive_round(std::span<const PointResult> points, const SweepOptions& options) {
    const std::vector<std::size_t> open = open_points(points, options.tolerance);
    if (open.empty())
        return {{}, StopReason::settled};
    AdaptiveStep step;
    double next_seconds = 0;
    for (std::size_t i : open)
        if (static_cast<int>(points[i].samples_seconds.size()) < options.most_repetitions()) {
            step.next.push_back(i);
            next_seconds += mean(points[i].samples_seconds);
        }
    if (step.next.empty())
        return {{}, StopReason::maximum};
    if (options.budget_seconds && timed_seconds(points) + next_seconds > *options.budget_seconds)
        return {{}, StopReason::budget};
    return step;
}

}  // namespace hugetune
