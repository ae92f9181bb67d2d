#include <doctest/doctest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include "model/documents/probe_record.hpp"
#include "model/input/json_fields.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/probe/probe.hpp"

using namespace hugetune;
using hugetune::test::fixture;

TEST_CASE("probe: 4-node 144-thread Skylake-SP server") {
    Probe p = probe_machine(KernelFs(fixture("skylake-4node")));
    CHECK(p.hostname == "skylake-4node");
    CHECK(p.cpu.vendor == "GenuineIntel");
    CHECK(p.cpu.family == 6);
    CHECK(p.cpu.model == 85);
    CHECK(p.cpu.stepping == 4);
    CHECK(p.cpu.microarch == "skylake-sp");

    CHECK(p.topology.packages == 4);
    CHECK(p.topology.cores == 72);
    CHECK(p.topology.pus == 144);
    REQUIRE(p.topology.nodes.size() == 4);
    CHECK(p.topology.memory_nodes().size() == 4);
    for (const auto& n : p.topology.nodes) {
        CHECK(n.cpus.size() == 36);
        CHECK(n.memory_bytes == 320ull << 30);
    }
    // Linux numbers first threads of all cores first: node 1 holds 18-35 and 90-107.
    const auto& n1 = p.topology.nodes[1];
    CHECK(n1.id == 1);
    CHECK(n1.cpus.front() == 18);
    CHECK(std::count(n1.cpus.begin(), n1.cpus.end(), 90) == 1);
    CHECK(std::count(n1.cpus.begin(), n1.cpus.end(), 72) == 0);
    // One thread per core before any SMT sibling.
    REQUIRE(n1.core_order.size() == 36);
    std::set<int> first_half(n1.core_order.begin(), n1.core_order.begin() + 18);
    for (int cpu = 18; cpu < 36; ++cpu)
        CHECK(first_half.count(cpu) == 1);

    const auto& k = p.kernel;
    CHECK(k.release == "6.15.0-hugetune-fixture");
    CHECK(k.supports_hugepage_alloc_threads);
    CHECK(k.online_cpus == 144);
    CHECK(k.default_alloc_threads == 36);
    CHECK(k.cmdline_alloc_threads == 32u);  // the later of 8 and 32
    CHECK(k.hugepage_sizes_kb == std::vector<std::uint64_t>{2048, 1048576});
    CHECK(k.default_hugepage_size_kb == 2048u);
    REQUIRE(k.pool(2048) != nullptr);
    CHECK(k.pool(2048)->nr == 524288);
    CHECK(k.pool(2048)->nodes.size() == 4);
    CHECK(k.pool(2048)->nodes[3].nr == 131072);
    CHECK(k.init_on_alloc == false);
    CHECK(k.init_on_alloc_source == "kernel config");
    CHECK(k.hvo == true);
    REQUIRE(k.boot_requests.size() == 1);
    CHECK(k.boot_requests[0].size_kb == 2048);
    CHECK(k.boot_requests[0].pages == 524288);
    CHECK_FALSE(k.boot_requests[0].node_format);
    REQUIRE(k.last_boot_allocation.has_value());
    CHECK(k.last_boot_allocation->milliseconds == 16012);
    CHECK(k.last_boot_allocation->threads == 32);
    CHECK_FALSE(p.virtualization.hypervisor);
}

TEST_CASE("probe: firmware from the DMI table and cpuinfo, absent where the tree has none") {
    const Probe skylake = probe_machine(KernelFs(fixture("skylake-4node")));
    CHECK(skylake.firmware.bios_version == "2.19.1");
    CHECK(skylake.firmware.microcode == "0x2007006");
    const auto j = to_json(skylake);
    CHECK(j["firmware"] == nlohmann::json{{"bios_version", "2.19.1"}, {"microcode", "0x2007006"}});
    const Probe vm = probe_machine(KernelFs(fixture("vm-1node")));
    CHECK_FALSE(vm.firmware.bios_version);
    CHECK_FALSE(vm.firmware.microcode);
    CHECK_FALSE(to_json(vm).contains("firmware"));
}

