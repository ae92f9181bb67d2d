#include <doctest/doctest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "model/documents/sku.hpp"
#include "model/documents/sweep.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/input/probe_nodes.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tuner/probe/machine_facts.hpp"
#include "tuner/probe/probe.hpp"

using namespace hugetune;
using hugetune::test::fixture;

namespace {

// A sweep the fit takes: three alloc thread counts and a grow point, whose time is split over
// the nodes the facts count.
model::MeasuredSweep sweep_at(std::uint64_t page_size_kb, const std::vector<int>& nodes) {
    model::MeasuredSweep sweep;
    sweep.page_size_kb = page_size_kb;
    sweep.nodes = nodes;
    for (int threads : {1, 2, 4}) {
        model::MeasuredPoint point;
        point.phase = std::string(model::kPhaseAlloc);
        point.threads_per_node = threads;
        point.pages_per_node = 64;
        point.page_size_kb = page_size_kb;
        point.samples_seconds = {1.0 / threads};
        sweep.points.push_back(point);
    }
    model::MeasuredPoint grow = sweep.points.front();
    grow.phase = std::string(model::kPhaseGrow);
    grow.nodes_serialised = true;
    sweep.points.push_back(grow);
    return sweep;
}

void check_same(const model::MachineFacts& typed, const model::MachineFacts& read) {
    CHECK(typed.microarch == read.microarch);
    CHECK(typed.nodes == read.nodes);
    CHECK(typed.online_cpus == read.online_cpus);
    CHECK(typed.hw_threads_per_node == read.hw_threads_per_node);
    CHECK(typed.init_on_alloc == read.init_on_alloc);
    CHECK(typed.boot_pool_pages == read.boot_pool_pages);
    CHECK(typed.boot_requests == read.boot_requests);
    CHECK(typed.current_pool_pages == read.current_pool_pages);
    CHECK(typed.hypervisor == read.hypervisor);
    CHECK(typed.kernel_release == read.kernel_release);
    CHECK(typed.supports_alloc_threads == read.supports_alloc_threads);
    CHECK(typed.kernel.hvo == read.kernel.hvo);
    CHECK(typed.kernel.hvo_sysctl == read.kernel.hvo_sysctl);
    CHECK(typed.kernel.vmemmap_freeable_kib_per_page == read.kernel.vmemmap_freeable_kib_per_page);
    CHECK(typed.kernel.zeroable_hugepages == read.kernel.zeroable_hugepages);
    CHECK(typed.largest_buddy_block_kb == read.largest_buddy_block_kb);
    CHECK(typed.sku_memory_nodes == read.sku_memory_nodes);
    CHECK(typed.sku_hardware_threads_per_node == read.sku_hardware_threads_per_node);
    CHECK(typed.sku_memory_per_node_gib == read.sku_memory_per_node_gib);
    CHECK(typed == read);  // and no field the list above misses
}

// The typed probe and its JSON give the fit the same machine at every page size the tree has,
// over the nodes with memory, one node, and nodes the probe does not know.
void check_tree(const std::filesystem::path& tree) {
    const Probe probe = probe_machine(KernelFs(tree));
    const nlohmann::json document = to_json(probe);
    REQUIRE_FALSE(probe.topology.nodes.empty());
    const std::vector<std::vector<int>> measured = {
        {}, {probe.topology.nodes.front().id}, {probe.topology.nodes.back().id, 4095}};
    for (const std::uint64_t size : probe.kernel.hugepage_sizes_kb)
        for (const auto& nodes : measured) {
            CAPTURE(tree.filename().string());
            CAPTURE(size);
            CAPTURE(nodes.size());
            const model::MeasuredSweep sweep = sweep_at(size, nodes);
            const model::SweepData read = model::fit_input(sweep, model::JsonField(document));
            const model::SweepData typed =
                model::fit_input(sweep, machine_facts(probe, size, nodes));
            check_same(typed.machine, read.machine);
            CHECK(typed.notes == read.notes);
            REQUIRE(typed.phase(model::kPhaseGrow) != nullptr);
            CHECK(typed.phase(model::kPhaseGrow)->points[0].seconds ==
                  read.phase(model::kPhaseGrow)->points[0].seconds);
        }
}

// A folder of this process's own: two suites run at once must not share one.
std::filesystem::path own_copy(const std::string& tree, const std::string& name) {
    const auto dir =
        std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::copy(fixture(tree), dir, std::filesystem::copy_options::recursive);
    return dir;
}

}  // namespace

TEST_CASE("machine facts: the typed probe gives what its JSON gives, on every fixture tree") {
    for (const char* tree : {"skylake-4node", "zen4-2node", "vm-1node", "neoverse-n1-1node",
                             "neoverse-v2-2node", "kunpeng920-64k"})
        check_tree(fixture(tree));
}

TEST_CASE("machine facts: the same on trees with init_on_alloc unknown and a second boot pool") {
    const auto unknown = own_copy("vm-1node", "hugetune-facts-unknown");
    std::filesystem::remove(unknown / "dev" / "kmsg");
    check_tree(unknown);
    std::filesystem::remove_all(unknown);

    const auto two_sizes = own_copy("skylake-4node", "hugetune-facts-two-sizes");
    std::filesystem::copy_file(
        test::source_dir() / "tests/fixtures/boot/logs/dmesg-arm64-6.15-two-sizes.log",
        two_sizes / "dev" / "kmsg", std::filesystem::copy_options::overwrite_existing);
    std::ofstream(two_sizes / "proc" / "cmdline")
        << "root=/dev/vda1 hugepagesz=2M hugepages=8192 hugepagesz=1G hugepages=4 "
           "hugepage_alloc_threads=8\n";
    check_tree(two_sizes);
    std::filesystem::remove_all(two_sizes);
}

TEST_CASE("machine facts: the SKU key a report names") {
    // Four nodes of 36 threads, MemTotal 320 GiB each: installed as 384 GiB (2^8 x 1.5).
    const Probe skylake = probe_machine(KernelFs(fixture("skylake-4node")));
    CHECK(model::sku_key(machine_facts(skylake, 2048, {}), 2048) ==
          model::SkuKey{"skylake-sp", 4, 36, 384, 2048, false});
    // The key counts every node with memory, whichever the sweep measured.
    CHECK(model::sku_key(machine_facts(skylake, 2048, {0, 1}), 2048) ==
          model::SkuKey{"skylake-sp", 4, 36, 384, 2048, false});
    // Two nodes of 96 threads, MemTotal 384 GiB each; init_on_alloc=1 on the command line.
    const Probe zen = probe_machine(KernelFs(fixture("zen4-2node")));
    CHECK(model::sku_key(machine_facts(zen, 1048576, {}), 1048576) ==
          model::SkuKey{"zen4", 2, 96, 384, 1048576, true});
}

TEST_CASE("machine facts: a node without MemTotal keys the memory by hwloc's, to the GiB") {
    constexpr std::uint64_t kGiB = 1024ULL * 1024 * 1024;
    model::MachineFacts m;
    model::set_node_facts({{0, 8, 23 * kGiB + kGiB / 2 + 1, 0},
                           {1, 4, 0, 0},  // memoryless: not in the key
                           {2, 6, 30 * kGiB, 32 * kGiB}},
                          {}, m);
    CHECK(m.sku_memory_nodes == 2);
    CHECK(m.sku_hardware_threads_per_node == 8);
    CHECK(m.sku_memory_per_node_gib == 24);
    CHECK(m.nodes == 2);
    CHECK(m.hw_threads_per_node == 8);
}
