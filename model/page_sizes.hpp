// What a kernel's huge page sizes mean for the boot's threads (docs/kernel-facts.md "Gigantic
// pages"): the one rule for which sizes are gigantic, asked by the probe, the sweep's plan,
// the boot pool's reading of a command line, the pairing of boot log lines with sizes, and the
// report's warnings.
#pragma once

#include <cstdint>

namespace hugetune::model {

// A size above the buddy allocator's largest block is gigantic: the boot takes such pages from
// memblock one after another (no threads, no allocation line), and the kernel refuses surplus
// pages of that size.
constexpr bool is_gigantic(std::uint64_t size_kb, std::uint64_t largest_buddy_block_kb) {
    return size_kb > largest_buddy_block_kb;
}

// The buddy allocator of one kernel: its base page and its largest order (MAX_PAGE_ORDER).
struct BuddyAllocator {
    std::uint64_t base_page_kb = 4;
    int max_page_order = 10;

    constexpr std::uint64_t largest_block_kb() const { return base_page_kb << max_page_order; }
};

// x86-64's: 4 KiB pages and MAX_PAGE_ORDER 10, so 4 MiB blocks and 1 GiB pages gigantic. What a
// report written before reports recorded the largest block was measured with (all were x86-64).
inline constexpr BuddyAllocator kX86_64BuddyAllocator{4, 10};

// The largest buddy block of the kernels hugetune runs on: arm64 with 64 KiB pages, whose
// MAX_PAGE_ORDER is 13 (512 MiB). No page size above it is ever allocated by the boot threads.
inline constexpr std::uint64_t kLargestKnownBuddyBlockKb =
    BuddyAllocator{64, 13}.largest_block_kb();

// x86-64's default huge page size, where neither default_hugepagesz= nor the kernel says.
inline constexpr std::uint64_t kX86_64DefaultHugePageKb = 2048;

// What a command line's pools mean on the kernel it boots: the size a hugepages= before any
// hugepagesz= takes, and which sizes the boot threads allocate.
struct PageSizeFacts {
    std::uint64_t default_size_kb = kX86_64DefaultHugePageKb;  // /proc/meminfo Hugepagesize
    std::uint64_t largest_buddy_block_kb = kX86_64BuddyAllocator.largest_block_kb();

    constexpr bool gigantic(std::uint64_t size_kb) const {
        return is_gigantic(size_kb, largest_buddy_block_kb);
    }
};

}  // namespace hugetune::model
