// The probe as JSON (for reports and `probe --json`) and as a short human summary.
#include <cstdio>
#include <sstream>
#include <utility>

#include "model/text.hpp"
#include "tuner/probe/probe.hpp"

namespace hugetune {
namespace {

using nlohmann::json;

template <typename T>
json optional_json(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

std::string gib_text(std::uint64_t bytes) {
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(1);
    s << static_cast<double>(bytes) / (1024.0 * 1024 * 1024) << " GiB";
    return s.str();
}

// "0xd0c": a MIDR field as the kernel's /proc/cpuinfo writes it.
std::string hex_text(int value, int digits) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%0*x", digits, static_cast<unsigned>(value));
    return text;
}

}  // namespace

nlohmann::json to_json(const Probe& p) {
    json nodes = json::array();
    for (const auto& n : p.topology.nodes)
        nodes.push_back({{"id", n.id},
                         {"cpus", n.cpus},
                         {"memory_bytes", n.memory_bytes},
                         {"memory_total_bytes", n.memory_total_bytes}});

    json pools = json::array();
    for (const auto& pool : p.kernel.pools) {
        json per_node = json::array();
        for (const auto& np : pool.nodes) {
            json node = {
                {"node", np.node}, {"nr", np.nr}, {"free", np.free}, {"surplus", np.surplus}};
            if (np.zeroable)
                node["zeroable_hugepages"] = *np.zeroable;
            per_node.push_back(std::move(node));
        }
        pools.push_back({{"size_kb", pool.size_kb},
                         {"nr", pool.nr},
                         {"free", pool.free},
                         {"surplus", pool.surplus},
                         {"reserved", pool.reserved},
                         {"nr_overcommit", pool.overcommit},
                         {"nodes", per_node}});
    }
    json params = json::array();
    json hugetlb_params = json::object();
    for (const auto& c : p.kernel.cmdline.params) {
        params.push_back({{"name", c.name}, {"value", optional_json(c.value)}});
        if (is_hugetlb_param(c.name))
            hugetlb_params[c.name] = c.value.value_or("");
    }
    json boot = json::array();
    for (const auto& r : p.kernel.boot_requests)
        boot.push_back(
            {{"size_kb", r.size_kb}, {"pages", r.pages}, {"node_format", r.node_format}});
    json freeable = json::array();
    for (const auto& f : p.kernel.vmemmap_freeable)
        freeable.push_back({{"size_kb", f.size_kb}, {"kib_per_page", f.kib_per_page}});
    json last_line = nullptr;
    if (const auto& l = p.kernel.last_boot_allocation)
        last_line = {{"milliseconds", l->milliseconds}, {"threads", l->threads}, {"text", l->text}};

    nlohmann::json out = {
        {"host", {{"hostname", p.hostname}}},
        {"cpu",
         {{"vendor", p.cpu.vendor},
          {"family", p.cpu.family},
          {"model", p.cpu.model},
          {"stepping", p.cpu.stepping},
          {"model_name", p.cpu.model_name},
          {"microarch", p.cpu.microarch}}},
        {"topology",
         {{"packages", p.topology.packages},
          {"cores", p.topology.cores},
          {"pus", p.topology.pus},
          {"nodes", nodes}}},
        {"kernel",
         {{"release", p.kernel.release},
          {"online_cpus", p.kernel.online_cpus},
          {"hugepage_sizes_kb", p.kernel.hugepage_sizes_kb},
          {"default_hugepage_size_kb", optional_json(p.kernel.default_hugepage_size_kb)},
          {"base_page_kb", p.kernel.buddy.base_page_kb},
          {"max_page_order", p.kernel.buddy.max_page_order},
          {"largest_buddy_block_kb", p.kernel.buddy.largest_block_kb()},
          {"pools", pools},
          {"cmdline", params},
          {"hugetlb_cmdline", hugetlb_params},
          {"supports_hugepage_alloc_threads", p.kernel.supports_hugepage_alloc_threads},
          {"default_alloc_threads", p.kernel.default_alloc_threads},
          {"cmdline_alloc_threads", optional_json(p.kernel.cmdline_alloc_threads)},
          {"init_on_alloc", optional_json(p.kernel.init_on_alloc)},
          {"init_on_alloc_source", p.kernel.init_on_alloc_source},
          {"hvo", optional_json(p.kernel.hvo)},
          {"hvo_sysctl", p.kernel.hvo_sysctl},
          {"vmemmap_freeable", freeable},
          {"boot_pool", boot},
          {"last_boot_allocation", last_line}}},
        {"virtualization",
         {{"hypervisor", p.virtualization.hypervisor}, {"vendor", p.virtualization.vendor}}},
    };
    // arm64's identity, only where the machine has one (x86 keeps family, model and stepping).
    if (const auto& m = p.cpu.midr)
        out["cpu"]["midr"] = {{"implementer", m->implementer},
                              {"variant", m->variant},
                              {"architecture", m->architecture},
                              {"part", m->part},
                              {"revision", m->revision}};
    if (!p.cpu.soc.empty()) {
        json soc = json::object();
        for (const auto& [name, value] :
             {std::pair{"machine", &p.cpu.soc.machine}, std::pair{"family", &p.cpu.soc.family},
              std::pair{"soc_id", &p.cpu.soc.soc_id}, std::pair{"revision", &p.cpu.soc.revision}})
            if (*value)
                soc[name] = **value;
        out["cpu"]["soc"] = soc;
    }
    // Only what was read: the block is optional in the report (old reports have none).
    nlohmann::json firmware = nlohmann::json::object();
    if (p.firmware.bios_version)
        firmware["bios_version"] = *p.firmware.bios_version;
    if (p.firmware.microcode)
        firmware["microcode"] = *p.firmware.microcode;
    if (!firmware.empty())
        out["firmware"] = firmware;
    return out;
}

std::string format_summary(const Probe& p) {
    std::ostringstream s;
    const auto& k = p.kernel;
    s << "host      " << (p.hostname.empty() ? "(unknown)" : p.hostname) << "\n";
    s << "cpu       " << p.cpu.model_name << "\n";
    if (const auto& m = p.cpu.midr)
        s << "          " << p.cpu.vendor << " part " << hex_text(m->part, 3) << " r" << m->variant
          << "p" << m->revision << " -> " << p.cpu.microarch << "\n";
    else
        s << "          " << p.cpu.vendor << " family " << p.cpu.family << " model " << p.cpu.model
          << " stepping " << p.cpu.stepping << " -> " << p.cpu.microarch << "\n";
    if (const auto& soc = p.cpu.soc; !soc.empty())
        s << "soc       " << soc.machine.value_or(soc.soc_id.value_or(soc.family.value_or("")))
          << (soc.revision ? " revision " + *soc.revision : std::string()) << "\n";
    s << "topology  " << p.topology.packages << " package(s), " << p.topology.nodes.size()
      << " NUMA node(s), " << p.topology.cores << " cores, " << p.topology.pus
      << " hardware threads\n";
    for (const auto& n : p.topology.nodes)
        s << "          node " << n.id << ": " << n.cpus.size() << " threads, "
          << gib_text(n.memory_bytes) << "\n";
    s << "virtual   "
      << (p.virtualization.hypervisor
              ? "yes" +
                    (p.virtualization.vendor.empty() ? "" : " (" + p.virtualization.vendor + ")") +
                    ": timings include the host"
              : std::string("no hypervisor seen"))
      << "\n";
    s << "kernel    " << k.release << "\n";
    s << "          hugepage_alloc_threads= "
      << (k.supports_hugepage_alloc_threads ? "honoured" : "ignored (needs Linux 6.15 or later)")
      << "; default " << k.default_alloc_threads << " thread(s) total";
    if (k.cmdline_alloc_threads)
        s << "; cmdline sets " << *k.cmdline_alloc_threads;
    s << "\n";
    s << "          init_on_alloc "
      << (k.init_on_alloc ? (*k.init_on_alloc ? "on" : "off") : "unknown") << " ("
      << k.init_on_alloc_source << "), HVO " << (k.hvo ? (*k.hvo ? "on" : "off") : "unknown")
      << (k.hvo_sysctl ? "" : " (no /proc/sys/vm/hugetlb_optimize_vmemmap)") << "\n";
    for (const auto& pool : k.pools) {
        s << "pool      " << page_size_text(pool.size_kb) << ": " << pool.nr << " pages ("
          << pool.free << " free, " << pool.surplus << " surplus), overcommit " << pool.overcommit;
        if (k.default_hugepage_size_kb && *k.default_hugepage_size_kb == pool.size_kb)
            s << " [default size]";
        if (k.page_sizes().gigantic(pool.size_kb))
            s << " [gigantic: not allocated by the boot threads]";
        std::uint64_t zeroable = 0;
        bool has_zeroable = false;
        for (const auto& np : pool.nodes)
            if (np.zeroable) {
                has_zeroable = true;
                zeroable += *np.zeroable;
            }
        if (has_zeroable)
            s << ", " << zeroable << " free not yet zeroed (zeroable_hugepages)";
        s << "\n";
    }
    if (k.boot_requests.empty())
        s << "boot pool none requested on the command line\n";
    for (const auto& r : k.boot_requests)
        s << "boot pool " << r.pages << " x " << page_size_text(r.size_kb)
          << (r.node_format ? " (node format: serial path, the parameter does not apply)" : "")
          << "\n";
    if (k.last_boot_allocation)
        s << "last boot " << k.last_boot_allocation->milliseconds << " ms with "
          << k.last_boot_allocation->threads << " thread(s)\n";
    return s.str();
}

}  // namespace hugetune
