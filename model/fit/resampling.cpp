#include "model/fit/resampling.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace hugetune::model {
namespace {

std::map<double, std::vector<double>> group_by_count(std::span<const Point> points) {
    std::map<double, std::vector<double>> groups;
    for (const auto& p : points)
        groups[p.threads_per_node].push_back(p.seconds);
    return groups;
}

}  // namespace

double median(std::vector<double> values) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

bool has_repetitions(std::span<const Point> points) {
    const auto groups = group_by_count(points);
    if (groups.empty())
        return false;
    return std::all_of(groups.begin(), groups.end(),
                       [](const auto& g) { return g.second.size() >= 2; });
}

std::vector<Point> resample_repetitions(std::span<const Point> points, Resampler& rng) {
    std::vector<Point> out;
    out.reserve(points.size());
    for (const auto& [n, seconds] : group_by_count(points))
        for (std::size_t i = 0; i < seconds.size(); ++i)
            out.push_back({n, seconds[rng.index(seconds.size())]});
    return out;
}

std::vector<Point> resample_residuals(std::span<const Point> points, const ScalingFit& fit,
                                      Resampler& rng) {
    const std::size_t n = fit.residuals.size();
    std::vector<double> pool(fit.residuals);
    double mean = 0;
    for (double r : pool)
        mean += r;
    mean /= static_cast<double>(n);
    const double dof = static_cast<double>(n) - fit.parameters;
    const double inflate = dof > 0 ? std::sqrt(static_cast<double>(n) / dof) : 1.0;
    for (double& r : pool)
        r = (r - mean) * inflate;
    std::vector<Point> out;
    out.reserve(points.size());
    for (const auto& p : points)
        out.push_back(
            {p.threads_per_node, fit.seconds(p.threads_per_node) * std::exp(pool[rng.index(n)])});
    return out;
}

std::vector<Point> medians_per_count(std::span<const Point> points) {
    std::vector<Point> out;
    for (const auto& [n, seconds] : group_by_count(points))
        out.push_back({n, median(seconds)});
    return out;
}

}  // namespace hugetune::model
