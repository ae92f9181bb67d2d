// The kernel's own account of the boot allocation, read from its log: the one place that
// knows the line's wording (docs/kernel-facts.md "The boot allocation log line").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hugetune {

// "HugeTLB: allocation took <ms>ms with hugepage_allocation_threads=<n>" (mm/hugetlb.c,
// Linux 6.15 and later; hugepage_alloc_threads= accepted too).
struct BootAllocationLine {
    std::uint64_t milliseconds = 0;
    std::uint64_t threads = 0;
    std::string text;
};

// The last such line in `log`; lines whose numbers do not fit 64 bits are passed over.
std::optional<BootAllocationLine> find_boot_allocation_line(const std::vector<std::string>& log);

}  // namespace hugetune
