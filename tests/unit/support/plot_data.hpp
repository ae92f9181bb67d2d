// A chart's data as the reports build it: one measured series with its spread and a fitted
// curve, the recommended and default thread counts marked.
#pragma once

#include "reports/plot.hpp"

namespace hugetune::test {

inline PlotData sample_data() {
    PlotData d;
    d.title = "host's skylake-sp, 2 MiB pages";
    d.y_label = "GiB/s per node";
    PlotSeries s;
    s.label = "alloc";
    for (double n : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
        double x = 10 * n / (1 + 0.05 * (n - 1) + 0.01 * n * (n - 1));
        s.measured.push_back({n, x, x * 0.95, x * 1.05});
    }
    for (double n = 1; n <= 32; n *= 1.1)
        s.fitted.emplace_back(n, 10 * n / (1 + 0.05 * (n - 1) + 0.01 * n * (n - 1)));
    d.series.push_back(s);
    d.recommended_threads_per_node = 8;
    d.default_threads_per_node = 9;
    return d;
}

// The same with a breakdown panel: the decision and the default in their parts (the default's
// not split), a predicted what-if row with its interval and one not predicted.
inline PlotData sample_data_with_breakdown() {
    PlotData d = sample_data();
    d.breakdown.bars.push_back(
        {"decision\n16 threads",
         {{BarPart::allocation, 0.4}, {BarPart::vmemmap, 0.1}, {BarPart::zeroing, 2.5}},
         2.8,
         3.3,
         ""});
    d.breakdown.bars.push_back(
        {"kernel default\n18 threads", {{BarPart::unsplit, 2.9}}, 2.7, 3.1, "not split"});
    d.breakdown.bars.push_back(
        {"init_on_alloc=0\n16 threads", {{BarPart::what_if, 0.5}}, 0.2, 0.9, ""});
    d.breakdown.bars.push_back(
        {"hugetlb_free_vmemmap=on\n16 threads", {}, std::nullopt, std::nullopt, "not predicted"});
    return d;
}

}  // namespace hugetune::test
