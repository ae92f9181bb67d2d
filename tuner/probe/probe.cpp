#include "tuner/probe/probe.hpp"

#include <fcntl.h>
#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "model/documents/boot_record.hpp"
#include "model/errors.hpp"
#include "tuner/kernel/kernel_files.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune {
namespace {

// hwloc writes its own complaints to stderr, and hwloc 2.9 prints "[hwloc/linux] failed to find
// sysfs cpu topology directory" without consulting any environment variable. The probe states
// what it could not read itself, so stderr points at /dev/null while hwloc reads the topology.
class QuietStderr {
  public:
    QuietStderr() {
        std::fflush(stderr);
        saved_ = dup(STDERR_FILENO);
        const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (saved_ >= 0 && null >= 0)
            dup2(null, STDERR_FILENO);
        if (null >= 0)
            close(null);
    }
    ~QuietStderr() {
        if (saved_ < 0)
            return;
        std::fflush(stderr);
        dup2(saved_, STDERR_FILENO);
        close(saved_);
    }
    QuietStderr(const QuietStderr&) = delete;
    QuietStderr& operator=(const QuietStderr&) = delete;

  private:
    int saved_ = -1;
};

// RAII for an hwloc topology; under a fixture root hwloc reads that tree (HWLOC_FSROOT,
// hwloc's documented way to read a Linux tree gathered from another machine).
class HwlocTopology {
  public:
    explicit HwlocTopology(const KernelFs& fs) {
        if (hwloc_topology_init(&topo_) != 0)
            throw RuntimeError("hwloc: cannot initialise");
        const char* old = std::getenv("HWLOC_FSROOT");
        std::string saved = old ? old : "";
        if (!fs.is_live()) {
            // hwloc opens the tree's files through this machine's lookup, which follows a link
            // out of the tree: such a tree is refused instead (docs/kernel-facts.md "Resolving
            // paths under a root").
            for (const char* dir : {"/sys", "/proc"})
                if (const auto link = link_out_of_root(fs.root(), dir)) {
                    hwloc_topology_destroy(topo_);
                    throw UsageError(link->string() + " is a link that leads out of the tree " +
                                     fs.root().string() +
                                     "; hwloc would read this machine's files through it: "
                                     "make it a link inside the tree, or copy what it names");
                }
            setenv("HWLOC_FSROOT", fs.root().c_str(), 1);
            // cpuid would describe this machine's caches, not the fixture's.
            hwloc_topology_set_components(topo_, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
        }
        int rc = 0;
        {
            QuietStderr quiet;
            rc = hwloc_topology_load(topo_);
        }
        if (!fs.is_live()) {
            if (old)
                setenv("HWLOC_FSROOT", saved.c_str(), 1);
            else
                unsetenv("HWLOC_FSROOT");
        }
        if (rc != 0) {
            hwloc_topology_destroy(topo_);
            throw RuntimeError("hwloc could not read the topology under " + fs.root().string());
        }
    }
    ~HwlocTopology() { hwloc_topology_destroy(topo_); }
    HwlocTopology(const HwlocTopology&) = delete;
    HwlocTopology& operator=(const HwlocTopology&) = delete;
    hwloc_topology_t get() const { return topo_; }

  private:
    hwloc_topology_t topo_ = nullptr;
};

// PUs of `set` ordered one per core first, then each core's second thread, and so on:
// threads spread over cores before they share one through SMT.
std::vector<int> core_major_order(hwloc_topology_t topo, hwloc_const_cpuset_t set) {
    std::vector<std::vector<int>> per_core;
    int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE);
    for (int i = 0; i < ncores; ++i) {
        hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE, i);
        std::vector<int> pus;
        int id;
        hwloc_bitmap_foreach_begin(id, core->cpuset) {
            if (hwloc_bitmap_isset(set, id))
                pus.push_back(id);
        }
        hwloc_bitmap_foreach_end();
        per_core.push_back(std::move(pus));
    }
    std::vector<int> order;
    if (per_core.empty()) {  // no core level reported: PUs as they come
        int id;
        hwloc_bitmap_foreach_begin(id, set) {
            order.push_back(id);
        }
        hwloc_bitmap_foreach_end();
        return order;
    }
    for (std::size_t rank = 0;; ++rank) {
        bool any = false;
        for (const auto& pus : per_core) {
            if (rank < pus.size()) {
                order.push_back(pus[rank]);
                any = true;
            }
        }
        if (!any)
            break;
    }
    return order;
}