// A report takes the host's name, identity, microarchitecture and firmware from the record typed,
// as made from the probe in `run`; `fit` and the report's reader read them from the blocks. Both
// give the same facts.
TEST_CASE("probe: the record's typed facts are the ones read back from its blocks") {
    const auto same = [](const Probe& p) {
        const model::ProbeRecord made = probe_record(p);
        const model::ProbeRecord read =
            model::read_probe_record(model::JsonField(model::to_json(made)));
        CHECK(made.hostname == p.hostname);
        CHECK(read.hostname == made.hostname);
        CHECK(read.hardware_identity == made.hardware_identity);
        CHECK(read.cpu_microarch == made.cpu_microarch);
        CHECK(read.firmware_text == made.firmware_text);
        CHECK(model::to_json(read) == model::to_json(made));
        return made;
    };
    for (const char* tree : {"skylake-4node", "zen4-2node", "vm-1node", "neoverse-n1-1node",
                             "neoverse-v2-2node", "kunpeng920-64k"}) {
        CAPTURE(tree);
        same(probe_machine(KernelFs(fixture(tree))));
    }
    Probe skylake = probe_machine(KernelFs(fixture("skylake-4node")));
    CHECK(same(skylake).firmware_text == "bios 2.19.1, microcode 0x2007006");
    skylake.firmware.bios_version.reset();
    CHECK(same(skylake).firmware_text == "bios unknown, microcode 0x2007006");
    skylake.firmware.microcode.reset();
    CHECK_FALSE(same(skylake).firmware_text.has_value());
}

TEST_CASE("probe: the hardware identity, from the DMI table, the machine ID or neither") {
    const Probe skylake = probe_machine(KernelFs(fixture("skylake-4node")));
    CHECK(skylake.hardware_identity.source == model::IdentitySource::dmi_product_uuid);
    CHECK(skylake.hardware_identity.sha256 ==
          model::identity_hash(model::IdentitySource::dmi_product_uuid,
                               "4c4c4544-0051-3010-8052-b4c04f4b4e32"));
    const auto host = to_json(skylake)["host"];
    CHECK(host["hostname"] == "skylake-4node");
    CHECK(host["hardware_identity"] ==
          nlohmann::json{{"source", "dmi_product_uuid"},
                         {"sha256", skylake.hardware_identity.sha256}});
    // Neither the UUID nor the machine ID is written anywhere in the probe's output.
    const std::string text = to_json(skylake).dump() + format_summary(skylake);
    CHECK(text.find("4c4c4544") == std::string::npos);
    CHECK(text.find("4C4C4544") == std::string::npos);
    CHECK(text.find("b08dfa60") == std::string::npos);
    CHECK(format_summary(skylake).find("identity  dmi_product_uuid, sha256 " +
                                       skylake.hardware_identity.sha256.substr(0, 16)) !=
          std::string::npos);

    // No DMI table: the machine ID; a UUID of zeros names no machine: the machine ID too.
    for (const char* tree : {"zen4-2node", "neoverse-n1-1node"}) {
        CAPTURE(tree);
        const Probe p = probe_machine(KernelFs(fixture(tree)));
        CHECK(p.hardware_identity.source == model::IdentitySource::machine_id);
        CHECK(model::is_identity_hash(p.hardware_identity.sha256));
    }
    const Probe vm = probe_machine(KernelFs(fixture("vm-1node")));
    CHECK(vm.hardware_identity.source == model::IdentitySource::none);
    CHECK(vm.hardware_identity.reason ==
          "/sys/class/dmi/id/product_uuid is absent; /etc/machine-id is absent");
    CHECK(to_json(vm)["host"]["hardware_identity"] ==
          nlohmann::json{{"source", "none"}, {"reason", vm.hardware_identity.reason}});
    CHECK(format_summary(vm).find("identity  none: /sys/class/dmi/id/product_uuid is absent") !=
          std::string::npos);
}

