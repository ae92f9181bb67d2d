#include "model/boot_breakdown.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "model/cost_curve.hpp"
#include "model/fit/rank_test.hpp"
#include "model/fit/resampling.hpp"
#include "model/statistics.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// One point per count: the median, the fastest or the slowest repetition, in seconds per page.
struct PerPageCurves {
    CostCurve median, fastest, slowest;
};

PerPageCurves per_page_curves(const PhaseSeries& zero) {
    std::map<double, std::vector<double>> by_count;
    for (const auto& p : zero.points)
        by_count[p.threads_per_node].push_back(p.seconds / zero.pages_per_node);
    std::vector<Point> fastest, slowest;
    for (const auto& [n, values] : by_count) {
        fastest.push_back({n, *std::min_element(values.begin(), values.end())});
        slowest.push_back({n, *std::max_element(values.begin(), values.end())});
    }
    std::vector<Point> medians;
    for (const auto& m : medians_per_count(zero.points))
        medians.push_back({m.threads_per_node, m.seconds / zero.pages_per_node});
    return {CostCurve(medians, std::nullopt), CostCurve(fastest, std::nullopt),
            CostCurve(slowest, std::nullopt)};
}

Estimate interval_of(const Recommendation& r, int total_threads, double seconds) {
    Estimate e{seconds, std::nullopt, std::nullopt};
    for (const auto& p : r.predictions)
        if (p.total_threads == total_threads) {
            e.low = p.seconds_low;
            e.high = p.seconds_high;
        }
    return e;
}

// Total minus zeroing; the interval pairs the total's low end with the zeroing's high end.
Estimate minus(const Estimate& total, const Estimate& zeroing) {
    Estimate e{std::max(0.0, total.seconds - zeroing.seconds), std::nullopt, std::nullopt};
    if (total.low && zeroing.high)
        e.low = std::max(0.0, *total.low - *zeroing.high);
    if (total.high && zeroing.low)
        e.high = std::max(0.0, *total.high - *zeroing.low);
    return e;
}

Estimate plus(const Estimate& total, const Estimate& zeroing) {
    Estimate e{total.seconds + zeroing.seconds, std::nullopt, std::nullopt};
    if (total.low && zeroing.low)
        e.low = *total.low + *zeroing.low;
    if (total.high && zeroing.high)
        e.high = *total.high + *zeroing.high;
    return e;
}

BreakdownAt part_at(const Recommendation& r, const PerPageCurves& zero, bool zeroes, std::string at,
                    int total_threads, double seconds) {
    BreakdownAt b;
    b.at = std::move(at);
    b.hugepage_alloc_threads = total_threads;
    b.threads_per_node = static_cast<double>(total_threads) / r.nodes;
    b.total = interval_of(r, total_threads, seconds);
    // The kernel spreads the boot pool over the nodes and its workers interleave (see
    // recommend/machine.hpp, Evaluator): each node's share at the threads per node it acts as.
    const double pages_per_node = r.pool_pages / r.nodes;
    b.zero_phase = {zero.median.seconds(b.threads_per_node) * pages_per_node,
                    zero.fastest.seconds(b.threads_per_node) * pages_per_node,
                    zero.slowest.seconds(b.threads_per_node) * pages_per_node};
    if (zeroes) {
        b.separable = b.zero_phase.seconds <= b.total.seconds;
        b.zeroing = b.zero_phase;
        b.allocation = minus(b.total, b.zero_phase);
    } else {
        b.allocation = b.total;
    }
    return b;
}

// HVO's cost from the grow phase at 1 thread per node, timed both ways (docs/kernel-facts.md
// "Which phase holds which part of the boot", "HVO's cost from the grow phase"): grow takes the
// boot's path, a batch of pages whose vmemmap is optimised together, and zeroes a page at most
// once, as the boot does; the alloc phase zeroes each page once more at its fault, which at a
// small pool's size is all its time and buries HVO's part in that zeroing's noise.
struct HvoFromGrow {
    // The grow phase's time with HVO the other way over as it is: the medians', the fastest
    // against the slowest repetition and the slowest against the fastest.
    double ratio = 1, low = 1, high = 1;
};

// The per-page times of a grow series at 1 thread per node.
std::vector<double> grow_per_page(const PhaseSeries* grow) {
    std::vector<double> out;
    if (grow == nullptr || !(grow->pages_per_node > 0))
        return out;
    for (const auto& p : grow->points)
        if (p.threads_per_node == 1 && p.seconds > 0)
            out.push_back(p.seconds / grow->pages_per_node);
    return out;
}

