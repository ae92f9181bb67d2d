// The machine's side of a recommendation: how many nodes, how many threads the kernel value may
// take and its default, the boot pool the predictions are for, and how a per-node curve turns
// into boot seconds at a kernel value.
#pragma once

#include <algorithm>
#include <span>
#include <string>

#include "model/cost_curve.hpp"
#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"
#include "model/recommend/remarks.hpp"

namespace hugetune::model::recommend {

struct NodeCount {
    int nodes = 1;
    Remarks remarks;
};

// The option's count, else the machine's, else 1 with a note.
NodeCount count_nodes(const MachineFacts& machine, const RecommendOptions& options);

// How many threads the kernel value may take, and its default.
struct ThreadLimits {
    int cpu_cap = 1;
    int max_threads_per_node = 1;
    int default_threads = 1;
    double min_measured = 0, max_measured = 0;  // threads per node in the series
    Remarks remarks;
};

ThreadLimits thread_limits(const MachineFacts& machine, const RecommendOptions& options, int nodes,
                           std::span<const Point> series);

// The boot pool the predictions are for; none (0 pages) for a boot table (its own work).
struct BootPool {
    double pages = 0;
    std::string source;
    Remarks remarks;
};

BootPool choose_boot_pool(const SweepData& data, const RecommendOptions& options,
                          const PhaseSeries& main);

// Predicted boot seconds at a kernel value, through one curve.
struct Evaluator {
    int nodes = 1;
    int cpu_cap = 1;
    double scale = 1;  // boot pool work / series work

    // A series per page (`per_page`) scales to the pool spread over the nodes (the kernel spreads
    // the boot pool over the memory nodes, each worker interleaves); a boot table is its own work.
    static Evaluator for_pool(int nodes, int cpu_cap, bool per_page, double pool_pages) {
        return {nodes, cpu_cap, per_page ? pool_pages / nodes : 1.0};
    }

    // Total threads the kernel would run for N per node, and so the per-node count it acts as:
    // the parameter is a total (docs/kernel-facts.md "A total, not per node"), capped here at
    // the online CPUs.
    int total(int threads_per_node) const { return std::min(threads_per_node * nodes, cpu_cap); }
    double seconds(const CostCurve& c, double total_threads) const {
        return c.seconds(total_threads / nodes) * scale;
    }
};

}  // namespace hugetune::model::recommend
