// One repetition of each phase on the live machine (see docs/kernel-facts.md, "What user space
// can measure"). Public so the benchmark can time exactly what the sweep times. The pool changes it
// makes are undone by the caller's PoolGuard if anything throws.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/sweep/plan.hpp"
#include "tuner/sweep/workers.hpp"

namespace hugetune {

// Boot placement's chunks, each a mapping of its own, and the counter the workers take them by.
struct ChunkQueue;

// A per-node huge page counter, by node id.
using NodeCounts = std::map<int, std::uint64_t>;

struct PhaseRepetition {
    TimedRun run;
    std::uint64_t shortfall_pages = 0;  // summed over nodes: pages not obtained where intended
    // Boot placement: the pages each memory node gave (its counter's move), in the plan's
    // memory_nodes order; empty for node-local placement.
    std::vector<std::uint64_t> node_pages;
};

class PhaseRunner {
  public:
    PhaseRunner(const KernelFs& fs, const SweepPlan& plan, const Binder& binder,
                std::uint64_t saved_overcommit);

    // Grows every node's persistent pool by the sample for the zero phase; returns warnings for
    // nodes that could not grow fully (their zero points then show the shortfall).
    std::vector<std::string> grow_zero_pool();

    PhaseRepetition run(Phase phase, int threads_per_node);

  private:
    PhaseRepetition run_faults(int threads_per_node, bool fresh_pages);
    std::vector<ThreadTask> fault_tasks(int threads_per_node, bool fresh_pages,
                                        std::vector<HugeMapping>& mappings) const;
    std::vector<ThreadTask> boot_fault_tasks(int threads_per_node, bool fresh_pages,
                                             ChunkQueue& queue) const;
    TimedRun time_faults(std::vector<ThreadTask>& tasks, bool fresh_pages, NodeCounts& before,
                         NodeCounts& after);
    NodeCounts read_node_counters(const char* name) const;
    std::vector<int> counter_nodes() const;
    bool boot_placement() const;
    TimedRun time_grow(std::vector<ThreadTask>& tasks, const NodeCounts& base, NodeCounts& after);
    PhaseRepetition run_grow();
    PhaseRepetition run_boot_grow();
    HugeMapping reserve_free_pool();
    void lower_overcommit();

    const KernelFs& fs_;
    const SweepPlan& plan_;
    const Binder& binder_;
    std::uint64_t saved_overcommit_;
};

}  // namespace hugetune
