#include "tuner/sweep/boot_layout.hpp"

#include <algorithm>

namespace hugetune {
namespace {

// next_node_in(): the next id of `nodes` after `node`, wrapping to the first.
int next_node_in(int node, const std::vector<int>& nodes) {
    auto it = std::upper_bound(nodes.begin(), nodes.end(), node);
    return it == nodes.end() ? nodes.front() : *it;
}

}  // namespace

// mm/hugetlb.c hugetlb_pages_alloc_boot(): size = pages, max_threads = threads,
// min_chunk = pages / threads, align = 1. kernel/padata.c padata_do_multithreaded():
// nworks = min(max(size / max(min_chunk, align), 1), max_threads); chunk_size =
// max(size / (nworks * 4), min_chunk), which is min_chunk whenever there is more than one worker.
BootWorkers boot_workers(std::uint64_t pages, std::uint64_t threads,
                         const std::vector<int>& cpu_nodes, int boot_node, int last_used_node) {
    BootWorkers out;
    threads = std::max<std::uint64_t>(threads, 1);
    const std::uint64_t min_chunk = pages / threads;
    const std::uint64_t workers = std::min(
        std::max<std::uint64_t>(pages / std::max<std::uint64_t>(min_chunk, 1), 1), threads);
    out.worker_nodes.push_back(boot_node);
    int node = last_used_node;
    for (std::uint64_t w = 1; w < workers && !cpu_nodes.empty(); ++w) {
        node = next_node_in(node, cpu_nodes);
        out.worker_nodes.push_back(node);
    }
    // One worker runs the whole job as one call (padata's "cut to the chase").
    const std::uint64_t chunk =
        workers == 1 ? pages
                     : std::max(pages / (workers * 4), std::max<std::uint64_t>(min_chunk, 1));
    for (std::uint64_t done = 0; done < pages; done += chunk)
        out.chunk_pages.push_back(std::min(chunk, pages - done));
    return out;
}

std::vector<std::uint64_t> chunk_node_pages(std::uint64_t chunk_pages, std::size_t memory_nodes) {
    std::vector<std::uint64_t> counts(memory_nodes, 0);
    if (memory_nodes == 0)
        return counts;
    for (std::size_t i = 0; i < memory_nodes; ++i)
        counts[i] = chunk_pages / memory_nodes + (i < chunk_pages % memory_nodes ? 1 : 0);
    return counts;
}

std::vector<std::uint64_t> boot_node_pages(const BootWorkers& workers, std::size_t memory_nodes) {
    std::vector<std::uint64_t> total(memory_nodes, 0);
    for (std::uint64_t chunk : workers.chunk_pages) {
        auto counts = chunk_node_pages(chunk, memory_nodes);
        for (std::size_t i = 0; i < memory_nodes; ++i)
            total[i] += counts[i];
    }
    return total;
}

}  // namespace hugetune
