// After the reboot: did the kernel use the applied hugepage_alloc_threads=, and how long did
// the boot allocation take compared with the prediction? Pure functions over the kernel log
// and command line; the command gathers them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hugetune::verify {

// "HugeTLB: allocation took <ms>ms with hugepage_allocation_threads=<n>" (mm/hugetlb.c,
// Linux 6.15 and later; hugepage_alloc_threads= accepted too). The last one in the log.
struct AllocationLine {
    std::uint64_t milliseconds = 0;
    std::uint64_t threads = 0;
    std::string text;
};
std::optional<AllocationLine> find_allocation_line(const std::vector<std::string>& log);

struct VerifyInput {
    std::vector<std::string> log;          // this boot's kernel messages
    std::string cmdline;                   // /proc/cmdline
    std::optional<std::string> release;    // running kernel
    std::optional<std::uint64_t> applied;  // the value hugetune applied (ledger or report)
    std::optional<double> predicted_ms;    // the report's prediction at that value
};

struct VerifyResult {
    bool verified = false;
    std::optional<AllocationLine> line;
    std::optional<std::string> cmdline_value;  // hugepage_alloc_threads= on /proc/cmdline
    std::optional<double> ratio;               // measured / predicted
    std::vector<std::string> problems;         // why not verified, one sentence each
    std::vector<std::string> notes;
};

VerifyResult verify_boot(const VerifyInput& input);

// Why the allocation line is missing, the most specific reason first.
std::vector<std::string> missing_line_reasons(const VerifyInput& input);

}  // namespace hugetune::verify
