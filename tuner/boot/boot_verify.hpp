// After the reboot: did the kernel use the applied hugepage_alloc_threads=, and how long did
// the boot allocation take compared with the prediction? Pure functions over the kernel log
// and command line; the command gathers them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/errors.hpp"
#include "model/page_sizes.hpp"
#include "model/warning.hpp"
#include "tuner/kernel/boot_log.hpp"

namespace hugetune::boot {

// Why a boot is not verified, or why its time is not compared: a stable code and a sentence.
using Problem = model::Warning;

// A report's prediction and what it was made for.
struct ReportPrediction {
    double predicted_ms = 0;
    std::uint64_t threads = 0;  // the recommended hugepage_alloc_threads
    std::optional<std::uint64_t> pool_pages;
    std::optional<std::uint64_t> page_size_kb;
    std::optional<bool> init_on_alloc;
};

struct VerifyInput {
    // One boot's kernel messages, as KernelLogReader keeps them (the last boot of a log).
    std::vector<std::string> log;
    std::uint64_t log_left_out = 0;  // messages of that boot past the reader's bounds
    // Why no message could be read, when none was: where the log was looked for.
    std::string log_unread = "reading /dev/kmsg needs root; journalctl -k -b needs journald";
    std::string cmdline;                   // the kernel command line given for that boot
    std::optional<std::string> release;    // the booted kernel, where the log does not say
    std::optional<int> online_cpus;        // the booted machine's, where the log does not say
    std::optional<int> online_nodes;       // the booted machine's, where the log does not say
    std::optional<std::uint64_t> applied;  // the value hugetune applied (ledger or report)
    std::optional<ReportPrediction> prediction;
    // The booted kernel's default huge page size and largest buddy block (the machine's: a log
    // does not say them).
    model::PageSizeFacts page_sizes;
    // /proc/sys/vm/hugetlb_optimize_vmemmap now, for a boot whose command line does not set HVO
    // (this machine's own boot only: a saved log's machine may differ).
    std::optional<bool> hvo_now;
    // How the problems' fixes name the option that gives a saved log ("log"): the command
    // line's flag.
    SettingWords words;
};

// The pool the kernel allocated with the threads.
struct BootedPool {
    std::uint64_t pages = 0;
    std::uint64_t page_size_kb = 0;
    std::optional<bool> init_on_alloc;  // zeroed while allocating (unknown: nothing)
};

struct VerifyResult {
    bool verified = false;
    std::optional<BootAllocationLine> line;
    std::optional<std::string> cmdline_value;  // hugepage_alloc_threads= on the command line
    std::optional<std::string> release;        // the booted kernel: the log's, else the input's
    std::optional<BootedPool> pool;
    // Why the pool's allocation line is missing, the most specific reason (also in `problems`).
    std::optional<Problem> line_absent;
    std::optional<bool> init_on_alloc;        // as booted: the log's, else the command line's
    std::optional<bool> hvo;                  // as booted: the command line's, else hvo_now
    std::optional<double> pool_predicted_ms;  // the prediction rescaled to `pool`
    std::optional<double> ratio;              // measured / pool_predicted_ms
    std::optional<Problem> ratio_refused;     // why there is no ratio despite a prediction
    std::vector<Problem> problems;            // why not verified
};

VerifyResult verify_boot(const VerifyInput& input);

}  // namespace hugetune::boot
