#include "tuner/probe/machine_facts.hpp"

#include "model/input/probe_nodes.hpp"

namespace hugetune {
namespace {

// HVO and pre-zeroing for the sweep's page size.
model::KernelOptions kernel_options(const KernelFacts& kernel, std::uint64_t page_size_kb) {
    model::KernelOptions k;
    k.hvo = kernel.hvo;
    k.hvo_sysctl = kernel.hvo_sysctl;
    for (const auto& f : kernel.vmemmap_freeable)
        if (f.size_kb == page_size_kb)
            k.vmemmap_freeable_kib_per_page = static_cast<double>(f.kib_per_page);
    for (const auto& pool : kernel.pools)
        if (pool.size_kb == page_size_kb)
            for (const auto& node : pool.nodes)
                k.zeroable_hugepages = k.zeroable_hugepages || node.zeroable.value_or(0) > 0;
    return k;
}

void set_kernel_facts(const KernelFacts& kernel, std::uint64_t page_size_kb,
                      model::MachineFacts& m) {
    if (kernel.online_cpus > 0)
        m.online_cpus = kernel.online_cpus;
    m.init_on_alloc = kernel.init_on_alloc;
    m.kernel_release = kernel.release;
    m.supports_alloc_threads = kernel.supports_hugepage_alloc_threads;
    if (const auto block = kernel.buddy.largest_block_kb(); block >= 4)
        m.largest_buddy_block_kb = block;
    for (const auto& r : kernel.boot_requests) {
        if (r.size_kb == page_size_kb)
            m.boot_pool_pages = r.pages;
        m.boot_requests.push_back({r.size_kb, r.pages, r.node_format});
    }
    if (const HugePool* pool = kernel.pool(page_size_kb))
        m.current_pool_pages = pool->nr;
    m.kernel = kernel_options(kernel, page_size_kb);
}

}  // namespace

model::MachineFacts machine_facts(const Probe& probe, std::uint64_t page_size_kb,
                                  const std::vector<int>& measured_nodes) {
    model::MachineFacts m;
    m.microarch = probe.cpu.microarch;
    set_kernel_facts(probe.kernel, page_size_kb, m);
    m.hypervisor = probe.virtualization.hypervisor;
    std::vector<model::ProbeNode> nodes;
    for (const auto& n : probe.topology.nodes)
        nodes.push_back({n.id, n.cpus.size(), n.memory_bytes, n.memory_total_bytes});
    model::set_node_facts(nodes, measured_nodes, m);
    return m;
}

}  // namespace hugetune
