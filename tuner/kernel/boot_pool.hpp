// What a kernel command line asks of the boot-time huge page pool, as far as the threaded
// allocation behind hugepage_alloc_threads= is concerned (docs/kernel-facts.md "Which boot
// pools are threaded").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/kernel/cmdline.hpp"

namespace hugetune {

struct BootPoolFacts {
    bool pool_requested = false;  // some hugepages=N with N > 0
    bool node_format = false;     // hugepages=0:512,1:512 for a non-gigantic size
    bool only_gigantic = false;   // every requested pool is of gigantic pages
    bool threaded_pool = false;   // a non-gigantic pool in the plain format: the threaded path
};

BootPoolFacts boot_pool_facts(const KernelCmdline& cmdline);

// Why the parameter would have no effect with this command line and kernel release (one
// sentence each); empty when it applies.
std::vector<std::string> alloc_threads_caveats(const BootPoolFacts& facts,
                                               const std::optional<std::string>& release);

// "6.14.2-300.fc42.x86_64": whether it is 6.15 or later; nothing when it cannot be read.
std::optional<bool> release_honours_alloc_threads(const std::string& release);

}  // namespace hugetune