TEST_CASE("probe: 2-node 192-thread Zen 4 server with node-format hugepages=") {
    Probe p = probe_machine(KernelFs(fixture("zen4-2node")));
    CHECK(p.cpu.microarch == "zen4");
    CHECK(p.topology.pus == 192);
    REQUIRE(p.topology.nodes.size() == 2);
    CHECK(p.topology.nodes[0].cpus.size() == 96);
    const auto& k = p.kernel;
    CHECK_FALSE(k.supports_hugepage_alloc_threads);  // 6.12
    CHECK(k.default_alloc_threads == 48);
    CHECK(k.init_on_alloc == true);
    CHECK(k.init_on_alloc_source == "cmdline");
    REQUIRE(k.boot_requests.size() == 2);
    CHECK(k.boot_requests[0].size_kb == 1048576);
    CHECK(k.boot_requests[0].pages == 32);
    CHECK(k.boot_requests[0].node_format);
    CHECK(k.boot_requests[1].size_kb == 2048);
    CHECK(k.boot_requests[1].pages == 8192);
    CHECK_FALSE(k.last_boot_allocation.has_value());
}

TEST_CASE("probe: 1-node VM") {
    Probe p = probe_machine(KernelFs(fixture("vm-1node")));
    CHECK(p.cpu.microarch == "emeraldrapids");
    CHECK(p.topology.pus == 2);
    REQUIRE(p.topology.nodes.size() == 1);
    CHECK(p.topology.nodes[0].cpus == std::vector<int>{0, 1});
    CHECK(p.virtualization.hypervisor);
    CHECK(p.kernel.default_alloc_threads == 1);
    CHECK(p.kernel.init_on_alloc == false);
    CHECK(p.kernel.init_on_alloc_source == "boot log");
    CHECK(p.kernel.boot_requests.empty());
}

TEST_CASE("probe: arm64 Neoverse N1, 1 node, MIDR from sysfs, SoC from soc0") {
    Probe p = probe_machine(KernelFs(fixture("neoverse-n1-1node")));
    REQUIRE(p.cpu.midr);
    CHECK(p.cpu.midr->implementer == 0x41);
    CHECK(p.cpu.midr->part == 0xd0c);
    CHECK(p.cpu.midr->variant == 3);
    CHECK(p.cpu.midr->revision == 1);
    CHECK(p.cpu.vendor == "ARM");
    CHECK(p.cpu.model_name == "Neoverse N1");
    CHECK(p.cpu.microarch == "neoverse-n1");
    CHECK(p.cpu.soc.family == "jep106:0a16");
    CHECK(p.cpu.soc.soc_id == "jep106:0a16:0001");
    CHECK_FALSE(p.cpu.soc.machine.has_value());
    CHECK(p.topology.pus == 80);
    REQUIRE(p.topology.nodes.size() == 1);
    CHECK(p.kernel.hugepage_sizes_kb == std::vector<std::uint64_t>{64, 2048, 32768, 1048576});
    CHECK(p.kernel.default_alloc_threads == 20);

    const auto j = to_json(p);
    CHECK(j["cpu"]["microarch"] == "neoverse-n1");
    CHECK(j["cpu"]["midr"]["part"] == 0xd0c);
    CHECK(j["cpu"]["soc"]["soc_id"] == "jep106:0a16:0001");
    CHECK_FALSE(j["cpu"]["soc"].contains("machine"));
    const auto text = format_summary(p);
    CHECK(text.find("ARM part 0xd0c r3p1 -> neoverse-n1") != std::string::npos);
    // x86 has no MIDR and no soc block.
    const auto x86 = to_json(probe_machine(KernelFs(fixture("skylake-4node"))));
    CHECK_FALSE(x86["cpu"].contains("midr"));
    CHECK_FALSE(x86["cpu"].contains("soc"));
}

