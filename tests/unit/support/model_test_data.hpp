// Synthetic measurements for the model tests: USL times from known parameters, optionally
// with seeded multiplicative noise (Box-Muller over mt19937_64, so the same everywhere).
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include "model/fit/scaling_fit.hpp"

namespace hugetune::model::testdata {

inline double usl_seconds(double n, double sigma, double kappa, double one_thread_seconds) {
    return one_thread_seconds * (1 + sigma * (n - 1) + kappa * n * (n - 1)) / n;
}

class Noise {
  public:
    explicit Noise(std::uint64_t seed) : rng_(seed) {}
    double normal() {
        const double u1 = (static_cast<double>(rng_() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
        const double u2 = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
        return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    }

  private:
    std::mt19937_64 rng_;
};

// `repetitions` samples at each count, times (1 + relative_noise * z), z standard normal.
inline std::vector<Point> usl_points(const std::vector<double>& counts, double sigma, double kappa,
                                     int repetitions = 1, double relative_noise = 0,
                                     std::uint64_t seed = 1, double one_thread_seconds = 100) {
    Noise noise(seed);
    std::vector<Point> points;
    for (double n : counts)
        for (int r = 0; r < repetitions; ++r) {
            const double factor = relative_noise > 0 ? 1 + relative_noise * noise.normal() : 1;
            points.push_back(
                {n, usl_seconds(n, sigma, kappa, one_thread_seconds) * std::max(factor, 0.5)});
        }
    return points;
}

inline const std::vector<double> kSweepCounts = {1, 2, 4, 8, 16, 32, 64};

}  // namespace hugetune::model::testdata
