// What a kernel command line asks of the boot-time huge page pool, as far as the threaded
// allocation behind hugepage_alloc_threads= is concerned (docs/kernel-facts.md "Which boot
// pools are threaded").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/page_sizes.hpp"
#include "model/warning.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune {

// The boot pool requested on the command line for one page size.
struct BootRequest {
    std::uint64_t size_kb = 0;
    std::uint64_t pages = 0;   // total requested
    bool node_format = false;  // hugepages=0:512,1:512: serial per-node path, no threads
};

// Every hugepages= request of `cmdline` with its page size: hugepagesz= applies to the
// hugepages= after it, default_hugepagesz= (else `default_kb`) to one before any; a request
// with a count that does not parse is left out; a later one for a size replaces an earlier one.
std::vector<BootRequest> read_boot_requests(const KernelCmdline& cmdline, std::uint64_t default_kb);

// The pool the boot threads allocate: a plain hugepages=N of a size `sizes` does not call
// gigantic (docs/kernel-facts.md "Which boot pools are threaded", "Gigantic pages"); of several
// (arm64 has more than one non-gigantic size), the one of `preferred_kb`, else the first.
std::optional<BootRequest> threaded_request(const std::vector<BootRequest>& requests,
                                            const model::PageSizeFacts& sizes,
                                            std::optional<std::uint64_t> preferred_kb = {});

struct BootPoolFacts {
    bool pool_requested = false;  // some hugepages=N with N > 0
    bool node_format = false;     // hugepages=0:512,1:512 for a non-gigantic size
    bool only_gigantic = false;   // every requested pool is of gigantic pages
    bool threaded_pool = false;   // a non-gigantic pool in the plain format: the threaded path
};

// The command line's boot pools on a kernel with `sizes`.
BootPoolFacts boot_pool_facts(const KernelCmdline& cmdline, const model::PageSizeFacts& sizes);

// Why the parameter would have no effect with this command line and kernel release, each with
// its code: "kernel_too_old", "no_boot_pool", "gigantic_only", "node_format_hugepages".
std::vector<model::Warning> alloc_threads_problems(const BootPoolFacts& facts,
                                                   const std::optional<std::string>& release);

// The same problems' sentences; empty when the parameter applies.
std::vector<std::string> alloc_threads_caveats(const BootPoolFacts& facts,
                                               const std::optional<std::string>& release);

}  // namespace hugetune
