// Which measured series stands for the per-page cost of boot allocation, and how to build it.
#pragma once

#include <string>
#include <vector>

#include "model/input/fit_input.hpp"
#include "model/warning.hpp"

namespace hugetune::model {

enum class CostBasis {
    boot_table,      // a table of whole-boot times: its own curve
    alloc_and_zero,  // init_on_alloc in force: boot allocates and zeroes (the alloc phase)
    alloc_only,      // init_on_alloc off: alloc minus zero, grow at N = 1
};

std::string to_string(CostBasis basis);

struct BasisChoice {
    CostBasis basis = CostBasis::boot_table;
    const PhaseSeries* main = nullptr;  // boot or alloc series
    const PhaseSeries* zero = nullptr;  // alloc_only: subtracted
    const PhaseSeries* grow = nullptr;  // alloc_only: anchors N = 1
    std::vector<std::string> notes;
    std::vector<Warning> warnings;
};

BasisChoice choose_basis(const SweepData& data);

// Allocation alone per N, in seconds per page:
// boot without init_on_alloc does not zero, but at N > 1 that cost is only measurable as the
// difference of the alloc phase (alloc + zero) and the zero phase; at N = 1 the grow phase
// measures it directly: growing nr_hugepages allocates in the writer's thread, and only a first
// fault zeroes (docs/kernel-facts.md "Growing a pool through nr_hugepages", "Zeroing on first
// fault"). Points whose difference is not positive are noise and are dropped; `dropped` counts
// them. One point per N.
std::vector<Point> allocation_only_points(std::span<const Point> alloc, double alloc_pages,
                                          std::span<const Point> zero, double zero_pages,
                                          std::span<const Point> grow, double grow_pages,
                                          int* dropped = nullptr);

}  // namespace hugetune::model
