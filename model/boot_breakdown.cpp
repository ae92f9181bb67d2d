#include "model/boot_breakdown.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "model/cost_curve.hpp"
#include "model/fit/resampling.hpp"
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

// The alloc phase's time per page with HVO the other way minus as it was, at each count of the
// HVO pass: the median's difference and the widest one each way (fastest against slowest).
struct HvoDelta {
    double threads_per_node = 1;
    double median = 0, low = 0, high = 0;  // seconds per page, may be negative
};

std::vector<HvoDelta> hvo_deltas(const SweepData& data) {
    std::vector<HvoDelta> out;
    const PhaseSeries* as_is = data.phase(kPhaseAlloc);
    const PhaseSeries* other = data.hvo_pass ? data.hvo_pass->phase(kPhaseAlloc) : nullptr;
    if (as_is == nullptr || other == nullptr || !(as_is->pages_per_node > 0) ||
        !(other->pages_per_node > 0))
        return out;
    const PerPageCurves a = per_page_curves(*as_is);
    const PerPageCurves o = per_page_curves(*other);
    for (const auto& m : o.median.medians()) {
        const double n = m.threads_per_node;
        bool measured = false;
        for (const auto& am : a.median.medians())
            measured = measured || am.threads_per_node == n;
        if (!measured)
            continue;
        out.push_back({n, o.median.seconds(n) - a.median.seconds(n),
                       o.fastest.seconds(n) - a.slowest.seconds(n),
                       o.slowest.seconds(n) - a.fastest.seconds(n)});
    }
    return out;
}

// Linear in log(threads per node) between the pass's counts, held flat beyond them.
HvoDelta delta_at(const std::vector<HvoDelta>& deltas, double threads_per_node) {
    if (threads_per_node <= deltas.front().threads_per_node)
        return deltas.front();
    if (threads_per_node >= deltas.back().threads_per_node)
        return deltas.back();
    for (std::size_t i = 1; i < deltas.size(); ++i) {
        const HvoDelta& lo = deltas[i - 1];
        const HvoDelta& hi = deltas[i];
        if (threads_per_node > hi.threads_per_node)
            continue;
        const double t = (std::log(threads_per_node) - std::log(lo.threads_per_node)) /
                         (std::log(hi.threads_per_node) - std::log(lo.threads_per_node));
        return {threads_per_node, lo.median + t * (hi.median - lo.median),
                lo.low + t * (hi.low - lo.low), lo.high + t * (hi.high - lo.high)};
    }
    return deltas.back();
}

void add_hvo_parts(BreakdownAt& b, const std::vector<HvoDelta>& deltas, double pages_per_node,
                   bool hvo_on) {
    const HvoDelta d = delta_at(deltas, b.threads_per_node);
    Estimate other{std::max(0.0, b.total.seconds + d.median * pages_per_node), std::nullopt,
                   std::nullopt};
    other.low = std::max(0.0, b.total.low.value_or(b.total.seconds) + d.low * pages_per_node);
    other.high = std::max(0.0, b.total.high.value_or(b.total.seconds) + d.high * pages_per_node);
    b.hvo_other_way = other;
    if (hvo_on)  // HVO's part: what the boot would lose without it, never below zero
        b.vmemmap = Estimate{std::max(0.0, -d.median * pages_per_node),
                             std::max(0.0, -d.high * pages_per_node),
                             std::max(0.0, -d.low * pages_per_node)};
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
            "the prediction plus the alloc phase's time per page with "
            "/proc/sys/vm/hugetlb_optimize_vmemmap " +
            std::string(w.value == "on" ? "1" : "0") +
            " minus as measured, for the pool at the same threads per node (the sweep's HVO "
            "pass; between its thread counts interpolated in log threads); the range pairs the "
            "fastest and slowest repetitions";
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
    const std::vector<HvoDelta> deltas = hvo_deltas(data);
    b.at.push_back(part_at(r, curves, zeroed_once, "recommended", r.hugepage_alloc_threads,
                           r.predicted_seconds));
    if (r.default_threads != r.hugepage_alloc_threads)
        b.at.push_back(part_at(r, curves, zeroed_once, "kernel_default", r.default_threads,
                               r.predicted_default_seconds));
    if (!deltas.empty()) {
        const bool on = data.hvo_pass->as_is;
        b.hvo = on;
        b.hvo_measured = true;
        for (auto& at : b.at)
            add_hvo_parts(at, deltas, r.pool_pages / r.nodes, on);
        b.hvo_note = on ? "measured by the sweep's HVO pass: the alloc phase with "
                          "hugetlb_optimize_vmemmap 0 against 1, for the pool; part of allocation"
                        : "HVO is off, so the boot does no vmemmap work; the sweep's HVO pass "
                          "measured what turning it on would add (the what-if row)";
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
