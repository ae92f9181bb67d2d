// The node facts of a machine (MachineFacts: the nodes, their hardware threads, the SKU's part)
// from the probe's NUMA nodes, whichever way the probe reaches the model: typed from the probe
// (tuner/probe/machine_facts.hpp) or read from a document's `topology` block (sweep_json.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/input/fit_input.hpp"

namespace hugetune::model {

// One NUMA node as the probe records it (tuner/probe/probe.hpp NumaNode).
struct ProbeNode {
    std::optional<int> id;
    std::size_t hardware_threads = 0;
    std::uint64_t memory_bytes = 0;        // hwloc's local memory: without the huge pages held
    std::uint64_t memory_total_bytes = 0;  // the node's MemTotal; 0 when the probe does not say
};

// Sets `nodes` and `hw_threads_per_node` of `machine` from the nodes the sweep measured (empty:
// the sweep does not say, so the nodes with memory), and its sku_ fields from every node.
void set_node_facts(const std::vector<ProbeNode>& nodes, const std::vector<int>& measured_nodes,
                    MachineFacts& machine);

}  // namespace hugetune::model
