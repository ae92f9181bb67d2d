#include "tuner/sweep/phases.hpp"

#include <algorithm>
#include <atomic>
#include <map>

#include "model/errors.hpp"
#include "tuner/sweep/pool_state.hpp"
#include "tuner/system/test_hold.hpp"

namespace hugetune {
namespace {

// Reads one per-node counter of the swept page size; a missing file mid-sweep is a failure.
std::uint64_t node_counter(const KernelFs& fs, int node, std::uint64_t size_kb, const char* name) {
    auto file = node_pool_dir(node, size_kb) + "/" + name;
    auto v = fs.read_u64(file);
    if (!v)
        throw RuntimeError("cannot read " + file);
    return *v;
}

std::uint64_t pool_counter(const KernelFs& fs, std::uint64_t size_kb, const char* name) {
    auto file = pool_dir(size_kb) + "/" + name;
    auto v = fs.read_u64(file);
    if (!v)
        throw RuntimeError("cannot read " + file);
    return *v;
}

}  // namespace

struct ChunkQueue {
    std::vector<HugeMapping> chunks;
    std::atomic<std::size_t> next{0};
    std::vector<std::vector<std::size_t>> taken;  // per worker, the chunks it faulted
};

PhaseRunner::PhaseRunner(const KernelFs& fs, const SweepPlan& plan, const Binder& binder,
                         std::uint64_t saved_overcommit)
    : fs_(fs), plan_(plan), binder_(binder), saved_overcommit_(saved_overcommit) {}

bool PhaseRunner::boot_placement() const {
    return plan_.options.placement == Placement::boot;
}

// The nodes whose counters a repetition reads: those its pages come from.
std::vector<int> PhaseRunner::counter_nodes() const {
    return boot_placement() ? plan_.memory_node_ids() : plan_.node_ids();
}

// Boot placement grows each memory node by the most any planned count takes from it.
std::vector<std::string> PhaseRunner::grow_zero_pool() {
    std::vector<std::string> warnings;
    const auto nodes = counter_nodes();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const int node = nodes[i];
        const std::uint64_t pages =
            boot_placement() ? plan_.memory_nodes[i].zero_pool_pages : plan_.pages_per_node;
        auto file = node_pool_dir(node, plan_.page_size_kb) + "/nr_hugepages";
        std::uint64_t base = node_counter(fs_, node, plan_.page_size_kb, "nr_hugepages");
        fs_.write_u64(file, base + pages);
        std::uint64_t now = node_counter(fs_, node, plan_.page_size_kb, "nr_hugepages");
        if (now < base + pages)
            warnings.push_back("node " + std::to_string(node) + ": the pool grew by only " +
                               std::to_string(now - std::min(now, base)) + " of " +
                               std::to_string(pages) + " pages (memory fragmented or in use)");
    }
    return warnings;
}

PhaseRepetition PhaseRunner::run(Phase phase, int threads_per_node) {
    switch (phase) {
        case Phase::zero:
            return run_faults(threads_per_node, /*fresh_pages=*/false);
        case Phase::alloc:
            return run_faults(threads_per_node, /*fresh_pages=*/true);
        case Phase::grow:
            return boot_placement() ? run_boot_grow() : run_grow();
    }
    throw RuntimeError("internal: unknown phase");
}

