#include "model/fit/noise_test.hpp"

#include <algorithm>
#include <cmath>

#include "model/fit/rank_test.hpp"
#include "model/statistics.hpp"

namespace hugetune::model {
namespace {

double mean_log(std::span<const double> samples) {
    double sum = 0;
    for (double s : samples)
        sum += std::log(s);
    return sum / static_cast<double>(samples.size());
}

// Every sample of `higher` above every sample of `lower` grown by the tolerance.
bool separated(std::span<const double> higher, std::span<const double> lower, double tolerance) {
    return *std::min_element(higher.begin(), higher.end()) >
           *std::max_element(lower.begin(), lower.end()) * (1 + tolerance);
}

// Every sample of each below every sample of the other grown by the tolerance.
bool within(std::span<const double> a, std::span<const double> b, double tolerance) {
    const auto [a_low, a_high] = std::minmax_element(a.begin(), a.end());
    const auto [b_low, b_high] = std::minmax_element(b.begin(), b.end());
    return *a_high < *b_low * (1 + tolerance) && *b_high < *a_low * (1 + tolerance);
}

// The one-sided 5% margin on the difference of two mean logarithms.
double margin(std::span<const double> a, std::span<const double> b, const PooledNoise& noise) {
    return student_t_upper_5(noise.degrees_of_freedom) * noise.log_sd *
           std::sqrt(1.0 / static_cast<double>(a.size()) + 1.0 / static_cast<double>(b.size()));
}

bool usable(std::span<const double> samples) {
    return samples.size() >= 2 && std::all_of(samples.begin(), samples.end(),
                                              [](double s) { return s > 0 && std::isfinite(s); });
}

}  // namespace

std::optional<PooledNoise> pooled_log_noise(std::span<const std::vector<double>> points) {
    double squares = 0;
    int degrees = 0;
    for (const auto& samples : points) {
        if (!usable(samples))
            continue;
        const double m = mean_log(samples);
        for (double s : samples)
            squares += (std::log(s) - m) * (std::log(s) - m);
        degrees += static_cast<int>(samples.size()) - 1;
    }
    if (degrees < 2)
        return std::nullopt;
    return PooledNoise{std::sqrt(squares / degrees), degrees};
}

bool apart_beyond(std::span<const double> higher, std::span<const double> lower, double tolerance,
                  const PooledNoise& noise) {
    if (!usable(higher) || !usable(lower) || !separated(higher, lower, tolerance))
        return false;
    return mean_log(higher) - mean_log(lower) - std::log1p(tolerance) >
           margin(higher, lower, noise);
}

bool together_within(std::span<const double> a, std::span<const double> b, double tolerance,
                     const PooledNoise& noise) {
    if (!usable(a) || !usable(b) || !within(a, b, tolerance))
        return false;
    return std::abs(mean_log(a) - mean_log(b)) + margin(a, b, noise) < std::log1p(tolerance);
}

bool shown_above(std::span<const double> higher, std::span<const double> lower,
                 const std::optional<PooledNoise>& noise) {
    return stands_above(higher, lower) || (noise && apart_beyond(higher, lower, 0, *noise));
}

}  // namespace hugetune::model
