// After the reboot: did the kernel use the applied hugepage_alloc_threads=, and how long did
// the boot allocation take compared with the prediction? Pure functions over the kernel log
// and command line; the command gathers them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tuner/kernel/boot_log.hpp"

namespace hugetune::boot {

struct VerifyInput {
    std::vector<std::string> log;          // this boot's kernel messages
    std::string cmdline;                   // /proc/cmdline
    std::optional<std::string> release;    // running kernel
    std::optional<std::uint64_t> applied;  // the value hugetune applied (ledger or report)
    std::optional<double> predicted_ms;    // the report's prediction at that value
};

struct VerifyResult {
    bool verified = false;
    std::optional<BootAllocationLine> line;
    std::optional<std::string> cmdline_value;  // hugepage_alloc_threads= on /proc/cmdline
    std::optional<double> ratio;               // measured / predicted
    std::vector<std::string> problems;         // why not verified, one sentence each
    std::vector<std::string> notes;
};

VerifyResult verify_boot(const VerifyInput& input);

// Why the allocation line is missing, the most specific reason first.
std::vector<std::string> missing_line_reasons(const VerifyInput& input);

}  // namespace hugetune::boot