namespace {

// How far each node's counter moved: up for surplus (alloc), down for free (zero), up for
// nr_hugepages (grow).
std::vector<std::uint64_t> counter_moves(const std::vector<int>& nodes, const NodeCounts& before,
                                         const NodeCounts& after, bool rises) {
    std::vector<std::uint64_t> moved;
    for (int n : nodes) {
        std::uint64_t was = before.at(n), now = after.at(n);
        moved.push_back(rises ? (now > was ? now - was : 0) : (was > now ? was - now : 0));
    }
    return moved;
}

// Pages each node lacks after a fault repetition: the fewer of what its threads faulted and what
// its counter moved by (surplus rises, free falls, on the node the pages really came from).
std::uint64_t fault_shortfall(const SweepPlan& plan, const TimedRun& run, int threads_per_node,
                              const NodeCounts& before, const NodeCounts& after, bool fresh_pages) {
    const auto per_node = static_cast<std::size_t>(threads_per_node);
    const auto by_counter = counter_moves(plan.node_ids(), before, after, fresh_pages);
    std::uint64_t shortfall = 0;
    for (std::size_t ni = 0; ni < plan.nodes.size(); ++ni) {
        std::uint64_t by_threads = 0;
        for (std::size_t t = 0; t < per_node; ++t)
            by_threads += run.threads[ni * per_node + t].pages;
        std::uint64_t got = std::min(by_threads, by_counter[ni]);
        if (got < plan.pages_per_node)
            shortfall += plan.pages_per_node - got;
    }
    return shortfall;
}

// Boot placement: pages not obtained at all, or, if more, pages a memory node gave fewer of than
// the boot's split takes from it (the kernel fell back to another node).
std::uint64_t boot_shortfall(const TimedRun& run, std::uint64_t sample_pages,
                             const std::vector<std::uint64_t>& expected,
                             const std::vector<std::uint64_t>& got) {
    std::uint64_t by_threads = 0;
    for (const auto& t : run.threads)
        by_threads += t.pages;
    std::uint64_t missing = sample_pages > by_threads ? sample_pages - by_threads : 0;
    std::uint64_t misplaced = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
        misplaced += expected[i] > got[i] ? expected[i] - got[i] : 0;
    return std::max(missing, misplaced);
}

}  // namespace

// Boot placement (docs/kernel-facts.md "The sweep against the boot"): the kernel's split of the
// sample at this count. Each chunk is a mapping of its own, interleaved over the memory nodes from
// the first, as each call of the boot's worker function starts again at the first node; worker w
// runs on a CPU of worker_nodes[w] and takes chunks from one shared counter until none is left,
// as padata's helpers do. Mappings are made and bound before the clock starts.
std::vector<ThreadTask> PhaseRunner::boot_fault_tasks(int threads_per_node, bool fresh_pages,
                                                      ChunkQueue& queue) const {
    const BootWorkers split = plan_.boot_split(threads_per_node);
    const std::uint64_t page_bytes = plan_.page_bytes;
    const std::vector<int> memory = plan_.memory_node_ids();
    for (std::uint64_t pages : split.chunk_pages) {
        HugeMapping chunk;
        try {
            chunk = HugeMapping(pages, page_bytes, /*reserve=*/!fresh_pages);
        } catch (const RuntimeError&) {
            // no pages to reserve: the chunk stays empty, a shortfall
        }
        binder_.interleave_area(chunk.data(), chunk.bytes(), memory);
        queue.chunks.push_back(std::move(chunk));
    }
    queue.taken.assign(split.worker_nodes.size(), {});
    std::map<int, std::size_t> on_node;  // workers placed on each node so far
    std::vector<ThreadTask> tasks(split.worker_nodes.size());
    for (std::size_t w = 0; w < tasks.size(); ++w) {
        const NodePlan& node = plan_.node(split.worker_nodes[w]);
        tasks[w].cpu = node.cpus[on_node[node.node]++ % node.cpus.size()];
        tasks[w].prepare = [&queue, w] { queue.taken[w].reserve(queue.chunks.size()); };
        tasks[w].work = [&queue, w, page_bytes] {
            std::uint64_t pages = 0;
            for (std::size_t i = queue.next.fetch_add(1); i < queue.chunks.size();
                 i = queue.next.fetch_add(1)) {
                queue.taken[w].push_back(i);
                pages += fault_pages(queue.chunks[i], page_bytes);
            }
            return pages;
        };
        tasks[w].finish = [&queue, w] {
            for (std::size_t i : queue.taken[w])
                queue.chunks[i].reset();
        };
    }
    return tasks;
}

