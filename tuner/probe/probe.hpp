// What hugetune knows about a machine: topology (hwloc), CPU identity, virtualization and the
// kernel's huge page facts. Read-only; works without root.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/alloc_threads.hpp"
#include "model/documents/probe_record.hpp"
#include "model/hardware_identity.hpp"
#include "tuner/kernel/boot_log.hpp"
#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/probe/microarch.hpp"

namespace hugetune {

struct NumaNode {
    int id = 0;                      // OS index (nodeN)
    std::vector<int> cpus;           // OS indexes of its hardware threads
    std::vector<int> core_order;     // the same PUs, one per core first, then SMT siblings
    std::uint64_t memory_bytes = 0;  // hwloc's local memory: without the huge pages held now
    // The node's MemTotal (its meminfo), huge pages included: the same at every run of one
    // machine, whatever its pools hold; 0 when the kernel does not say.
    std::uint64_t memory_total_bytes = 0;
};

struct Topology {
    int packages = 0;
    int cores = 0;
    int pus = 0;
    std::vector<NumaNode> nodes;  // every NUMA node, sorted by id

    // Nodes with memory (the kernel spreads boot allocation over those).
    std::vector<const NumaNode*> memory_nodes() const;
};

struct NodePool {
    int node = 0;
    std::uint64_t nr = 0, free = 0, surplus = 0;
    // Free pages not yet zeroed, where the kernel has per-node zeroable_hugepages (a proposed
    // pre-zeroing interface, docs/kernel-facts.md "Pre-zeroing"); nothing on other kernels.
    std::optional<std::uint64_t> zeroable;
};

// One huge page size: /sys/kernel/mm/hugepages/hugepages-<size>kB and its per-node view.
struct HugePool {
    std::uint64_t size_kb = 0;
    std::uint64_t nr = 0, free = 0, surplus = 0, reserved = 0, overcommit = 0;
    std::vector<NodePool> nodes;
};

struct KernelFacts {
    std::string release;
    int version_major = 0, version_minor = 0;
    int online_cpus = 0;
    std::vector<std::uint64_t> hugepage_sizes_kb;  // ascending
    std::optional<std::uint64_t> default_hugepage_size_kb;
    // Its base page and MAX_PAGE_ORDER: which of the sizes are gigantic (docs/kernel-facts.md
    // "Gigantic pages").
    model::BuddyAllocator buddy;
    std::vector<HugePool> pools;
    KernelCmdline cmdline;
    bool supports_hugepage_alloc_threads = false;  // release >= 6.15
    int default_alloc_threads = 0;  // what the kernel uses when the parameter is absent
    std::optional<std::uint64_t> cmdline_alloc_threads;
    std::optional<bool> init_on_alloc;
    std::string init_on_alloc_source;  // "cmdline", "kernel config", "boot log" or "unknown"
    std::optional<bool> hvo;           // hugetlb vmemmap optimisation in force
    bool hvo_sysctl = false;           // /proc/sys/vm/hugetlb_optimize_vmemmap exists
    std::vector<VmemmapFreeable> vmemmap_freeable;  // the boot log's lines, one per size
    std::vector<BootRequest> boot_requests;
    std::optional<BootAllocationLine> last_boot_allocation;

    const HugePool* pool(std::uint64_t size_kb) const;
    // The default size (else x86-64's) and the largest buddy block, for the boot pool's rules.
    model::PageSizeFacts page_sizes() const;
};

struct Virtualization {
    bool hypervisor = false;
    std::string vendor;  // e.g. "KVM", "Microsoft Hv"; empty when unknown or bare metal
    // Whether /proc/cpuinfo or /sys/hypervisor/type could be read: without either, a machine
    // without a hypervisor seen is not known to be bare metal.
    bool read = false;
};

// The hypervisor's name as a boot record says it (model/documents/boot_record.hpp): the vendor,
// "unnamed" for a hypervisor that does not say its name, model::kBareMetal without one;
// nothing when neither file could be read.
std::optional<std::string> hypervisor_name(const Virtualization& v);

// What a fleet compares between hosts of one SKU (docs/fleet.md "Outliers"); absent when the
// machine does not say (no DMI table in most guests, no microcode line on some CPUs).
struct Firmware {
    std::optional<std::string> bios_version;  // /sys/class/dmi/id/bios_version
    std::optional<std::string> microcode;     // /proc/cpuinfo "microcode", the first CPU's
};

struct Probe {
    std::string hostname;
    // A hash of what names the machine (model/hardware_identity.hpp), or why there is none.
    model::HardwareIdentity hardware_identity;
    CpuIdentity cpu;
    Topology topology;
    KernelFacts kernel;
    Virtualization virtualization;
    Firmware firmware;
};

// Reads everything through `fs`; hwloc is pointed at fs.root() too, so a fixture tree gives
// the fixture's topology. Throws RuntimeError when the topology cannot be read at all.
Probe probe_machine(const KernelFs& fs);

// A tree gathered from another machine holds what the probe needs; SettingError "root" naming
// the first missing file otherwise. Nothing for the live machine.
void require_gathered_tree(const KernelFs& fs);

// The probe's blocks as a report carries them; to_json is the same blocks as one document.
model::ProbeRecord probe_record(const Probe& probe);
nlohmann::json to_json(const Probe& probe);
std::string format_summary(const Probe& probe);

}  // namespace hugetune
