#include "model/boot_comparison.hpp"

#include <cmath>
#include <sstream>

#include "model/fit/resampling.hpp"
#include "model/text.hpp"

namespace hugetune::model {

BootComparison compare_with_boots(const Recommendation& r, const SweepData& boots) {
    BootComparison c;
    c.page_size_kb = boots.page_size_kb;
    c.pages = boots.machine.boot_pool_pages.value_or(0);
    c.kernel_release = boots.machine.kernel_release;
    if (r.key.page_size_kb != 0 && r.key.page_size_kb != boots.page_size_kb)
        throw InputError(boots.input, std::nullopt,
                         "the boot sweep booted " + page_size_text(boots.page_size_kb) +
                             " pages, the sweep measured " + page_size_text(r.key.page_size_kb) +
                             "; compare a sweep of the same page size");
    const PhaseSeries* series = boots.phase(kPhaseBoot);
    if (series == nullptr)
        return c;
    const int nodes = boots.machine.nodes.value_or(1);
    for (const Point& median : medians_per_count(series->points)) {
        BootComparisonRow row;
        row.threads = static_cast<int>(std::lround(median.threads_per_node * nodes));
        for (const Point& p : series->points)
            row.boots += p.threads_per_node == median.threads_per_node ? 1 : 0;
        row.measured_seconds = median.seconds;
        row.predicted_seconds = predict_boot_seconds(r, row.threads, static_cast<double>(c.pages));
        row.ratio = row.predicted_seconds > 0 ? row.measured_seconds / row.predicted_seconds : 0;
        c.rows.push_back(row);
    }
    return c;
}

nlohmann::json to_json(const BootComparison& c) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : c.rows)
        rows.push_back({{"threads", row.threads},
                        {"boots", row.boots},
                        {"measured_ms", row.measured_seconds * 1000},
                        {"predicted_ms", row.predicted_seconds * 1000},
                        {"ratio", row.ratio}});
    return {{"pages", c.pages},
            {"page_size_kb", c.page_size_kb},
            {"kernel_release", c.kernel_release ? nlohmann::json(*c.kernel_release) : nullptr},
            {"rows", rows}};
}

}  // namespace hugetune::model
