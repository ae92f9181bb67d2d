#include "model/recommend/machine.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/alloc_threads.hpp"

namespace hugetune::model::recommend {

namespace {
constexpr double kTiB = 1024.0 * 1024 * 1024 * 1024;
}  // namespace

NodeCount count_nodes(const MachineFacts& m, const RecommendOptions& o) {
    NodeCount c{o.nodes.value_or(m.nodes.value_or(1)), {}};
    if (!o.nodes && !m.nodes)
        c.remarks.notes.push_back("node count unknown: assuming 1 node with memory (give " +
                                  o.words("nodes") + ")");
    if (c.nodes < 1)
        throw std::invalid_argument("nodes must be at least 1");
    return c;
}

ThreadLimits thread_limits(const MachineFacts& m, const RecommendOptions& o, int nodes,
                           std::span<const Point> series) {
    ThreadLimits t;
    t.min_measured = std::numeric_limits<double>::infinity();
    for (const auto& p : series) {
        t.max_measured = std::max(t.max_measured, p.threads_per_node);
        t.min_measured = std::min(t.min_measured, p.threads_per_node);
    }
    const std::optional<int> cpus = o.online_cpus ? o.online_cpus : m.online_cpus;
    std::optional<int> per_node_limit = m.hw_threads_per_node;
    if (cpus)
        per_node_limit = std::min(per_node_limit.value_or(*cpus), std::max(1, *cpus / nodes));
    if (!per_node_limit) {
        per_node_limit = static_cast<int>(t.max_measured);
        t.remarks.notes.push_back(
            "CPU count unknown: assuming at most " + std::to_string(*per_node_limit) +
            " thread(s) per node, the largest measured (give " + o.words("cpus") + ")");
    }
    t.max_threads_per_node = std::max(1, *per_node_limit);
    t.cpu_cap = cpus.value_or(t.max_threads_per_node * nodes);
    t.default_threads = kernel_default_alloc_threads(t.cpu_cap);
    return t;
}

BootPool choose_boot_pool(const SweepData& data, const RecommendOptions& o,
                          const PhaseSeries& main) {
    const MachineFacts& m = data.machine;
    if (main.pages_per_node <= 0)
        return {};
    if (o.pool_pages)
        return {static_cast<double>(*o.pool_pages), o.pool_source, {}};
    if (m.boot_pool_pages && *m.boot_pool_pages > 0)
        return {static_cast<double>(*m.boot_pool_pages), "cmdline", {}};
    if (m.current_pool_pages && *m.current_pool_pages > 0)
        return {static_cast<double>(*m.current_pool_pages),
                "current pool",
                {{"no boot pool on the kernel command line: predicting for the " +
                  std::to_string(*m.current_pool_pages) + " pages in the pool now"},
                 {}}};
    // A stated reference size, so reports of machines without a pool still compare.
    return {std::round(kTiB / (static_cast<double>(data.page_size_kb) * 1024)),
            "1 TiB reference",
            {{"no huge page pool configured: predicting for a 1 TiB reference pool"}, {}}};
}

}  // namespace hugetune::model::recommend
