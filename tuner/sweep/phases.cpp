#include "tuner/sweep/phases.hpp"

#include <algorithm>
#include <map>

#include "tuner/sweep/pool_state.hpp"
#include "tuner/system/errors.hpp"
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

PhaseRunner::PhaseRunner(const KernelFs& fs, const SweepPlan& plan, const Binder& binder,
                         std::uint64_t saved_overcommit)
    : fs_(fs), plan_(plan), binder_(binder), saved_overcommit_(saved_overcommit) {}

std::vector<std::string> PhaseRunner::grow_zero_pool() {
    std::vector<std::string> warnings;
    for (const auto& n : plan_.nodes) {
        auto file = node_pool_dir(n.node, plan_.page_size_kb) + "/nr_hugepages";
        std::uint64_t base = node_counter(fs_, n.node, plan_.page_size_kb, "nr_hugepages");
        fs_.write_u64(file, base + plan_.pages_per_node);
        std::uint64_t now = node_counter(fs_, n.node, plan_.page_size_kb, "nr_hugepages");
        if (now < base + plan_.pages_per_node)
            warnings.push_back("node " + std::to_string(n.node) + ": the pool grew by only " +
                               std::to_string(now - std::min(now, base)) + " of " +
                               std::to_string(plan_.pages_per_node) +
                               " pages (memory fragmented or in use)");
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
            return run_grow();
    }
    throw RuntimeError("internal: unknown phase");
}

namespace {

// Pages each node lacks after a fault repetition: the fewer of what its threads faulted and what
// its counter moved by (surplus rises, free falls, on the node the pages really came from).
std::uint64_t fault_shortfall(const SweepPlan& plan, const TimedRun& run, int threads_per_node,
                              const NodeCounts& before, const NodeCounts& after, bool fresh_pages) {
    const auto per_node = static_cast<std::size_t>(threads_per_node);
    std::uint64_t shortfall = 0;
    for (std::size_t ni = 0; ni < plan.nodes.size(); ++ni) {
        std::uint64_t by_threads = 0;
        for (std::size_t t = 0; t < per_node; ++t)
            by_threads += run.threads[ni * per_node + t].pages;
        std::uint64_t was = before.at(plan.nodes[ni].node), now = after.at(plan.nodes[ni].node);
        std::uint64_t by_counter =
            fresh_pages ? (now > was ? now - was : 0) : (was > now ? was - now : 0);
        std::uint64_t got = std::min(by_threads, by_counter);
        if (got < plan.pages_per_node)
            shortfall += plan.pages_per_node - got;
    }
    return shortfall;
}

}  // namespace

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
    for (const auto& n : plan_.nodes)
        counts[n.node] = node_counter(fs_, n.node, plan_.page_size_kb, name);
    return counts;
}

// zero: pool pages the sweep added, reserved at mmap(), so each fault only zeroes.
// alloc: MAP_NORESERVE, no free pool page available, overcommit raised by exactly the
// sample: each fault allocates a fresh surplus page from the buddy allocator in the
// faulting thread (in parallel, without the resize lock) and zeroes it (docs/kernel-facts.md
// "Surplus pages on fault").
PhaseRepetition PhaseRunner::run_faults(int threads_per_node, bool fresh_pages) {
    std::vector<HugeMapping> mappings(plan_.nodes.size() *
                                      static_cast<std::size_t>(threads_per_node));
    std::vector<ThreadTask> tasks = fault_tasks(threads_per_node, fresh_pages, mappings);
    // alloc: a mapping that reserves every free, unreserved pool page (ours and other
    // people's) makes the kernel skip the pool (available = free - reserved = 0), so faults
    // take surplus pages and never a page someone else's pool holds.
    HugeMapping placeholder;
    if (fresh_pages) {
        placeholder = reserve_free_pool();
        fs_.write_u64(pool_dir(plan_.page_size_kb) + "/nr_overcommit_hugepages",
                      saved_overcommit_ + plan_.pages_per_node * plan_.nodes.size());
    }
    const char* counter = fresh_pages ? "surplus_hugepages" : "free_hugepages";
    NodeCounts before, after;
    PhaseRepetition rep;
    try {
        rep.run = run_timed(
            binder_, tasks, [&] { before = read_node_counters(counter); },
            [&] { after = read_node_counters(counter); });
    } catch (...) {
        if (fresh_pages)
            lower_overcommit();
        throw;
    }
    if (fresh_pages)
        lower_overcommit();
    rep.shortfall_pages =
        fault_shortfall(plan_, rep.run, threads_per_node, before, after, fresh_pages);
    return rep;
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
    auto shrink_back = [&] {
        for (const auto& n : plan_.nodes)
            fs_.write_u64(node_pool_dir(n.node, plan_.page_size_kb) + "/nr_hugepages",
                          base[n.node]);
    };
    try {
        rep.run = run_timed(binder_, tasks, nullptr, [&] {
            after = read_node_counters("nr_hugepages");
            test_hold_point(kHoldGrowRaised);
        });
    } catch (...) {
        shrink_back();
        throw;
    }
    shrink_back();
    for (const auto& n : plan_.nodes) {
        std::uint64_t got = after[n.node] > base[n.node] ? after[n.node] - base[n.node] : 0;
        if (got < plan_.pages_per_node)
            rep.shortfall_pages += plan_.pages_per_node - got;
    }
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