TEST_CASE("probe: arm64 Neoverse V2, 2 nodes, MIDR from /proc/cpuinfo alone") {
    Probe p = probe_machine(KernelFs(fixture("neoverse-v2-2node")));
    REQUIRE(p.cpu.midr);
    CHECK(p.cpu.midr->part == 0xd4f);
    CHECK(p.cpu.microarch == "neoverse-v2");
    CHECK(p.cpu.soc.empty());
    CHECK(p.topology.pus == 144);
    REQUIRE(p.topology.nodes.size() == 2);
    CHECK(p.topology.nodes[1].cpus.size() == 72);
    CHECK(p.kernel.supports_hugepage_alloc_threads);
}

TEST_CASE("probe: arm64 Kunpeng 920 with 64 KiB base pages") {
    Probe p = probe_machine(KernelFs(fixture("kunpeng920-64k")));
    CHECK(p.cpu.vendor == "HiSilicon");
    CHECK(p.cpu.microarch == "tsv110");
    CHECK(p.kernel.hugepage_sizes_kb == std::vector<std::uint64_t>{2048, 524288, 16777216});
    CHECK(p.kernel.default_hugepage_size_kb == 524288);
    REQUIRE(p.kernel.boot_requests.size() == 2);
    // hugepages= before any hugepagesz= is for the default size, 512M here.
    CHECK(p.kernel.boot_requests[0].size_kb == 524288);
    CHECK(p.kernel.boot_requests[0].pages == 64);
    CHECK(p.kernel.boot_requests[1].size_kb == 2048);
}

TEST_CASE("probe: JSON carries the documented fields") {
    auto j = to_json(probe_machine(KernelFs(fixture("skylake-4node"))));
    CHECK(j["host"]["hostname"] == "skylake-4node");
    CHECK(j["cpu"]["microarch"] == "skylake-sp");
    CHECK(j["cpu"]["stepping"] == 4);
    CHECK(j["topology"]["pus"] == 144);
    CHECK(j["topology"]["nodes"].size() == 4);
    CHECK(j["topology"]["nodes"][2]["cpus"].size() == 36);
    CHECK(j["topology"]["nodes"][2]["memory_bytes"] == 320ull << 30);
    CHECK(j["kernel"]["hugepage_sizes_kb"] == nlohmann::json({2048, 1048576}));
    CHECK(j["kernel"]["supports_hugepage_alloc_threads"] == true);
    CHECK(j["kernel"]["default_alloc_threads"] == 36);
    CHECK(j["kernel"]["init_on_alloc"] == false);
    CHECK(j["kernel"]["hugetlb_cmdline"]["hugepage_alloc_threads"] == "32");
    CHECK(j["virtualization"]["hypervisor"] == false);
    auto zen = to_json(probe_machine(KernelFs(fixture("zen4-2node"))));
    CHECK(zen["kernel"]["init_on_alloc"] == true);
}

namespace {

// A folder of this process's own: two suites run at once (the plain and the sanitizer build on
// one machine) must not share one.
std::filesystem::path own_temp_dir(const std::string& name) {
    return std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
}

}  // namespace

TEST_CASE("probe: an unknown init_on_alloc is null, not false") {
    // A tree with no cmdline setting, no kernel config and no auto-init line in the log.
    auto dir = own_temp_dir("hugetune-probe-unknown");
    std::filesystem::remove_all(dir);
    std::filesystem::copy(fixture("vm-1node"), dir, std::filesystem::copy_options::recursive);
    std::filesystem::remove(dir / "dev" / "kmsg");
    Probe p = probe_machine(KernelFs(dir));
    CHECK_FALSE(p.kernel.init_on_alloc.has_value());
    CHECK(p.kernel.init_on_alloc_source == "unknown");
    CHECK(to_json(p)["kernel"]["init_on_alloc"].is_null());
    std::filesystem::remove_all(dir);
}

