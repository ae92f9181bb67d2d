#include "model/input/probe_nodes.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "model/documents/report.hpp"

namespace hugetune::model {
namespace {

// Nodes with memory: the sweep measured exactly those (parameters.nodes); the probe's topology
// gives their hardware threads.
void set_measured_nodes(const std::vector<ProbeNode>& nodes, const std::vector<int>& measured_nodes,
                        MachineFacts& m) {
    const std::set<int> measured(measured_nodes.begin(), measured_nodes.end());
    int memory_nodes = 0;
    std::size_t most_threads = 0;
    for (const auto& node : nodes) {
        const bool with_memory =
            measured.empty() ? node.memory_bytes > 0 : (node.id && measured.contains(*node.id));
        if (!with_memory)
            continue;
        ++memory_nodes;
        most_threads = std::max(most_threads, node.hardware_threads);
    }
    if (!measured.empty())
        m.nodes = static_cast<int>(measured.size());
    else if (memory_nodes > 0)
        m.nodes = memory_nodes;
    if (most_threads > 0)
        m.hw_threads_per_node = static_cast<int>(most_threads);
}

// The memory per node is the smallest node's MemTotal as memory is installed
// (nominal_memory_gib): one machine keeps one key whatever its pools hold. A probe without
// MemTotal (a tree gathered before it was recorded) falls back to hwloc's local memory, which
// excludes the huge pages held, rounded to the GiB.
void set_sku_nodes(const std::vector<ProbeNode>& nodes, MachineFacts& m) {
    std::uint64_t smallest_memory = 0, smallest_total = 0;
    bool every_total = true;
    for (const auto& node : nodes) {
        if (node.memory_bytes == 0)
            continue;
        ++m.sku_memory_nodes;
        m.sku_hardware_threads_per_node =
            std::max(m.sku_hardware_threads_per_node, static_cast<int>(node.hardware_threads));
        smallest_memory =
            smallest_memory == 0 ? node.memory_bytes : std::min(smallest_memory, node.memory_bytes);
        every_total = every_total && node.memory_total_bytes > 0;
        smallest_total = smallest_total == 0 ? node.memory_total_bytes
                                             : std::min(smallest_total, node.memory_total_bytes);
    }
    const double gib = static_cast<double>(smallest_memory) / (1024.0 * 1024 * 1024);
    m.sku_memory_per_node_gib = every_total && smallest_total > 0
                                    ? nominal_memory_gib(smallest_total)
                                    : static_cast<std::uint64_t>(std::llround(gib));
}

}  // namespace

void set_node_facts(const std::vector<ProbeNode>& nodes, const std::vector<int>& measured_nodes,
                    MachineFacts& machine) {
    set_measured_nodes(nodes, measured_nodes, machine);
    set_sku_nodes(nodes, machine);
}

}  // namespace hugetune::model
