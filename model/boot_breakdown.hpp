// Where the predicted boot allocation's time goes, what the other setting of init_on_alloc and
// HVO would make of it, and what an application pays to fault pool pages in: arithmetic on the
// recommendation and the sweep's zero phase (docs/kernel-facts.md "What each phase does under
// init_on_alloc", "Zeroing on first fault", "HVO"). Nothing here changes a setting.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"

namespace hugetune::model {

// A predicted time with its interval: low and high are absent where none was estimated.
struct Estimate {
    double seconds = 0;
    std::optional<double> low, high;
};

// The boot allocation at one kernel value, split by the work it does.
struct BreakdownAt {
    std::string at;  // "recommended" or "kernel_default"
    int hugepage_alloc_threads = 1;
    double threads_per_node = 1;
    Estimate total;       // the recommendation's prediction
    Estimate allocation;  // total minus zeroing: buddy allocation, struct pages, HVO if on
    // The allocator's zeroing under init_on_alloc: the zero phase's rate at the same threads per
    // node, for the pool. Nothing when init_on_alloc is off (the boot zeroes nothing).
    std::optional<Estimate> zeroing;
    // The zero phase's time for the pool at these threads per node, whether or not the boot
    // zeroes: what turning init_on_alloc on would add.
    Estimate zero_phase;
    // With init_on_alloc on, false when the zero phase alone takes longer than the predicted
    // boot: the alloc phase then holds less than two zeroings and the phases do not split the
    // boot (allocation is then shown as 0 and no what-if is predicted from it).
    bool separable = true;
    // From the sweep's HVO pass (docs/sweep-format.md "HVO pass"): the prediction with HVO the
    // other way, the total times the pass's grow phase over the sweep's (1 thread per node).
    // Nothing without a pass, or where HVO on does not stand above off in grow.
    std::optional<Estimate> hvo_other_way;
    // HVO's own part of `allocation` when it was on: the total minus hvo_other_way.
    std::optional<Estimate> vmemmap;
};

struct BootBreakdown {
    bool init_on_alloc = true;
    bool init_on_alloc_assumed = false;  // unknown: taken as on, as the prediction does
    std::optional<bool> hvo;             // in force while the sweep ran; nothing: unknown
    std::vector<BreakdownAt> at;         // the recommended value, then the default if it differs
    // The sweep's HVO pass sized HVO's cost: its grow phase with HVO on stands above HVO off.
    bool hvo_measured = false;
    // With a pass that could not size it: why (the row says "not predicted: " and this).
    std::string hvo_not_predicted;
    // How the vmemmap optimisation's part was measured, or why it has none.
    std::string hvo_note;
};

// One setting the other way, predicted where the measured phases allow it; hugetune never
// applies it.
struct WhatIf {
    std::string parameter;  // kernel command line name: "init_on_alloc", "hugetlb_free_vmemmap"
    std::string value;      // what it would be set to: "0", "1", "on", "off"
    int hugepage_alloc_threads = 1;
    std::optional<Estimate> predicted;         // nothing: not measured, see `note`
    std::optional<double> memory_saved_bytes;  // HVO: struct pages freed for this pool
    std::string trade_off;                     // one line
    std::string note;                          // how it was predicted, or why not
};

// Faulting in `gib` GiB of the pool at each measured thread count of the zero phase.
struct FirstTouchRow {
    int threads_per_node = 1;
    int threads = 1;  // over every node
    Estimate time;    // the median; low/high: the fastest and slowest repetitions
};

struct FirstTouch {
    double gib = 0;
    std::vector<FirstTouchRow> rows;
    // The kernel offers per-node zeroable_hugepages: pool pages zeroed ahead are not zeroed at
    // their first fault.
    bool zeroable_hugepages = false;
};

// Nothing when the recommendation is not of a sweep's allocation (a boot table, or the alloc
// phase as measured, whose zeroing is counted twice) or the sweep has no zero phase.
std::optional<BootBreakdown> boot_breakdown(const Recommendation& r, const SweepData& data,
                                            const KernelOptions& kernel);

// init_on_alloc the other way at the recommended value, and HVO the other way.
std::vector<WhatIf> what_if_rows(const Recommendation& r, const BootBreakdown& breakdown,
                                 const KernelOptions& kernel);

// The same rows at `total_threads` for a pool of `pool_pages`: what a boot at that count with
// the setting the other way is predicted to take, by the same arithmetic, the interval scaled
// to the pool (a sweep's prediction is per page). Empty where boot_breakdown gives nothing.
std::vector<WhatIf> what_if_rows_at(const Recommendation& r, const SweepData& data,
                                    const KernelOptions& kernel, int total_threads,
                                    double pool_pages);

// Nothing without a zero phase. `gib` > 0.
std::optional<FirstTouch> first_touch(const SweepData& data, double gib,
                                      const KernelOptions& kernel);

}  // namespace hugetune::model