TEST_CASE("probe: a CPU the table does not name is said to share its SKU with other such CPUs") {
    // The Skylake tree with the family 6 model 167 of an Intel client part, which no row names.
    auto dir = own_temp_dir("hugetune-probe-unnamed-cpu");
    std::filesystem::remove_all(dir);
    std::filesystem::copy(fixture("skylake-4node"), dir, std::filesystem::copy_options::recursive);
    std::string cpuinfo;
    {
        std::ifstream in(dir / "proc" / "cpuinfo");
        cpuinfo.assign(std::istreambuf_iterator<char>(in), {});
    }
    for (auto at = cpuinfo.find("model\t\t: 85\n"); at != std::string::npos;
         at = cpuinfo.find("model\t\t: 85\n", at))
        cpuinfo.replace(at, 11, "model\t\t: 1234");
    std::ofstream(dir / "proc" / "cpuinfo", std::ios::trunc) << cpuinfo;
    const Probe unnamed = probe_machine(KernelFs(dir));
    std::filesystem::remove_all(dir);
    CHECK(unnamed.cpu.model == 1234);
    // Its identity, not `unknown`: hosts of different unnamed CPUs get different SKU keys.
    CHECK(unnamed.cpu.microarch == "intel-6-1234-4");
    CHECK_FALSE(unnamed.cpu.named());
    const std::string text = format_summary(unnamed);
    const std::string note =
        "          note: this CPU is not in hugetune's table, so its SKU key starts with its "
        "identity, 'intel-6-1234-4': it shares a SKU only with hosts of the same CPU\n";
    CHECK(text.find("model 1234 stepping 4 -> intel-6-1234-4\n" + note) != std::string::npos);

    const Probe named = probe_machine(KernelFs(fixture("skylake-4node")));
    CHECK(named.cpu.named());
    CHECK(format_summary(named).find("note:") == std::string::npos);
    CHECK(format_summary(named).find("not in hugetune's table") == std::string::npos);
}

TEST_CASE("probe: the boot allocation is the requested pool's line, not an empty size's") {
    auto dir = own_temp_dir("hugetune-probe-two-sizes");
    std::filesystem::remove_all(dir);
    std::filesystem::copy(fixture("skylake-4node"), dir, std::filesystem::copy_options::recursive);
    std::filesystem::copy_file(
        test::source_dir() / "tests/fixtures/boot/logs/dmesg-arm64-6.15-two-sizes.log",
        dir / "dev" / "kmsg", std::filesystem::copy_options::overwrite_existing);
    std::ofstream(dir / "proc" / "cmdline") << "root=/dev/vda1 hugepagesz=2M hugepages=8192 "
                                               "hugepage_alloc_threads=8\n";
    Probe p = probe_machine(KernelFs(dir));
    REQUIRE(p.kernel.last_boot_allocation.has_value());
    CHECK(p.kernel.last_boot_allocation->milliseconds == 96);
    std::filesystem::remove_all(dir);
}

TEST_CASE("probe: the HVO sysctl, what HVO frees and per-node zeroable_hugepages") {
    const Probe skylake = probe_machine(KernelFs(fixture("skylake-4node")));
    CHECK(skylake.kernel.hvo_sysctl);
    REQUIRE(skylake.kernel.vmemmap_freeable.size() == 1);
    CHECK(skylake.kernel.vmemmap_freeable[0].size_kb == 2048);
    CHECK(skylake.kernel.vmemmap_freeable[0].kib_per_page == 28);
    for (const auto& pool : skylake.kernel.pools)
        for (const auto& node : pool.nodes)
            CHECK_FALSE(node.zeroable);
    // A kernel without the sysctl: HVO cannot be switched at run time, and is unknown here.
    const Probe vm = probe_machine(KernelFs(fixture("vm-1node")));
    CHECK_FALSE(vm.kernel.hvo_sysctl);
    CHECK_FALSE(vm.kernel.hvo);
    CHECK(format_summary(vm).find("no /proc/sys/vm/hugetlb_optimize_vmemmap") != std::string::npos);
    // A kernel with the proposed pre-zeroing interface.
    const Probe zen = probe_machine(KernelFs(fixture("zen4-2node")));
    const HugePool* pool = zen.kernel.pool(2048);
    REQUIRE(pool);
    REQUIRE(pool->nodes.size() == 2);
    for (const auto& node : pool->nodes)
        CHECK(node.zeroable == 1024u);
    CHECK_FALSE(zen.kernel.pool(1048576)->nodes[0].zeroable);
    const auto j = to_json(zen);
    CHECK(j["kernel"]["hvo_sysctl"] == true);
    for (const auto& p : j["kernel"]["pools"])
        CHECK(p["nodes"][0].contains("zeroable_hugepages") == (p["size_kb"] == 2048));
    CHECK(format_summary(zen).find("2048 free not yet zeroed (zeroable_hugepages)") !=
          std::string::npos);
    CHECK(to_json(vm)["kernel"]["hvo_sysctl"] == false);
}

