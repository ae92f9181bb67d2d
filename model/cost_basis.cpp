#include "model/cost_basis.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "model/fit/noise_test.hpp"
#include "model/fit/resampling.hpp"
#include "model/parallel.hpp"
#include "model/text.hpp"

namespace hugetune::model {

std::string to_string(CostBasis basis) {
    switch (basis) {
        case CostBasis::boot_table:
            return "boot_table";
        case CostBasis::alloc_and_zero:
            return "alloc_and_zero";
        case CostBasis::alloc_zeroed_once:
            return "alloc_zeroed_once";
        case CostBasis::alloc_only:
            return "alloc_only";
        case CostBasis::alloc_only_flat:
            return "alloc_only_flat";
    }
    return "unknown";
}

std::string describe(CostBasis basis) {
    switch (basis) {
        case CostBasis::boot_table:
            return "boot table";
        case CostBasis::alloc_and_zero:
            return "the alloc phase as measured (overstates the boot)";
        case CostBasis::alloc_zeroed_once:
            return "allocation zeroed once (init_on_alloc on): alloc minus zero";
        case CostBasis::alloc_only:
            return "allocation alone (init_on_alloc off): alloc minus zero";
        case CostBasis::alloc_only_flat:
            return "allocation alone (init_on_alloc off) at 1 thread, held at every count";
    }
    return "unknown";
}

std::string curve_name(CostBasis basis) {
    switch (basis) {
        case CostBasis::boot_table:
            return "boot";
        case CostBasis::alloc_and_zero:
            return "alloc";
        case CostBasis::alloc_zeroed_once:
            return "alloc_zeroed_once";
        case CostBasis::alloc_only:
        case CostBasis::alloc_only_flat:
            return "alloc_only";
    }
    return "unknown";
}

namespace {

// Repetitions of alloc and zero below which the rank tests of every count share one thread.
constexpr std::size_t kPointsPerTestThread = 100000;

// Each count's samples in seconds per page, each count's room made first: a SKU's pooled
// phase holds millions of samples of a few counts.
std::map<double, std::vector<double>> per_page_by_count(std::span<const Point> points,
                                                        double pages) {
    std::map<double, std::size_t> sizes;
    for (const auto& p : points)
        ++sizes[p.threads_per_node];
    std::map<double, std::vector<double>> out;
    for (const auto& [n, size] : sizes)
        out[n].reserve(size);
    for (const auto& p : points)
        out[p.threads_per_node].push_back(p.seconds / pages);
    return out;
}

bool has_count(std::span<const Point> points, double threads_per_node) {
    return std::any_of(points.begin(), points.end(),
                       [&](const Point& p) { return p.threads_per_node == threads_per_node; });
}

// Too few counts where alloc stands above zero to fit a curve.
// The way to measure it: a larger sample or more repetitions, as the user sets them.
std::string measure_more(const SettingWords& words) {
    return "measure a larger " + words("sample_mib_per_node") + " or more " + words("repetitions");
}

void unmeasurable(BasisChoice& c, bool init_on_alloc, const SettingWords& words) {
    if (!init_on_alloc && c.grow != nullptr && has_count(c.grow->points, 1)) {
        // Without init_on_alloc the boot only allocates: small next to zeroing, and no sign that
        // more threads make it faster. Holding the one measured rate claims no gain.
        c.basis = CostBasis::alloc_only_flat;
        c.warnings.push_back(
            {"alloc_only_unmeasurable",
             "allocation alone could not be told apart from zeroing above 1 thread per node "
             "(alloc does not stand above zero at enough thread counts): predicting the grow "
             "phase's 1-thread allocation time at every count, no gain from threads assumed; " +
                 measure_more(words) + " to see its scaling"});
        return;
    }
    c.basis = CostBasis::alloc_and_zero;
    c.zero = c.grow = nullptr;
    c.warnings.push_back(
        {"alloc_only_unmeasurable",
         "the boot's allocation could not be told apart from the fault's zeroing (alloc does not "
         "stand above zero at enough thread counts): predicting from the alloc phase, which "
         "zeroes each page once more than the boot and overstates it (about twice with "
         "init_on_alloc on); " +
             measure_more(words)});
}

// The noise of one sample pooled over every count of both phases, where a count has two samples
// on a side (the adaptive rule leaves settled candidates there): only then can the test on it
// show what the rank test cannot (noise_test.hpp shown_above). None otherwise, which also spares
// a SKU's pooled phases, millions of samples a count, a pass over them.
std::optional<PooledNoise> two_sample_noise(const std::map<double, std::vector<double>>& alloc,
                                            const std::map<double, std::vector<double>>& zero) {
    const auto has_two = [](const std::map<double, std::vector<double>>& phase) {
        return std::any_of(phase.begin(), phase.end(),
                           [](const auto& count) { return count.second.size() == 2; });
    };
    if (!has_two(alloc) && !has_two(zero))
        return std::nullopt;
    std::vector<std::vector<double>> points;
    for (const auto* phase : {&alloc, &zero})
        for (const auto& [n, values] : *phase)
            points.push_back(values);
    return pooled_log_noise(points);
}

}  // namespace

std::vector<double> separable_counts(std::span<const Point> alloc, double alloc_pages,
                                     std::span<const Point> zero, double zero_pages) {
    const auto zero_by_count = per_page_by_count(zero, zero_pages);
    const auto alloc_by_count = per_page_by_count(alloc, alloc_pages);
    std::vector<std::pair<double, const std::vector<double>*>> counts;
    for (const auto& [n, alloc_values] : alloc_by_count)
        counts.emplace_back(n, &alloc_values);
    // Each count's test is its own: side by side where they are long (a SKU's pooled
    // repetitions, hundreds of thousands a count, sorted by each test).
    const std::optional<PooledNoise> noise = two_sample_noise(alloc_by_count, zero_by_count);
    std::vector<char> above(counts.size(), 0);
    parallel_for(counts.size(), threads_for(alloc.size() + zero.size(), kPointsPerTestThread),
                 [&](std::size_t i) {
                     const auto z = zero_by_count.find(counts[i].first);
                     above[i] = z != zero_by_count.end() &&
                                shown_above(*counts[i].second, z->second, noise);
                 });
    std::vector<double> out;
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (above[i])
            out.push_back(counts[i].first);
    return out;
}

BasisChoice choose_basis(const SweepData& data, const SettingWords& words) {
    BasisChoice c;
    if (const auto* boot = data.phase(kPhaseBoot)) {
        c.basis = CostBasis::boot_table;
        c.main = boot;
        return c;
    }
    c.main = data.phase(kPhaseAlloc);
    c.basis = CostBasis::alloc_and_zero;
    if (c.main == nullptr)
        return c;
    const auto& init = data.machine.init_on_alloc;
    if (!init)
        c.notes.push_back(
            "init_on_alloc is unknown: assuming it is on (the boot zeroes every page once)");
    const bool init_on_alloc = init.value_or(true);
    c.zero = data.phase(kPhaseZero);
    c.grow = data.phase(kPhaseGrow);
    if (c.zero == nullptr) {
        c.grow = nullptr;
        c.warnings.push_back(
            {"no_zero_phase",
             "the sweep has no zero phase to subtract: predicting from the alloc phase, which "
             "zeroes each page once more than the boot and overstates it"});
        return c;
    }
    c.separable_counts = separable_counts(c.main->points, c.main->pages_per_node, c.zero->points,
                                          c.zero->pages_per_node);
    const bool anchored = c.grow != nullptr && has_count(c.grow->points, 1);
    std::size_t usable = c.separable_counts.size();
    if (anchored && !std::count(c.separable_counts.begin(), c.separable_counts.end(), 1.0))
        ++usable;
    if (!anchored && c.grow == nullptr)
        c.notes.push_back("no grow phase: the boot's work at 1 thread is alloc minus zero too");
    if (usable < kMinThreadCounts) {
        unmeasurable(c, init_on_alloc, words);
        return c;
    }
    c.basis = init_on_alloc ? CostBasis::alloc_zeroed_once : CostBasis::alloc_only;
    const auto main_counts = medians_per_count(c.main->points);
    std::vector<double> left_out;
    for (const auto& m : main_counts)
        if (m.threads_per_node != 1 || !anchored)
            if (!std::count(c.separable_counts.begin(), c.separable_counts.end(),
                            m.threads_per_node))
                left_out.push_back(m.threads_per_node);
    if (!left_out.empty())
        c.warnings.push_back(
            {"dropped_points", "thread count(s) " + counts_text(left_out) +
                                   " per node left out: alloc does not stand above zero there "
                                   "(the allocation's cost is lost in the zeroing noise)"});
    return c;
}

std::vector<Point> boot_work_points(std::span<const Point> alloc, double alloc_pages,
                                    std::span<const Point> zero, double zero_pages,
                                    std::span<const Point> grow, double grow_pages,
                                    std::span<const double> counts, int* dropped) {
    std::map<double, double> zero_per_page;
    for (const auto& m : medians_per_count(zero))
        zero_per_page[m.threads_per_node] = m.seconds / zero_pages;
    std::vector<Point> out;
    int lost = 0;
    const bool anchored = has_count(grow, 1);
    if (anchored)
        for (const auto& m : medians_per_count(grow))
            if (m.threads_per_node == 1)
                out.push_back({1.0, m.seconds / grow_pages});
    for (const auto& m : medians_per_count(alloc)) {
        if (anchored && m.threads_per_node == 1)
            continue;
        if (!std::count(counts.begin(), counts.end(), m.threads_per_node))
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
    std::sort(out.begin(), out.end(), [](const Point& a, const Point& b) {
        return a.threads_per_node < b.threads_per_node;
    });
    if (dropped != nullptr)
        *dropped = lost;
    return out;
}

}  // namespace hugetune::model
