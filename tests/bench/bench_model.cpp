// Fit plus 2,000 bootstrap resamples for one phase (the whole `recommend_from_sweep` on a
// sweep of 6 thread counts x 5 repetitions), against a single fit measured in the same run.
// The target is under 50 ms for the whole; the printed ratio shows what one fit costs in it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "model/fit/model_selection.hpp"
#include "model/recommend.hpp"
#include "tests/bench/median_time.hpp"

using namespace hugetune::model;

namespace {

std::vector<Point> noisy_usl_phase() {
    std::mt19937_64 rng(1);
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<Point> points;
    for (double n : {1, 2, 4, 8, 16, 32})
        for (int r = 0; r < 5; ++r)
            points.push_back(
                {n, 0.03 * (1 + 0.1 * (n - 1) + 0.004 * n * (n - 1)) / n * (1 + 0.05 * z(rng))});
    return points;
}

template <typename F>
double median_ms(int runs, F&& work) {
    return 1000 * hugetune::bench::median_seconds(runs, work);
}

}  // namespace

int main() {
    SweepData data;
    data.source = "sweep";
    data.page_size_kb = 2048;
    data.machine.nodes = 2;
    data.machine.online_cpus = 64;
    data.machine.hw_threads_per_node = 32;
    data.machine.init_on_alloc = true;
    data.machine.boot_pool_pages = 500'000;
    data.phases.push_back({"alloc", 128, noisy_usl_phase(), {}});
    RecommendOptions options;
    options.resamples = 2000;

    volatile double sink = 0;
    const double fit_ms =
        median_ms(21, [&] { sink = sink + fit_and_select(data.phases[0].points).usl.sigma; });
    int usable = 0;
    const double whole_ms = median_ms(7, [&] {
        const auto r = recommend_from_sweep(data, options);
        usable = r.usable_resamples;
        sink = sink + r.predicted_seconds;
    });
    std::printf("fit (usl + amdahl, 30 points):             %8.3f ms (median of 21)\n", fit_ms);
    std::printf("fit + %d bootstrap resamples, one phase: %8.3f ms (median of 7, %d usable)\n",
                options.resamples, whole_ms, usable);
    std::printf("ratio whole / one fit:                      %8.1f\n", whole_ms / fit_ms);
    std::printf("under 50 ms: %s\n", whole_ms < 50 ? "yes" : "no");
    return 0;
}