// Thread t of node ni is task ni * threads_per_node + t and faults mappings[that index].
std::vector<ThreadTask> PhaseRunner::fault_tasks(int threads_per_node, bool fresh_pages,
                                                 std::vector<HugeMapping>& mappings) const {
    const std::uint64_t page_bytes = plan_.page_bytes;
    std::vector<ThreadTask> tasks(mappings.size());
    for (std::size_t ni = 0; ni < plan_.nodes.size(); ++ni) {
        const NodePlan& node = plan_.nodes[ni];
        for (int t = 0; t < threads_per_node; ++t) {
            std::size_t k =
                ni * static_cast<std::size_t>(threads_per_node) + static_cast<std::size_t>(t);
            std::uint64_t pages = pages_for_thread(plan_.pages_per_node, threads_per_node, t);
            ThreadTask& task = tasks[k];
            task.cpu = node.cpus[static_cast<std::size_t>(t)];
            task.prepare = [this, &mappings, k, pages, page_bytes, fresh_pages, &node] {
                try {
                    mappings[k] = HugeMapping(pages, page_bytes, /*reserve=*/!fresh_pages);
                } catch (const RuntimeError&) {
                    return;  // no pages to reserve: the thread gets none, a shortfall
                }
                binder_.bind_area(mappings[k].data(), mappings[k].bytes(), node.node);
            };
            task.work = [&mappings, k, page_bytes] { return fault_pages(mappings[k], page_bytes); };
            task.finish = [&mappings, k] { mappings[k].reset(); };
        }
    }
    return tasks;
}

NodeCounts PhaseRunner::read_node_counters(const char* name) const {
    NodeCounts counts;
    for (int n : counter_nodes())
        counts[n] = node_counter(fs_, n, plan_.page_size_kb, name);
    return counts;
}

// zero: pool pages the sweep added, reserved at mmap(), so each fault only zeroes.
// alloc: MAP_NORESERVE, no free pool page available, overcommit raised by exactly the
// sample: each fault allocates a fresh surplus page from the buddy allocator in the
// faulting thread (in parallel, without the resize lock) and zeroes it (docs/kernel-facts.md
// "Surplus pages on fault").
PhaseRepetition PhaseRunner::run_faults(int threads_per_node, bool fresh_pages) {
    NodeCounts before, after;
    PhaseRepetition rep;
    if (boot_placement()) {
        ChunkQueue queue;
        std::vector<ThreadTask> tasks = boot_fault_tasks(threads_per_node, fresh_pages, queue);
        rep.run = time_faults(tasks, fresh_pages, before, after);
        const auto memory = plan_.memory_node_ids();
        rep.node_pages = counter_moves(memory, before, after, fresh_pages);
        rep.shortfall_pages = boot_shortfall(
            rep.run, plan_.sample_pages(), plan_.boot_node_pages(threads_per_node), rep.node_pages);
        return rep;
    }
    std::vector<HugeMapping> mappings(plan_.nodes.size() *
                                      static_cast<std::size_t>(threads_per_node));
    std::vector<ThreadTask> tasks = fault_tasks(threads_per_node, fresh_pages, mappings);
    rep.run = time_faults(tasks, fresh_pages, before, after);
    rep.shortfall_pages =
        fault_shortfall(plan_, rep.run, threads_per_node, before, after, fresh_pages);
    return rep;
}

TimedRun PhaseRunner::time_faults(std::vector<ThreadTask>& tasks, bool fresh_pages,
                                  NodeCounts& before, NodeCounts& after) {
    // alloc: a mapping that reserves every free, unreserved pool page (ours and other
    // people's) makes the kernel skip the pool (available = free - reserved = 0), so faults
    // take surplus pages and never a page someone else's pool holds.
    HugeMapping placeholder;
    if (fresh_pages) {
        placeholder = reserve_free_pool();
        fs_.write_u64(pool_dir(plan_.page_size_kb) + "/nr_overcommit_hugepages",
                      saved_overcommit_ + plan_.sample_pages());
    }
    const char* counter = fresh_pages ? "surplus_hugepages" : "free_hugepages";
    TimedRun run;
    try {
        run = run_timed(
            binder_, tasks, [&] { before = read_node_counters(counter); },
            [&] {
                after = read_node_counters(counter);
                test_hold_point(fresh_pages ? kHoldAllocFaulted : kHoldZeroFaulted);
            });
    } catch (...) {
        if (fresh_pages)
            lower_overcommit();
        throw;
    }
    if (fresh_pages)
        lower_overcommit();
    return run;
}

