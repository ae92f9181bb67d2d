// The probe as the model takes it: the machine facts a fit, its what-if rows and a report's SKU
// key need, straight from the typed probe (a document's probe block is read by
// model/input/sweep_json.cpp to the same facts).
#pragma once

#include <cstdint>
#include <vector>

#include "model/input/fit_input.hpp"
#include "tuner/probe/probe.hpp"

namespace hugetune {

// The facts for a sweep at `page_size_kb` over `measured_nodes` (empty: the nodes with memory).
model::MachineFacts machine_facts(const Probe& probe, std::uint64_t page_size_kb,
                                  const std::vector<int>& measured_nodes);

}  // namespace hugetune
