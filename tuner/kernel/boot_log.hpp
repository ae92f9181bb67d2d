// The kernel's own account of the boot allocation, read from its log: the one place that
// knows the wording of the boot messages hugetune reads (docs/kernel-facts.md "The boot
// allocation log line", "What a boot log says about itself").
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
    // Which of several lines this is and why it was taken (allocation_line_for_pool); empty when
    // the log holds only this one.
    std::string chosen;
};

// Every such line, in log order; lines whose numbers do not fit 64 bits are passed over.
std::vector<BootAllocationLine> find_boot_allocation_lines(const std::vector<std::string>& log);

// "HugeTLB: registered 2.00 MiB page size, pre-allocated 8192 pages": one per page size, after
// the allocation lines, in the same order of sizes.
struct RegisteredPool {
    std::uint64_t size_kb = 0;
    std::uint64_t pages = 0;
};
std::vector<RegisteredPool> find_registered_pools(const std::vector<std::string>& log);

// "HugeTLB: allocating 385920 of page size 2.00 MiB failed.  Only allocated 385296 hugepages.":
// the boot got fewer pages of a size than the command line asked for (mm/hugetlb.c,
// hugetlb_hstate_alloc_pages_errcheck(), after the allocation line of that size). The per-node
// form ("failed node1.") is not of a threaded pool and is not listed.
struct PoolShortfall {
    std::uint64_t size_kb = 0;
    std::uint64_t asked_pages = 0;
    std::uint64_t allocated_pages = 0;
    std::string text;
};
std::vector<PoolShortfall> find_pool_shortfalls(const std::vector<std::string>& log);

// "HugeTLB: 28 KiB vmemmap can be freed for a 2.00 MiB page": what HVO frees per page of a size
// when it is on (mm/hugetlb.c report_hugepages(), logged whether HVO is on or off; 0 where the
// kernel cannot optimise that size).
struct VmemmapFreeable {
    std::uint64_t size_kb = 0;
    std::uint64_t kib_per_page = 0;
};
std::vector<VmemmapFreeable> find_vmemmap_freeable(const std::vector<std::string>& log);

// What one boot's log says about that boot; nothing for what it does not say.
struct BootLogContext {
    std::optional<std::string> release;  // "Linux version <release> ..."
    std::optional<std::string> cmdline;  // "Command line: <cmdline>"
    std::optional<bool> init_on_alloc;   // "mem auto-init: ..., heap alloc:on|off, ..."
    std::optional<int> online_nodes;     // "smp: Brought up <nodes> nodes, <n> CPUs"
    std::optional<int> online_cpus;      // "smp: Brought up <n> nodes, <cpus> CPUs"
};
BootLogContext read_boot_log_context(const std::vector<std::string>& boot);

// The allocation line of the pool of `size_kb` pages: lines are paired with the non-gigantic
// registered sizes in order (all of them, or on kernels that log only non-empty pools, the
// non-empty ones). Nothing when the pool's line is missing or the pool is empty (its 0 ms line
// measures nothing). Without registered lines to pair with: the only line, else the only one
// above 0 ms, else the last.
// `largest_buddy_block_kb`: the booted kernel's, which says which sizes are gigantic.
std::optional<BootAllocationLine> allocation_line_for_pool(const std::vector<std::string>& boot,
                                                           std::uint64_t size_kb,
                                                           std::uint64_t largest_buddy_block_kb);

}  // namespace hugetune
