#include "model/recommend/series.hpp"

#include "model/fit/resampling.hpp"
#include "model/parallel.hpp"

namespace hugetune::model::recommend {

std::vector<Point> per_page(std::span<const Point> points, double pages_per_node) {
    std::vector<Point> out(points.begin(), points.end());
    if (pages_per_node > 0)
        for (auto& p : out)
            p.seconds /= pages_per_node;
    return out;
}

Series build_series(const BasisChoice& b, std::span<const Point> main, std::span<const Point> zero,
                    std::span<const Point> grow) {
    Series s;
    switch (b.basis) {
        case CostBasis::boot_table:
        case CostBasis::alloc_and_zero:
            s.points = per_page(main, b.main->pages_per_node);
            break;
        case CostBasis::alloc_zeroed_once:
        case CostBasis::alloc_only:
            s.points = boot_work_points(main, b.main->pages_per_node, zero, b.zero->pages_per_node,
                                        grow, b.grow != nullptr ? b.grow->pages_per_node : 1.0,
                                        b.separable_counts, &s.dropped);
            break;
        case CostBasis::alloc_only_flat:
            for (const auto& m : medians_per_count(per_page(grow, b.grow->pages_per_node)))
                if (m.threads_per_node == 1)
                    s.points.push_back(m);
            break;
    }
    return s;
}

CostSeries choose_cost_series(const SweepData& data, const SettingWords& words) {
    CostSeries c;
    c.basis = choose_basis(data, words);
    BasisChoice& basis = c.basis;
    c.remarks = {std::move(basis.notes), std::move(basis.warnings)};
    if (basis.main == nullptr)
        throw InputError(data.input, std::nullopt,
                         "no boot or alloc series: nothing to base a boot time on");
    c.curve = curve_name(basis.basis);
    const std::vector<Point> no_points;
    c.series = build_series(basis, basis.main->points,
                            basis.zero != nullptr ? basis.zero->points : no_points,
                            basis.grow != nullptr ? basis.grow->points : no_points);
    if (c.series.dropped > 0)
        c.remarks.warnings.push_back(
            {"dropped_points",
             std::to_string(c.series.dropped) +
                 " thread count(s) left out: alloc minus zero was not positive there "
                 "(the allocation's cost lost in the zeroing noise)"});
    return c;
}

namespace {

// Points of a sweep's phases below which their fits share one thread: a host's sweep has tens,
// a SKU of 100,000 hosts millions, where each phase's fits take a second.
constexpr std::size_t kPointsPerFitThread = 100000;

std::vector<PhaseModel> fit_phases(const SweepData& data, const FitOptions& fit) {
    std::vector<PhaseModel> phases;
    std::size_t points = 0;
    for (const auto& ph : data.phases) {
        phases.push_back({ph.phase, std::nullopt, {}});
        points += ph.points.size();
    }
    // Each phase is fitted alone, so the phases are fitted side by side.
    parallel_for(phases.size(), threads_for(points, kPointsPerFitThread), [&](std::size_t i) {
        const PhaseSeries& ph = data.phases[i];
        if (distinct_thread_counts(ph.points) >= kMinThreadCounts)
            phases[i].selection = fit_and_select(per_page(ph.points, ph.pages_per_node), fit);
        else
            phases[i].message = "not fitted: fewer than 3 thread counts";
    });
    return phases;
}

}  // namespace

FittedModels fit_models(const SweepData& data, const CostSeries& cost, const FitOptions& fit) {
    FittedModels f;
    f.phases = fit_phases(data, fit);
    if (cost.basis.basis == CostBasis::alloc_only_flat) {
        // Held flat on purpose: one measured count, nothing to fit.
        f.model.reason = "not fitted: allocation alone is held at its 1-thread time";
        return f;
    }
    f.model = fit_and_select(cost.series.points, fit);
    if (cost.basis.basis == CostBasis::alloc_zeroed_once ||
        cost.basis.basis == CostBasis::alloc_only)
        f.phases.push_back({cost.curve, f.model, {}});
    if (f.model.any_converged)
        f.chosen = f.model.chosen();
    f.fallback = !f.chosen;
    if (f.fallback)
        f.remarks.warnings.push_back(
            {"fit_fallback",
             "no fit converged (" + f.model.reason + "): deciding on the measured counts instead"});
    return f;
}

}  // namespace hugetune::model::recommend
