// Which measured series stands for the per-page cost of boot allocation, and how to build it.
//
// The boot takes each page from the buddy allocator and, with init_on_alloc in force, zeroes it
// there, once. The sweep's phases each do part of that (docs/kernel-facts.md "What each phase
// does under init_on_alloc"):
//   alloc: a surplus fault: allocation, the allocator's zeroing when init_on_alloc is on, and
//          the fault's own zeroing, which the boot never does;
//   zero:  a fault on a pool page: the fault's zeroing alone;
//   grow:  a write to nr_hugepages: allocation and, with init_on_alloc, one zeroing: the boot's
//          work per page, in one thread.
// So under either setting the boot's work at N threads is alloc minus zero, and grow measures it
// directly at N = 1.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "model/errors.hpp"
#include "model/input/fit_input.hpp"
#include "model/warning.hpp"

namespace hugetune::model {

enum class CostBasis {
    boot_table,         // a table of whole-boot times: its own curve
    alloc_and_zero,     // the alloc phase as measured: nothing to subtract; overstates the boot
    alloc_zeroed_once,  // init_on_alloc on (or unknown): alloc minus zero, grow at N = 1
    alloc_only,         // init_on_alloc off: alloc minus zero, grow at N = 1
    alloc_only_flat,    // init_on_alloc off, alloc minus zero lost in the noise: grow held flat
};

// The basis as a machine field holds it: "boot_table", "alloc_and_zero", "alloc_zeroed_once",
// "alloc_only", "alloc_only_flat" (the `fit` document's `cost_basis`).
std::string to_string(CostBasis basis);

// The same for people, a clause: "allocation zeroed once (init_on_alloc on): alloc minus zero"
// (the `fit` document's `cost_basis_text` and the summaries).
std::string describe(CostBasis basis);

// The name of the curve a basis fits, as the report gives it.
std::string curve_name(CostBasis basis);

struct BasisChoice {
    CostBasis basis = CostBasis::boot_table;
    const PhaseSeries* main = nullptr;  // boot or alloc series
    const PhaseSeries* zero = nullptr;  // subtracted from alloc
    const PhaseSeries* grow = nullptr;  // anchors N = 1
    // The counts above 1 at which alloc stands above zero (shown_above on their repetitions,
    // per page, model/fit/noise_test.hpp): only there is the difference the boot's work and not
    // noise.
    std::vector<double> separable_counts;
    std::vector<std::string> notes;
    std::vector<Warning> warnings;
};

BasisChoice choose_basis(const SweepData& data, const SettingWords& words = {});

// The boot's work per page at each N, in seconds: alloc minus zero at the `counts` given (the
// separable ones), and grow at N = 1 where it was measured (else alloc minus zero there too, when
// 1 is among `counts`). A difference that is not positive in a resample is noise there: that
// point is dropped, and `dropped` counts it. One point per N.
std::vector<Point> boot_work_points(std::span<const Point> alloc, double alloc_pages,
                                    std::span<const Point> zero, double zero_pages,
                                    std::span<const Point> grow, double grow_pages,
                                    std::span<const double> counts, int* dropped = nullptr);

// The counts at which the alloc phase's repetitions stand above the zero phase's, per page: by
// the rank test, or from two samples a side by the test on the noise pooled over both phases.
std::vector<double> separable_counts(std::span<const Point> alloc, double alloc_pages,
                                     std::span<const Point> zero, double zero_pages);

}  // namespace hugetune::model
