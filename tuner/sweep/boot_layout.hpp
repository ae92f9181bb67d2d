// How the kernel's threaded boot allocation splits a pool among its workers and over the nodes
// (docs/kernel-facts.md "Where the boot's workers run and where their pages come from"), as
// pure functions of the pool, the thread count and the nodes. The sweep's boot placement runs
// its threads and takes its pages by this layout; the unit tests hold it to the kernel's rules.
#pragma once

#include <cstdint>
#include <vector>

namespace hugetune {

// The workers of one threaded boot allocation and the chunks they share.
struct BootWorkers {
    // The node each worker runs on; worker 0 is the share the boot CPU runs itself.
    std::vector<int> worker_nodes;
    // The chunks in the order the workers take them from the shared counter.
    std::vector<std::uint64_t> chunk_pages;
};

// `pages` allocated by `threads` (hugepage_alloc_threads=, a total): padata starts
// min(threads, pages / max(pages / threads, 1)) workers (at least one), the first on the boot
// CPU's node `boot_node`, the others round-robin over `cpu_nodes` (ascending ids) starting after
// `last_used_node` (the node of the previous NUMA-aware padata job; 0 at boot); every chunk but
// the last holds max(pages / threads, 1) pages.
BootWorkers boot_workers(std::uint64_t pages, std::uint64_t threads,
                         const std::vector<int>& cpu_nodes, int boot_node, int last_used_node = 0);

// Page i of a chunk comes from the (i mod n)-th of the n memory nodes: each chunk starts again at
// the first. The pages of one chunk on each memory node, in the order of the nodes.
std::vector<std::uint64_t> chunk_node_pages(std::uint64_t chunk_pages, std::size_t memory_nodes);

// The pages of the whole allocation on each of the `memory_nodes` memory nodes, in their order.
std::vector<std::uint64_t> boot_node_pages(const BootWorkers& workers, std::size_t memory_nodes);

}  // namespace hugetune
