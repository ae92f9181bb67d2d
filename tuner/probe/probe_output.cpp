// The probe as JSON (for reports and `probe --json`) and as a short human summary.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "model/documents/json_values.hpp"
#include "model/text.hpp"
#include "tuner/probe/probe.hpp"

namespace hugetune {

using model::or_null;
namespace {

using nlohmann::json;

// "0xd0c": a MIDR field as the kernel's /proc/cpuinfo writes it.
std::string hex_text(int value, int digits) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%0*x", digits, static_cast<unsigned>(value));
    return text;
}

}  // namespace

namespace {

json topology_json(const Topology& t) {
    json nodes = json::array();
    for (const auto& n : t.nodes)
        nodes.push_back({{"id", n.id},
                         {"cpus", n.cpus},
                         {"memory_bytes", n.memory_bytes},
                         {"memory_total_bytes", n.memory_total_bytes}});
    return {{"packages", t.packages}, {"cores", t.cores}, {"pus", t.pus}, {"nodes", nodes}};
}

json pools_json(const KernelFacts& k) {
    json pools = json::array();
    for (const auto& pool : k.pools) {
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
    return pools;
}

// The command line's parameters, and the hugetlb ones again by name.
std::pair<json, json> cmdline_json(const KernelFacts& k) {
    json params = json::array();
    json hugetlb_params = json::object();
    for (const auto& c : k.cmdline.params) {
        params.push_back({{"name", c.name}, {"value", or_null(c.value)}});
        if (is_hugetlb_param(c.name))
            hugetlb_params[c.name] = c.value.value_or("");
    }
    return {params, hugetlb_params};
}

json kernel_json(const KernelFacts& k) {
    json boot = json::array();
    for (const auto& r : k.boot_requests)
        boot.push_back(
            {{"size_kb", r.size_kb}, {"pages", r.pages}, {"node_format", r.node_format}});
    json freeable = json::array();
    for (const auto& f : k.vmemmap_freeable)
        freeable.push_back({{"size_kb", f.size_kb}, {"kib_per_page", f.kib_per_page}});
    json last_line = nullptr;
    if (const auto& l = k.last_boot_allocation)
        last_line = {{"milliseconds", l->milliseconds}, {"threads", l->threads}, {"text", l->text}};
    auto [params, hugetlb_params] = cmdline_json(k);
    return {{"release", k.release},
            {"online_cpus", k.online_cpus},
            {"hugepage_sizes_kb", k.hugepage_sizes_kb},
            {"default_hugepage_size_kb", or_null(k.default_hugepage_size_kb)},
            {"base_page_kb", k.buddy.base_page_kb},
            {"max_page_order", k.buddy.max_page_order},
            {"largest_buddy_block_kb", k.buddy.largest_block_kb()},
            {"pools", pools_json(k)},
            {"cmdline", params},
            {"hugetlb_cmdline", hugetlb_params},
            {"supports_hugepage_alloc_threads", k.supports_hugepage_alloc_threads},
            {"default_alloc_threads", k.default_alloc_threads},
            {"cmdline_alloc_threads", or_null(k.cmdline_alloc_threads)},
            {"init_on_alloc", or_null(k.init_on_alloc)},
            {"init_on_alloc_source", k.init_on_alloc_source},
            {"hvo", or_null(k.hvo)},
            {"hvo_sysctl", k.hvo_sysctl},
            {"vmemmap_freeable", freeable},
            {"boot_pool", boot},
            {"last_boot_allocation", last_line}};
}

json cpu_json(const CpuIdentity& c) {
    json cpu = {{"vendor", c.vendor},     {"family", c.family},         {"model", c.model},
                {"stepping", c.stepping}, {"model_name", c.model_name}, {"microarch", c.microarch}};
    // arm64's identity, only where the machine has one (x86 keeps family, model and stepping).
    if (const auto& m = c.midr)
        cpu["midr"] = {{"implementer", m->implementer},
                       {"variant", m->variant},
                       {"architecture", m->architecture},
                       {"part", m->part},
                       {"revision", m->revision}};
    if (!c.soc.empty()) {
        json soc = json::object();
        for (const auto& [name, value] :
             {std::pair{"machine", &c.soc.machine}, std::pair{"family", &c.soc.family},
              std::pair{"soc_id", &c.soc.soc_id}, std::pair{"revision", &c.soc.revision}})
            if (*value)
                soc[name] = **value;
        cpu["soc"] = soc;
    }
    return cpu;
}

// The host block's identity: its source and hash, or no source and why
// (model/hardware_identity.hpp).
json hardware_identity_json(const model::HardwareIdentity& identity) {
    json out = {{"source", model::to_string(identity.source)}};
    if (identity.source == model::IdentitySource::none)
        out["reason"] = identity.reason;
    else
        out["sha256"] = identity.sha256;
    return out;
}

// Only what was read: the block is optional in the report (old reports have none); null when
// nothing was.
json firmware_json(const Firmware& f) {
    json firmware = json::object();
    if (f.bios_version)
        firmware["bios_version"] = *f.bios_version;
    if (f.microcode)
        firmware["microcode"] = *f.microcode;
    return firmware.empty() ? json(nullptr) : firmware;
}

}  // namespace

model::ProbeRecord probe_record(const Probe& p) {
    model::ProbeRecord r;
    r.host = {{"hostname", p.hostname},
              {"hardware_identity", hardware_identity_json(p.hardware_identity)}};
    r.cpu = cpu_json(p.cpu);
    r.topology = topology_json(p.topology);
    r.kernel = kernel_json(p.kernel);
    r.virtualization = {{"hypervisor", p.virtualization.hypervisor},
                        {"vendor", p.virtualization.vendor}};
    r.firmware = firmware_json(p.firmware);
    r.hostname = p.hostname;
    r.hardware_identity = p.hardware_identity;
    r.cpu_microarch = p.cpu.microarch;
    r.firmware_text = model::firmware_text(p.firmware.bios_version, p.firmware.microcode);
    return r;
}

nlohmann::json to_json(const Probe& p) {
    return model::to_json(probe_record(p));
}

std::string format_summary(const Probe& p) {
    std::ostringstream s;
    const auto& k = p.kernel;
    s << "host      " << (p.hostname.empty() ? "(unknown)" : p.hostname) << "\n";
    if (const auto& id = p.hardware_identity; id.source == model::IdentitySource::none)
        s << "identity  none: " << id.reason << "\n";
    else
        s << "identity  " << model::to_string(id.source) << ", sha256 " << id.sha256.substr(0, 16)
          << "...\n";
    s << "cpu       " << p.cpu.model_name << "\n";
    if (const auto& m = p.cpu.midr)
        s << "          " << p.cpu.vendor << " part " << hex_text(m->part, 3) << " r" << m->variant
          << "p" << m->revision << " -> " << p.cpu.microarch << "\n";
    else
        s << "          " << p.cpu.vendor << " family " << p.cpu.family << " model " << p.cpu.model
          << " stepping " << p.cpu.stepping << " -> " << p.cpu.microarch << "\n";
    if (p.cpu.microarch == kUnknownMicroarch)
        s << "          note: nothing identifies this CPU, so its SKU key starts with '"
          << kUnknownMicroarch
          << "': in the fleet database, hosts of every such CPU with the same nodes, threads "
             "and memory share one SKU\n";
    else if (!p.cpu.named())
        s << "          note: this CPU is not in hugetune's table, so its SKU key starts with its "
             "identity, '"
          << p.cpu.microarch << "': it shares a SKU only with hosts of the same CPU\n";
    if (const auto& soc = p.cpu.soc; !soc.empty())
        s << "soc       " << soc.machine.value_or(soc.soc_id.value_or(soc.family.value_or("")))
          << (soc.revision ? " revision " + *soc.revision : std::string()) << "\n";
    s << "topology  " << p.topology.packages << " package(s), " << p.topology.nodes.size()
      << " NUMA node(s), " << p.topology.cores << " cores, " << p.topology.pus
      << " hardware threads\n";
    for (const auto& n : p.topology.nodes)
        s << "          node " << n.id << ": " << n.cpus.size() << " threads, "
          << memory_text(static_cast<double>(n.memory_bytes)) << "\n";
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
