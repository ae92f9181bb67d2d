// A machine's SKU key (the report's `sku` block; docs/fleet.md): hosts with the same key share
// one fleet answer. Made from the machine facts, whichever way the probe reached them.
#pragma once

#include <cstdint>

#include "model/documents/report.hpp"
#include "model/input/fit_input.hpp"

namespace hugetune::model {

// The key of a machine measured at `page_size_kb`: its microarchitecture, its sku_ node facts
// (model/input/probe_nodes.hpp) and its init_on_alloc (nothing: unknown).
SkuKey sku_key(const MachineFacts& machine, std::uint64_t page_size_kb);

}  // namespace hugetune::model
