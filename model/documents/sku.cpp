#include "model/documents/sku.hpp"

namespace hugetune::model {

SkuKey sku_key(const MachineFacts& machine, std::uint64_t page_size_kb) {
    return {machine.microarch,
            machine.sku_memory_nodes,
            machine.sku_hardware_threads_per_node,
            machine.sku_memory_per_node_gib,
            page_size_kb,
            machine.init_on_alloc};
}

}  // namespace hugetune::model
