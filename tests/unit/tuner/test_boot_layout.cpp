// The boot's split of a pool among its workers and over the nodes, held to the kernel's rules
// (docs/kernel-facts.md "Where the boot's workers run and where their pages come from"):
// padata's worker count and chunk size, its round-robin over the nodes with CPUs after the boot
// CPU's own share, and each chunk's pages from the memory nodes in turn from the first.
#include <doctest/doctest.h>

#include <numeric>

#include "tuner/sweep/boot_layout.hpp"

using namespace hugetune;
using Pages = std::vector<std::uint64_t>;

TEST_CASE("a pool the threads divide: one chunk per worker, the workers over the nodes") {
    // 1,024 pages by 8 threads on 4 nodes: min_chunk 128, 8 workers, the boot CPU's on node 0,
    // the helpers from node 1 on, round-robin.
    const BootWorkers w = boot_workers(1024, 8, {0, 1, 2, 3}, 0);
    CHECK(w.worker_nodes == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
    CHECK(w.chunk_pages == Pages(8, 128));
    CHECK(boot_node_pages(w, 4) == Pages{256, 256, 256, 256});
}

TEST_CASE("a total that is not a multiple of the nodes runs as padata runs it") {
    // 3 threads on 4 nodes: the boot CPU's node and the next two; node 3 runs no worker.
    const BootWorkers w = boot_workers(1200, 3, {0, 1, 2, 3}, 0);
    CHECK(w.worker_nodes == std::vector<int>{0, 1, 2});
    CHECK(w.chunk_pages == Pages{400, 400, 400});
    // 6 threads on 4 nodes: nodes 0 and 1 run two workers each.
    CHECK(boot_workers(1200, 6, {0, 1, 2, 3}, 0).worker_nodes ==
          std::vector<int>{0, 1, 2, 3, 0, 1});
}

TEST_CASE("a remainder is a last, smaller chunk, and each chunk starts again at the first node") {
    // 7 pages by 2 threads on 2 nodes: min_chunk 3, chunks 3, 3 and 1; node 0 gives 2 + 2 + 1.
    const BootWorkers w = boot_workers(7, 2, {0, 1}, 0);
    CHECK(w.worker_nodes == std::vector<int>{0, 1});
    CHECK(w.chunk_pages == Pages{3, 3, 1});
    CHECK(boot_node_pages(w, 2) == Pages{5, 2});
    // One interleaved stream of 7 would have given 4 and 3.
    CHECK(chunk_node_pages(7, 2) == Pages{4, 3});
}

TEST_CASE("a pool smaller than the threads: chunks of one page, every page from the first node") {
    // 6 pages by 4 threads: min_chunk 1, 4 workers, 6 chunks of one page, each taken from the
    // first memory node (a boot with hugepages=6 hugepage_alloc_threads=4 puts all on node 0).
    const BootWorkers w = boot_workers(6, 4, {0, 1}, 0);
    CHECK(w.worker_nodes.size() == 4);
    CHECK(w.chunk_pages == Pages(6, 1));
    CHECK(boot_node_pages(w, 2) == Pages{6, 0});
    // More threads than pages: min_chunk 0, as many workers as pages, chunks of one page.
    const BootWorkers tiny = boot_workers(3, 8, {0, 1}, 0);
    CHECK(tiny.worker_nodes == std::vector<int>{0, 1, 0});
    CHECK(tiny.chunk_pages == Pages(3, 1));
}

TEST_CASE("one thread: the boot CPU alone, one call over the whole pool") {
    const BootWorkers w = boot_workers(1000, 1, {0, 1, 2, 3}, 0);
    CHECK(w.worker_nodes == std::vector<int>{0});
    CHECK(w.chunk_pages == Pages{1000});
    CHECK(boot_node_pages(w, 4) == Pages{250, 250, 250, 250});
}

TEST_CASE("a memory-only node gives pages; the nodes with CPUs run the workers") {
    // A 4-node machine whose node 3 has memory and no CPUs: 15 pages by 3 threads, chunks of 5
    // over 4 memory nodes, each chunk 2, 1, 1, 1.
    const BootWorkers w = boot_workers(15, 3, {0, 1, 2}, 0);
    CHECK(w.worker_nodes == std::vector<int>{0, 1, 2});
    CHECK(chunk_node_pages(5, 4) == Pages{2, 1, 1, 1});
    CHECK(boot_node_pages(w, 4) == Pages{6, 3, 3, 3});
}

TEST_CASE("the boot CPU's node and padata's counter decide where the helpers start") {
    // Boot CPU on node 1: its share there, the helpers from node 0 (the one after 0 wraps).
    CHECK(boot_workers(8, 4, {0, 1}, 1).worker_nodes == std::vector<int>{1, 1, 0, 1});
    // An earlier NUMA-aware job that ended on node 1: the helpers start at node 0.
    CHECK(boot_workers(8, 4, {0, 1}, 0, 1).worker_nodes == std::vector<int>{0, 0, 1, 0});
}

TEST_CASE("the split loses no page and fills the nodes in the kernel's proportions") {
    for (std::uint64_t pages : {1ull, 2ull, 7ull, 100ull, 1024ull, 4099ull})
        for (std::uint64_t threads : {1ull, 2ull, 3ull, 8ull, 64ull, 5000ull})
            for (std::size_t memory : {1u, 2u, 3u, 4u}) {
                const BootWorkers w = boot_workers(pages, threads, {0, 1, 2, 3}, 0);
                CHECK(std::accumulate(w.chunk_pages.begin(), w.chunk_pages.end(), 0ull) == pages);
                CHECK(w.worker_nodes.size() <= threads);
                CHECK(w.worker_nodes.size() <= std::max<std::uint64_t>(pages, 1));
                const Pages nodes = boot_node_pages(w, memory);
                CHECK(std::accumulate(nodes.begin(), nodes.end(), 0ull) == pages);
                // The first node never gives fewer than a later one.
                for (std::size_t i = 1; i < nodes.size(); ++i)
                    CHECK(nodes[0] >= nodes[i]);
            }
}