// Nothing, with the reason in `why`, where the pass cannot give HVO's cost: no grow both ways,
// or HVO on's repetitions do not stand above HVO off's (the rank test fit uses for alloc against
// zero, docs/kernel-facts.md "What each phase does under init_on_alloc"). HVO only adds work
// (mm/hugetlb_vmemmap.c), so the test is one-sided, on above off.
std::optional<HvoFromGrow> hvo_from_grow(const SweepData& data, std::string& why) {
    const std::vector<double> as_is = grow_per_page(data.phase(kPhaseGrow));
    const std::vector<double> other = grow_per_page(data.hvo_pass->phase(kPhaseGrow));
    if (as_is.empty() || other.empty()) {
        why =
            "the sweep's HVO pass has no grow phase at 1 thread per node both ways, the phase "
            "that carries HVO's cost at the boot's size";
        return std::nullopt;
    }
    const bool on_as_is = data.hvo_pass->as_is;
    const std::vector<double>& on = on_as_is ? as_is : other;
    const std::vector<double>& off = on_as_is ? other : as_is;
    if (!stands_above(on, off)) {
        why = "HVO's difference is within the repetitions' spread: the grow phase with HVO on (" +
              std::to_string(on.size()) + " repetitions) does not stand above it with HVO off (" +
              std::to_string(off.size()) + ") in a rank test at " +
              significant_text(kRankTestLevel * 100, 2) + "%";
        return std::nullopt;
    }
    const auto [as_is_fastest, as_is_slowest] = std::minmax_element(as_is.begin(), as_is.end());
    const auto [other_fastest, other_slowest] = std::minmax_element(other.begin(), other.end());
    return HvoFromGrow{median(other) / median(as_is), *other_fastest / *as_is_slowest,
                       *other_slowest / *as_is_fastest};
}

// The boot with HVO the other way: the prediction times grow's ratio, taking HVO's part to
// scale with threads as the rest of the boot's work does (each boot worker optimises the pages
// it allocated, prep_and_add_allocated_folios()).
void add_hvo_parts(BreakdownAt& b, const HvoFromGrow& g, bool hvo_on) {
    Estimate other{b.total.seconds * g.ratio, std::nullopt, std::nullopt};
    other.low = b.total.low.value_or(b.total.seconds) * g.low;
    other.high = b.total.high.value_or(b.total.seconds) * g.high;
    b.hvo_other_way = other;
    if (hvo_on)  // HVO's part: what the boot would lose without it, never below zero
        b.vmemmap = Estimate{std::max(0.0, b.total.seconds * (1 - g.ratio)),
                             std::max(0.0, b.total.seconds * (1 - g.high)),
                             std::max(0.0, b.total.seconds * (1 - g.low))};
}

std::string hvo_state(const std::optional<bool>& hvo) {
    return hvo ? (*hvo ? "on" : "off") : "as the kernel had it (unknown)";
}

std::string first_fault_text(const KernelOptions& kernel) {
    if (kernel.zeroable_hugepages)
        return "this kernel has zeroable_hugepages: pool pages zeroed ahead through it are not "
               "zeroed again at their first fault; the others are";
    return "hugetlb zeroes every pool page again at its first fault on this kernel "
           "(hugetlb_no_page() calls folio_zero_user() for each new page)";
}

WhatIf init_on_alloc_row(const BootBreakdown& b) {
    const BreakdownAt& at = b.at.front();
    WhatIf w;
    w.parameter = "init_on_alloc";
    w.hugepage_alloc_threads = at.hugepage_alloc_threads;
    if (b.init_on_alloc) {
        w.value = "0";
        if (!at.separable) {
            w.trade_off =
                "off: the boot no longer zeroes the pool, and the kernel no longer "
                "zeroes any other allocation either, a hardening measure given up for "
                "the whole system";
            w.note =
                "not predicted: the zero phase alone takes longer than the predicted boot, "
                "so the measured phases do not split it into allocation and zeroing here";
            return w;
        }
        w.predicted = at.allocation;
        w.trade_off =
            "off: the boot no longer zeroes the pool, and the kernel no longer zeroes any other "
            "allocation either, a hardening measure (no old memory contents reach a new "
            "owner) given up for the whole system";
        w.note =
            "the prediction minus the zero phase's time for the pool at the same threads "
            "per node" +
            std::string(b.init_on_alloc_assumed ? " (init_on_alloc unknown, taken as on)" : "") +
            "; allocation alone may scale otherwise, so the best thread count may differ";
    } else {
        w.value = "1";
        w.predicted = plus(at.total, at.zero_phase);
        w.trade_off = "on: adds the pool's zeroing to the boot (" +
                      seconds_text(at.zero_phase.seconds) +
                      ") and zeroes every other kernel allocation too, a hardening measure";
        w.note =
            "the prediction plus the zero phase's time for the pool at the same threads per "
            "node";
    }
    return w;
}

