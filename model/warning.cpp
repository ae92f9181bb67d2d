#include "model/warning.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "model/input/fit_input.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

constexpr std::array<std::string_view, 4> kMachineCodes = {
    "vm", "kernel_too_old", "node_format_hugepages", "gigantic_only"};

// Gigantic pages come from memblock early in boot, one after another; the threaded path is the
// buddy allocator's (docs/kernel-facts.md "Which boot pools are threaded", "Gigantic pages").
std::optional<Warning> gigantic_warning(const MachineFacts& m, std::uint64_t page_size_kb) {
    const auto gigantic = [&m](std::uint64_t kb) {
        return is_gigantic(kb, m.largest_buddy_block_kb);
    };
    const bool only_gigantic_requested =
        !m.boot_requests.empty() &&
        std::all_of(m.boot_requests.begin(), m.boot_requests.end(),
                    [&](const BootPoolRequest& r) { return gigantic(r.size_kb); });
    if (only_gigantic_requested) {
        std::vector<std::string> sizes;
        for (const auto& r : m.boot_requests)
            if (std::find(sizes.begin(), sizes.end(), page_size_text(r.size_kb)) == sizes.end())
                sizes.push_back(page_size_text(r.size_kb));
        return Warning{"gigantic_only",
                       "only gigantic (" + join(sizes) +
                           ") pages are requested at boot; they are allocated "
                           "serially early in boot and hugepage_alloc_threads= does not apply to "
                           "them."};
    }
    if (page_size_kb != 0 && gigantic(page_size_kb))
        return Warning{"gigantic_only",
                       "gigantic pages are allocated serially at boot: hugepage_alloc_threads "
                       "applies only to smaller pages"};
    return std::nullopt;
}

}  // namespace

std::vector<Warning> machine_warnings(const MachineFacts& m, std::uint64_t page_size_kb) {
    std::vector<Warning> w;
    if (m.hypervisor)
        w.push_back({"vm",
                     "measured in a virtual machine: the times include the host's work (first "
                     "touch of guest memory, the host's own page sizes); confirm on bare metal. "
                     "What no run-time measurement reproduces of the boot: docs/kernel-facts.md "
                     "\"The sweep against the boot\"."});
    if (m.supports_alloc_threads == false)
        w.push_back({"kernel_too_old", "kernel " + m.kernel_release.value_or("?") +
                                           " ignores hugepage_alloc_threads= (it needs Linux "
                                           "6.15 or later); the value takes effect only after "
                                           "a kernel upgrade."});
    for (const auto& r : m.boot_requests)
        if (r.node_format)
            w.push_back({"node_format_hugepages",
                         "the boot command line requests " + page_size_text(r.size_kb) +
                             " pages per node (hugepages=N:count): that path allocates serially "
                             "per node and ignores hugepage_alloc_threads=."});
    if (auto gigantic = gigantic_warning(m, page_size_kb))
        w.push_back(std::move(*gigantic));
    return w;
}

bool is_unfit_code(std::string_view code) {
    return std::find(kUnfitCodes.begin(), kUnfitCodes.end(), code) != kUnfitCodes.end();
}

std::string unfit_codes_text() {
    return join(kUnfitCodes);
}

bool is_machine_warning(std::string_view code) {
    return std::find(kMachineCodes.begin(), kMachineCodes.end(), code) != kMachineCodes.end();
}

}  // namespace hugetune::model
