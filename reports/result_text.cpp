#include "reports/result_text.hpp"

#include "model/alloc_threads.hpp"
#include "model/text.hpp"

namespace hugetune {

std::string decision_text(model::Decision decision, std::uint64_t hugepage_alloc_threads,
                          double threads_per_node, std::optional<int> nodes) {
    std::string value = alloc_threads_setting(hugepage_alloc_threads) + " (" +
                        significant_text(threads_per_node, 4) + " per node";
    if (nodes)
        value += " x " + std::to_string(*nodes) + (*nodes == 1 ? " node" : " nodes");
    value += ")";
    return decision == model::Decision::keep_default ? "keep the kernel default, " + value
                                                     : "set " + value;
}

std::string interval_text(double low_seconds, double high_seconds) {
    return " (90% " + seconds_text(low_seconds) + ".." + seconds_text(high_seconds) + ")";
}

}  // namespace hugetune