// Times the pool writes of `tasks`, reads the nodes' counts while the pools are raised, and puts
// every node of `base` back to its count on every way out.
TimedRun PhaseRunner::time_grow(std::vector<ThreadTask>& tasks, const NodeCounts& base,
                                NodeCounts& after) {
    auto shrink_back = [&] {
        for (const auto& [node, count] : base)
            fs_.write_u64(node_pool_dir(node, plan_.page_size_kb) + "/nr_hugepages", count);
    };
    TimedRun run;
    try {
        run = run_timed(binder_, tasks, nullptr, [&] {
            after = read_node_counters("nr_hugepages");
            test_hold_point(kHoldGrowRaised);
        });
    } catch (...) {
        shrink_back();
        throw;
    }
    shrink_back();
    return run;
}

// One thread per node writes its node's nr_hugepages: the kernel allocates the pages in the
// writing thread without zeroing them, serialised by the page size's resize lock.
PhaseRepetition PhaseRunner::run_grow() {
    std::vector<ThreadTask> tasks(plan_.nodes.size());
    NodeCounts base, after;
    for (std::size_t ni = 0; ni < plan_.nodes.size(); ++ni) {
        const NodePlan& node = plan_.nodes[ni];
        base[node.node] = node_counter(fs_, node.node, plan_.page_size_kb, "nr_hugepages");
        auto file = node_pool_dir(node.node, plan_.page_size_kb) + "/nr_hugepages";
        std::uint64_t target = base[node.node] + plan_.pages_per_node;
        tasks[ni].cpu = node.cpus.front();
        tasks[ni].work = [this, file, target] {
            fs_.write_u64(file, target);
            return plan_.pages_per_node;
        };
    }
    PhaseRepetition rep;
    rep.run = time_grow(tasks, base, after);
    for (const auto& n : plan_.nodes) {
        std::uint64_t got = after[n.node] > base[n.node] ? after[n.node] - base[n.node] : 0;
        if (got < plan_.pages_per_node)
            rep.shortfall_pages += plan_.pages_per_node - got;
    }
    return rep;
}

// Boot placement: one thread on the boot CPU grows the page size's global pool by the sample,
// which the kernel takes from the memory nodes in turn in that thread, as the boot's one
// global request is spread; each node is then shrunk back to its own count, so the pool of
// every node ends as it was.
PhaseRepetition PhaseRunner::run_boot_grow() {
    const auto memory = plan_.memory_node_ids();
    const std::uint64_t sample_pages = plan_.sample_pages();
    const std::string global = pool_dir(plan_.page_size_kb) + "/nr_hugepages";
    NodeCounts base = read_node_counters("nr_hugepages"), after;
    const std::uint64_t target =
        pool_counter(fs_, plan_.page_size_kb, "nr_hugepages") + sample_pages;
    std::vector<ThreadTask> tasks(1);
    tasks[0].cpu = plan_.node(plan_.boot_node).cpus.front();
    tasks[0].work = [this, &global, target, sample_pages] {
        fs_.write_u64(global, target);
        return sample_pages;
    };
    PhaseRepetition rep;
    rep.run = time_grow(tasks, base, after);
    rep.node_pages = counter_moves(memory, base, after, /*rises=*/true);
    std::uint64_t got = 0;
    for (auto pages : rep.node_pages)
        got += pages;
    rep.shortfall_pages = sample_pages > got ? sample_pages - got : 0;
    return rep;
}

HugeMapping PhaseRunner::reserve_free_pool() {
    // The count can change between reading and mmap() (other processes); retry a little.
    for (int attempt = 0; attempt < 5; ++attempt) {
        std::uint64_t free = pool_counter(fs_, plan_.page_size_kb, "free_hugepages");
        std::uint64_t resv = pool_counter(fs_, plan_.page_size_kb, "resv_hugepages");
        if (free <= resv)
            return {};
        try {
            return HugeMapping(free - resv, plan_.page_bytes, /*reserve=*/true);
        } catch (const RuntimeError&) {
        }
    }
    return {};  // the counters on the point will show any page taken from the pool
}

void PhaseRunner::lower_overcommit() {
    fs_.write_u64(pool_dir(plan_.page_size_kb) + "/nr_overcommit_hugepages", saved_overcommit_);
}

}  // namespace hugetune
