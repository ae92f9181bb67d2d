#include "model/cost_basis.hpp"

#include <map>

#include "model/fit/resampling.hpp"

namespace hugetune::model {

std::string to_string(CostBasis basis) {
    switch (basis) {
        case CostBasis::boot_table:
            return "boot table";
        case CostBasis::alloc_and_zero:
            return "allocation + zeroing (init_on_alloc on)";
        case CostBasis::alloc_only:
            return "allocation alone (init_on_alloc off)";
    }
    return "unknown";
}

BasisChoice choose_basis(const SweepData& data) {
    BasisChoice c;
    if (const auto* boot = data.phase(kPhaseBoot)) {
        c.basis = CostBasis::boot_table;
        c.main = boot;
        return c;
    }
    c.main = data.phase(kPhaseAlloc);
    c.basis = CostBasis::alloc_and_zero;
    const auto& init = data.machine.init_on_alloc;
    if (!init) {
        c.notes.push_back(
            "init_on_alloc is unknown: assuming it is on (boot zeroes every page, the alloc "
            "phase's cost)");
        return c;
    }
    if (*init)
        return c;
    c.zero = data.phase(kPhaseZero);
    c.grow = data.phase(kPhaseGrow);
    if (c.zero == nullptr) {
        c.warnings.push_back(
            {"no_zero_phase",
             "init_on_alloc is off but the sweep has no zero phase to subtract: predicting from "
             "allocation + zeroing, which overstates boot time"});
        return c;
    }
    c.basis = CostBasis::alloc_only;
    if (c.grow == nullptr)
        c.notes.push_back("no grow phase: allocation alone at 1 thread is alloc minus zero too");
    return c;
}

std::vector<Point> allocation_only_points(std::span<const Point> alloc, double alloc_pages,
                                          std::span<const Point> zero, double zero_pages,
                                          std::span<const Point> grow, double grow_pages,
                                          int* dropped) {
    std::map<double, double> zero_per_page;
    for (const auto& m : medians_per_count(zero))
        zero_per_page[m.threads_per_node] = m.seconds / zero_pages;
    std::vector<Point> out;
    int lost = 0;
    const bool anchored = !grow.empty();
    if (anchored)
        for (const auto& m : medians_per_count(grow))
            if (m.threads_per_node == 1)
                out.push_back({1.0, m.seconds / grow_pages});
    for (const auto& m : medians_per_count(alloc)) {
        if (anchored && m.threads_per_node == 1 && !out.empty())
            continue;
        auto z = zero_per_page.find(m.threads_per_node);
        if (z == zero_per_page.end())
            continue;
        const double per_page = m.seconds / alloc_pages - z->second;
        if (per_page <= 0) {
            ++lost;
            continue;
        }
        out.push_back({m.threads_per_node, per_page});
    }
    if (dropped != nullptr)
        *dropped = lost;
    return out;
}

}  // namespace hugetune::model
