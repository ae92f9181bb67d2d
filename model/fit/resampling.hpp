// Seeded bootstrap resampling of measured series. The generator is std::mt19937_64, whose
// output sequence the C++ standard fixes, and indexes are drawn without distribution objects
// (whose algorithms are left to each library), so a seed gives the same resamples everywhere.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "model/fit/scaling_fit.hpp"

namespace hugetune::model {

class Resampler {
  public:
    explicit Resampler(std::uint64_t seed) : rng_(seed) {}
    // Uniform in [0, n); the modulo bias is below 2^-50 for any n we see.
    std::size_t index(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }

  private:
    std::mt19937_64 rng_;
};

// True when every thread count has at least two samples: then resampling repetitions within
// each count captures the noise; otherwise residuals have to stand in for it.
bool has_repetitions(std::span<const Point> points);

// Bootstrap over repetitions: each thread count keeps its number of samples, drawn with
// replacement from its own samples. Output is grouped by thread count, ascending.
std::vector<Point> resample_repetitions(std::span<const Point> points, Resampler& rng);

// Residual bootstrap for one sample per thread count: fitted value times exp(a residual drawn
// with replacement). Log residuals are centred and inflated by sqrt(n / (n - p)) because a
// least-squares fit with p parameters leaves residuals smaller than the noise.
std::vector<Point> resample_residuals(std::span<const Point> points, const ScalingFit& fit,
                                      Resampler& rng);

// Median seconds per thread count, ascending by count.
std::vector<Point> medians_per_count(std::span<const Point> points);

double median(std::vector<double> values);

}  // namespace hugetune::model
