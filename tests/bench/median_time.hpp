// The benchmarks' one timer: the median wall time of a piece of work run several times, so a
// single slow run (another process, a page fault) does not set the figure.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace hugetune::bench {

template <typename Work>
double median_seconds(int runs, Work&& work) {
    std::vector<double> seconds;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        work();
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(seconds.begin(), seconds.end());
    return seconds[seconds.size() / 2];
}

}  // namespace hugetune::bench