Topology read_topology(const KernelFs& fs) {
    HwlocTopology t(fs);
    hwloc_topology_t topo = t.get();
    Topology out;
    out.packages = std::max(0, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));
    out.cores = std::max(0, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE));
    out.pus = std::max(0, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
    int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < nnodes; ++i) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
        NumaNode n;
        n.id = static_cast<int>(node->os_index);
        n.memory_bytes = node->attr ? node->attr->numanode.local_memory : 0;
        n.memory_total_bytes = node_meminfo_bytes(fs, n.id, "MemTotal").value_or(0);
        int id;
        hwloc_bitmap_foreach_begin(id, node->cpuset) {
            n.cpus.push_back(id);
        }
        hwloc_bitmap_foreach_end();
        n.core_order = core_major_order(topo, node->cpuset);
        out.nodes.push_back(std::move(n));
    }
    std::sort(out.nodes.begin(), out.nodes.end(),
              [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
    return out;
}

// "0-3,8,10-11" -> count.
int count_cpu_list(const std::string& list) {
    int count = 0;
    std::stringstream in(list);
    std::string range;
    while (std::getline(in, range, ',')) {
        if (range.empty())
            continue;
        auto dash = range.find('-');
        try {
            if (dash == std::string::npos)
                count += 1;
            else
                count += std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1;
        } catch (const std::exception&) {
            return 0;
        }
    }
    return count;
}

void read_init_on_alloc(const KernelFs& fs, const std::vector<std::string>& log, KernelFacts& k) {
    if (auto v = k.cmdline.last("init_on_alloc")) {
        if (auto b = parse_kernel_bool(*v)) {
            k.init_on_alloc = b;
            k.init_on_alloc_source = "cmdline";
            return;
        }
    }
    if (auto config = running_kernel_config(fs, k.release)) {
        if (config->find("CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y") != std::string::npos) {
            k.init_on_alloc = true;
        } else {
            k.init_on_alloc = false;
        }
        k.init_on_alloc_source = "kernel config";
        return;
    }
    if (auto logged = read_boot_log_context(log).init_on_alloc) {
        k.init_on_alloc = logged;
        k.init_on_alloc_source = "boot log";
        return;
    }
    k.init_on_alloc_source = "unknown";
}

// hugepagesz= selects the size that following hugepages= apply to; before any, the default
// size (default_hugepagesz=, else 2 MiB on x86-64). Node format: "0:512,1:512".
KernelFacts read_kernel(const KernelFs& fs, const Topology& topo) {
    KernelFacts k;
    k.release = running_kernel_release(fs).value_or("");
    std::sscanf(k.release.c_str(), "%d.%d", &k.version_major, &k.version_minor);
    auto online = online_cpu_list(fs);
    k.online_cpus = online ? count_cpu_list(*online) : 0;
    if (k.online_cpus == 0)
        k.online_cpus = topo.pus;

    for (const auto& name : fs.list("/sys/kernel/mm/hugepages")) {
        std::uint64_t kb = 0;
        if (std::sscanf(name.c_str(), "hugepages-%lukB", &kb) != 1)
            continue;
        std::string dir = "/sys/kernel/mm/hugepages/" + name + "/";
        HugePool pool;
        pool.size_kb = kb;
        pool.nr = fs.read_u64(dir + "nr_hugepages").value_or(0);
        pool.free = fs.read_u64(dir + "free_hugepages").value_or(0);
        pool.surplus = fs.read_u64(dir + "surplus_hugepages").value_or(0);
        pool.reserved = fs.read_u64(dir + "resv_hugepages").value_or(0);
        pool.overcommit = fs.read_u64(dir + "nr_overcommit_hugepages").value_or(0);
        for (const auto& node : topo.nodes) {
            std::string nd = "/sys/devices/system/node/node" + std::to_string(node.id) +
                             "/hugepages/" + name + "/";
            if (!fs.exists(nd))
                continue;
            NodePool np;
            np.node = node.id;
            np.nr = fs.read_u64(nd + "nr_hugepages").value_or(0);
            np.free = fs.read_u64(nd + "free_hugepages").value_or(0);
            np.surplus = fs.read_u64(nd + "surplus_hugepages").value_or(0);
            np.zeroable = fs.read_u64(nd + "zeroable_hugepages");
            pool.nodes.push_back(np);
        }
        k.hugepage_sizes_kb.push_back(kb);
        k.pools.push_back(std::move(pool));
    }
    std::sort(k.hugepage_sizes_kb.begin(), k.hugepage_sizes_kb.end());
    std::sort(k.pools.begin(), k.pools.end(),
              [](const HugePool& a, const HugePool& b) { return a.size_kb < b.size_kb; });

    if (auto bytes = system_meminfo_bytes(fs, "Hugepagesize"))
        k.default_hugepage_size_kb = *bytes / 1024;
    k.buddy = running_buddy_allocator(fs);

    k.cmdline = parse_kernel_cmdline(running_kernel_cmdline(fs).value_or(""));
    k.supports_hugepage_alloc_threads =
        release_supports_alloc_threads(k.version_major, k.version_minor);
    k.default_alloc_threads = kernel_default_alloc_threads(k.online_cpus);
    k.cmdline_alloc_threads = kernel_alloc_threads(k.cmdline).threads;

    const auto log = fs.kernel_log().messages;
    read_init_on_alloc(fs, log, k);
    if (auto hvo = hugetlb_optimize_vmemmap(fs)) {
        k.hvo = *hvo;
        k.hvo_sysctl = true;
    } else if (auto v = k.cmdline.last("hugetlb_free_vmemmap")) {
        k.hvo = parse_kernel_bool(*v);
    }
    k.vmemmap_freeable = find_vmemmap_freeable(log);
    const auto sizes = k.page_sizes();
    k.boot_requests = read_boot_requests(k.cmdline, sizes.default_size_kb);
    if (auto request = threaded_request(k.boot_requests, sizes, k.default_hugepage_size_kb))
        k.last_boot_allocation =
            allocation_line_for_pool(log, request->size_kb, sizes.largest_buddy_block_kb);
    return k;
}

Virtualization read_virtualization(const KernelFs& fs) {
    Virtualization v;
    if (auto cpuinfo = cpuinfo_text(fs)) {
        v.read = true;
        // The CPUID hypervisor bit, which every mainstream hypervisor sets for its guests.
        std::istringstream in(*cpuinfo);
        std::string line;
        while (std::getline(in, line)) {
            if (!line.starts_with("flags"))
                continue;
            std::istringstream words(line.substr(line.find(':') + 1));
            std::string w;
            while (words >> w)
                if (w == "hypervisor")
                    v.hypervisor = true;
            break;
        }
    }
    if (auto type = hypervisor_type(fs)) {
        v.read = true;
        v.hypervisor = true;
        v.vendor = *type;
    }
    if (v.hypervisor && v.vendor.empty()) {
        for (const char* name : {"sys_vendor", "product_name"}) {
            if (auto s = dmi_id(fs, name)) {
                v.vendor = *s;
                break;
            }
        }
    }
    return v;
}

std::optional<std::string> cpuinfo_field(const std::string& cpuinfo, std::string_view name) {
    std::istringstream in(cpuinfo);
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos || !line.starts_with(name))
            continue;
        const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
        const auto value_at = line.find_first_not_of(" \t", colon + 1);
        if (key == name && value_at != std::string::npos)
            return line.substr(value_at);
    }
    return std::nullopt;
}