WhatIf hvo_row(const Recommendation& r, const BootBreakdown& b, const KernelOptions& kernel) {
    WhatIf w;
    w.parameter = "hugetlb_free_vmemmap";
    w.value = b.hvo.value_or(false) ? "off" : "on";
    w.hugepage_alloc_threads = b.at.front().hugepage_alloc_threads;
    const BreakdownAt& at = b.at.front();
    if (kernel.vmemmap_freeable_kib_per_page && *kernel.vmemmap_freeable_kib_per_page > 0) {
        w.memory_saved_bytes = *kernel.vmemmap_freeable_kib_per_page * 1024 * r.pool_pages;
        w.trade_off = "on frees " + significant_text(*w.memory_saved_bytes / kGiB, 3) +
                      " GiB of struct pages for this pool (" +
                      significant_text(*kernel.vmemmap_freeable_kib_per_page, 3) +
                      " KiB a page) and adds remapping work to every allocation and free of a "
                      "pool page; off keeps that memory in use and skips the work";
    } else {
        w.trade_off =
            "on frees most of each page's struct pages and adds remapping work to every "
            "allocation and free of a pool page; off keeps that memory in use and skips the "
            "work (the boot log gives no freeable size for this page size)";
    }
    if (b.hvo_measured && at.hvo_other_way) {
        w.predicted = at.hvo_other_way;
        w.note =
            "the prediction times the grow phase's time at 1 thread per node with "
            "/proc/sys/vm/hugetlb_optimize_vmemmap " +
            std::string(w.value == "on" ? "1" : "0") +
            " over as measured (the sweep's HVO pass), HVO's part taken to scale with "
            "threads as the rest of the boot's work; the range pairs the fastest and "
            "slowest repetitions";
        return w;
    }
    if (!b.hvo_not_predicted.empty()) {
        w.note = "not predicted: " + b.hvo_not_predicted;
        return w;
    }
    w.note = kernel.hvo_sysctl
                 ? "not measured: every phase that allocates (alloc, grow) ran with HVO " +
                       hvo_state(kernel.hvo) +
                       " and none the other way, so the sweep cannot separate its cost; "
                       "/proc/sys/vm/hugetlb_optimize_vmemmap exists, so both could be measured"
                 : "not measured: this kernel has no /proc/sys/vm/hugetlb_optimize_vmemmap "
                   "(built without CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP, or no page size it can "
                   "optimise), so HVO cannot be switched at run time; only boots with "
                   "hugetlb_free_vmemmap= on and off can measure it";
    return w;
}

}  // namespace