TEST_CASE("kernel log lines: kmsg records and dmesg lines lose their prefix") {
    CHECK(strip_kernel_log_prefix("6,1234,4350400,-;HugeTLB: allocation took 706ms") ==
          "HugeTLB: allocation took 706ms");
    CHECK(strip_kernel_log_prefix("[    4.350400] HugeTLB: x") == "HugeTLB: x");
    CHECK(strip_kernel_log_prefix("plain text; with semicolon") == "plain text; with semicolon");
    CHECK(strip_kernel_log_prefix("Dec 01 03:00:04 db7 kernel: HugeTLB: x") == "HugeTLB: x");
    CHECK(strip_kernel_log_prefix("2026-12-01T03:00:04+00:00 db7 kernel: Linux version 6.15.0") ==
          "Linux version 6.15.0");
}

TEST_CASE("kernel fs: reads under the root, absent files are nothing") {
    KernelFs fs(fixture("vm-1node"));
    CHECK_FALSE(fs.is_live());
    CHECK(fs.read_u64("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages") == 0u);
    CHECK_FALSE(fs.read("/no/such/file").has_value());
    CHECK_FALSE(fs.read_u64("/proc/cmdline").has_value());  // not a number
    CHECK(fs.list("/sys/kernel/mm/hugepages").size() == 2);
    CHECK(fs.list("/no/such/dir").empty());
    CHECK(KernelFs("/").is_live());
}

TEST_CASE("probe: arm64 boot pools of several non-gigantic sizes, each with its own line") {
    // 4 KiB pages: 64K and 2M are threaded; the default size's (2M) line is the second.
    Probe n1 = probe_machine(KernelFs(fixture("neoverse-n1-1node")));
    CHECK(n1.kernel.buddy.largest_block_kb() == 4096);
    REQUIRE(n1.kernel.last_boot_allocation);
    CHECK(n1.kernel.last_boot_allocation->milliseconds == 1210);
    // 64 KiB pages: 512M is not gigantic there, so its pool has the first of two lines; with
    // x86-64's 4 MiB rule the 512M pool would have had none.
    Probe k = probe_machine(KernelFs(fixture("kunpeng920-64k")));
    CHECK(k.kernel.buddy.base_page_kb == 64);
    CHECK(k.kernel.buddy.max_page_order == 13);
    REQUIRE(k.kernel.last_boot_allocation);
    CHECK(k.kernel.last_boot_allocation->milliseconds == 2380);
    CHECK(k.kernel.last_boot_allocation->threads == 24);
    const auto j = to_json(k);
    CHECK(j["kernel"]["largest_buddy_block_kb"] == 512 * 1024);
    CHECK(j["kernel"]["base_page_kb"] == 64);
    CHECK(format_summary(k).find("16 GiB: 0 pages") != std::string::npos);
    CHECK(format_summary(k).find("[gigantic: not allocated by the boot threads]") !=
          std::string::npos);
}