Firmware read_firmware(const KernelFs& fs) {
    Firmware f;
    f.bios_version = dmi_id(fs, "bios_version");
    f.microcode = cpuinfo_field(cpuinfo_text(fs).value_or(""), "microcode");
    return f;
}

std::string hostname_of(const KernelFs& fs) {
    return kernel_hostname(fs).value_or("");
}

}  // namespace

std::vector<const NumaNode*> Topology::memory_nodes() const {
    std::vector<const NumaNode*> out;
    for (const auto& n : nodes)
        if (n.memory_bytes > 0)
            out.push_back(&n);
    return out;
}

const HugePool* KernelFacts::pool(std::uint64_t size_kb) const {
    for (const auto& p : pools)
        if (p.size_kb == size_kb)
            return &p;
    return nullptr;
}

model::PageSizeFacts KernelFacts::page_sizes() const {
    model::PageSizeFacts sizes;
    if (default_hugepage_size_kb)
        sizes.default_size_kb = *default_hugepage_size_kb;
    sizes.largest_buddy_block_kb = buddy.largest_block_kb();
    return sizes;
}

void require_gathered_tree(const KernelFs& fs) {
    if (fs.is_live())
        return;
    // What the CPU, the topology and hwloc's Linux discovery cannot do without; a tree lacking
    // one of them describes no machine, and a probe of it would report this host's threads.
    for (std::string_view needed :
         {kCpuinfoFile, kOnlineCpusFile, std::string_view("/sys/devices/system/node")})
        if (!fs.exists(needed))
            throw SettingError("root", fs.root().string() + " is not a gathered tree: it lacks " +
                                           std::string(needed) +
                                           "; copy /proc and /sys of the machine to describe");
}

std::optional<std::string> hypervisor_name(const Virtualization& v) {
    if (!v.read)
        return std::nullopt;
    if (!v.hypervisor)
        return std::string(model::kBareMetal);
    return v.vendor.empty() ? std::string("unnamed") : v.vendor;
}

Probe probe_machine(const KernelFs& fs) {
    require_gathered_tree(fs);
    Probe p;
    p.hostname = hostname_of(fs);
    p.hardware_identity = model::hardware_identity(dmi_product_uuid(fs), machine_id_file(fs));
    p.cpu = parse_cpuinfo(cpuinfo_text(fs).value_or(""));
    // arm64: the register itself where sysfs shows it, /proc/cpuinfo's fields otherwise
    // (docs/kernel-facts.md "The CPU's identity on arm64").
    if (auto text = cpu_midr_text(fs))
        if (auto midr = parse_midr(*text))
            set_midr(p.cpu, *midr);
    p.cpu.soc = {soc0_attribute(fs, "machine"), soc0_attribute(fs, "family"),
                 soc0_attribute(fs, "soc_id"), soc0_attribute(fs, "revision")};
    p.topology = read_topology(fs);
    p.kernel = read_kernel(fs, p.topology);
    p.virtualization = read_virtualization(fs);
    p.firmware = read_firmware(fs);
    return p;
}

}  // namespace hugetune