std::optional<BootBreakdown> boot_breakdown(const Recommendation& r, const SweepData& data,
                                            const KernelOptions& kernel) {
    const bool zeroed_once = r.basis == CostBasis::alloc_zeroed_once;
    const bool alloc_only =
        r.basis == CostBasis::alloc_only || r.basis == CostBasis::alloc_only_flat;
    const PhaseSeries* zero = data.phase(kPhaseZero);
    if ((!zeroed_once && !alloc_only) || zero == nullptr || zero->pages_per_node <= 0 ||
        zero->points.empty() || !(r.pool_pages > 0))
        return std::nullopt;
    const PerPageCurves curves = per_page_curves(*zero);
    BootBreakdown b;
    b.init_on_alloc = zeroed_once;
    b.init_on_alloc_assumed = zeroed_once && !data.machine.init_on_alloc;
    b.hvo = kernel.hvo;
    b.at.push_back(part_at(r, curves, zeroed_once, "recommended", r.hugepage_alloc_threads,
                           r.predicted_seconds));
    if (r.default_threads != r.hugepage_alloc_threads)
        b.at.push_back(part_at(r, curves, zeroed_once, "kernel_default", r.default_threads,
                               r.predicted_default_seconds));
    if (data.hvo_pass) {
        const bool on = data.hvo_pass->as_is;
        b.hvo = on;
        std::string why;
        if (const auto grow = hvo_from_grow(data, why)) {
            b.hvo_measured = true;
            for (auto& at : b.at)
                add_hvo_parts(at, *grow, on);
            b.hvo_note = on ? "measured by the sweep's HVO pass: the grow phase at 1 thread per "
                              "node with hugetlb_optimize_vmemmap 0 against 1, as a share of "
                              "the prediction; part of allocation"
                            : "HVO is off, so the boot does no vmemmap work; the sweep's HVO "
                              "pass measured what turning it on would add (the what-if row)";
            return b;
        }
        b.hvo_not_predicted = why;
        b.hvo_note = (on ? "not separable: the allocation part includes the vmemmap "
                           "optimisation, and the sweep's HVO pass could not size it: "
                         : "HVO is off, so the boot does no vmemmap work; the sweep's HVO pass "
                           "could not size what turning it on would add: ") +
                     why;
        return b;
    }
    // mm/hugetlb_vmemmap.c, vmemmap_should_optimize_folio(): with HVO off no new page is
    // optimised, so allocation holds no vmemmap work to separate.
    if (kernel.hvo == false) {
        b.hvo_note =
            "HVO is off, so the boot does no vmemmap work; turning it on would add some, "
            "which no sweep of this kernel measured (the what-if row)";
        return b;
    }
    // mm/hugetlb.c: the boot, a pool grown through nr_hugepages and a surplus fault all optimise
    // each new page's vmemmap when HVO is on; the zero phase allocates nothing.
    b.hvo_note =
        "not separable: the allocation part includes the vmemmap optimisation when HVO "
        "is on (" +
        hvo_state(kernel.hvo) +
        " here), and every measured phase that allocates ran with it as it is";
    return b;
}

std::vector<WhatIf> what_if_rows(const Recommendation& r, const BootBreakdown& breakdown,
                                 const KernelOptions& kernel) {
    std::vector<WhatIf> rows;
    if (breakdown.at.empty())
        return rows;
    WhatIf init = init_on_alloc_row(breakdown);
    init.note += "; " + first_fault_text(kernel);
    rows.push_back(std::move(init));
    rows.push_back(hvo_row(r, breakdown, kernel));
    return rows;
}

std::vector<WhatIf> what_if_rows_at(const Recommendation& r, const SweepData& data,
                                    const KernelOptions& kernel, int total_threads,
                                    double pool_pages) {
    if (!(r.pool_pages > 0) || !(pool_pages > 0))
        return {};
    // The recommendation as if it had recommended `total_threads` for this pool: the rows are
    // then at that count. Its predictions are per page times the pool, so they scale with it.
    const double scale = pool_pages / r.pool_pages;
    Recommendation at = r;
    at.pool_pages = pool_pages;
    at.hugepage_alloc_threads = total_threads;
    at.default_threads = total_threads;
    at.predicted_seconds = predict_boot_seconds(r, total_threads, pool_pages);
    for (auto& p : at.predictions) {
        p.seconds *= scale;
        if (p.seconds_low)
            *p.seconds_low *= scale;
        if (p.seconds_high)
            *p.seconds_high *= scale;
    }
    const auto breakdown = boot_breakdown(at, data, kernel);
    if (!breakdown)
        return {};
    return what_if_rows(at, *breakdown, kernel);
}

std::optional<FirstTouch> first_touch(const SweepData& data, double gib,
                                      const KernelOptions& kernel) {
    const PhaseSeries* zero = data.phase(kPhaseZero);
    if (zero == nullptr || zero->pages_per_node <= 0 || zero->points.empty() || !(gib > 0) ||
        data.page_size_kb == 0)
        return std::nullopt;
    const int nodes = std::max(1, data.machine.nodes.value_or(1));
    const double pages = gib * kGiB / (static_cast<double>(data.page_size_kb) * 1024);
    // The application's pages spread over the nodes, each node's faulted by its own threads.
    const double scale = pages / nodes / zero->pages_per_node;
    std::map<double, std::vector<double>> by_count;
    for (const auto& p : zero->points)
        by_count[p.threads_per_node].push_back(p.seconds);
    FirstTouch t;
    t.gib = gib;
    t.zeroable_hugepages = kernel.zeroable_hugepages;
    for (const auto& m : medians_per_count(zero->points)) {
        const auto& values = by_count[m.threads_per_node];
        const int n = static_cast<int>(std::lround(m.threads_per_node));
        t.rows.push_back(
            {n,
             n * nodes,
             {m.seconds * scale, *std::min_element(values.begin(), values.end()) * scale,
              *std::max_element(values.begin(), values.end()) * scale}});
    }
    return t;
}

}  // namespace hugetune::model
