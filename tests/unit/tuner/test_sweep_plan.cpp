// The sweep plan on gathered trees: which CPUs each node's threads use, how much memory a node
// may give, oversubscription, refusals, and that the sample does not grow with the machine.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "model/errors.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/plan.hpp"

using namespace hugetune;

namespace {

constexpr std::uint64_t kMib = 1024 * 1024;

struct Fixture {
    KernelFs fs;
    Probe probe;
    MemoryView memory;
    explicit Fixture(const std::string& name)
        : fs(std::string(HUGETUNE_SOURCE_DIR) + "/tests/fixtures/" + name),
          probe(probe_machine(fs)),
          memory(read_memory_view(fs, probe)) {}
    SweepPlan plan(const SweepOptions& o = {}) const { return plan_sweep(probe, memory, o); }
};

// A value the engine refuses: the setting it names and the message the command line prints
// after that setting's flag. The message itself names no flag.
struct Refusal {
    std::string setting;
    std::string message;
};

Refusal refusal(const Fixture& f, const SweepOptions& o) {
    try {
        f.plan(o);
    } catch (const SettingError& e) {
        CHECK(std::string(e.what()).find("--") == std::string::npos);
        return {e.setting, e.what()};
    }
    return {"(no SettingError)", ""};
}

}  // namespace

TEST_CASE("skylake-4node: four nodes, threads on distinct cores before SMT siblings") {
    Fixture f("skylake-4node");
    SweepPlan plan = f.plan();
    REQUIRE(plan.nodes.size() == 4);
    CHECK(plan.node_ids() == std::vector<int>{0, 1, 2, 3});
    CHECK(plan.skipped_nodes.empty());
    const NodePlan& n1 = plan.nodes[1];
    CHECK(n1.hardware_threads == 36);
    REQUIRE(n1.cpus.size() == 32);  // one per thread at the largest N
    // Node 1 has cores 18..35 with SMT siblings 90..107: the 18 cores first.
    for (int i = 0; i < 18; ++i)
        CHECK(n1.cpus[static_cast<std::size_t>(i)] == 18 + i);
    CHECK(n1.cpus[18] == 90);
    CHECK(n1.cpus[31] == 103);
    CHECK(plan.pages_per_node == kDefaultSampleMib * kMib / (2 * kMib));
    CHECK(plan.sample_mib_per_node == kDefaultSampleMib);
    // 13 points: alloc and zero at six counts, grow at N = 1 only; the HVO pass adds grow at 1.
    CHECK(plan.points.size() == 14);
    CHECK(plan.timed_repetitions == 70);
    for (const auto& p : plan.points) {
        CHECK_FALSE(p.oversubscribed);  // 32 <= 36 hardware threads per node
        // Boot placement grows the global pool with one writer, as the boot makes one request.
        CHECK(p.total_threads == (p.phase == Phase::grow ? 1 : 4 * p.threads_per_node));
        if (p.phase == Phase::grow)
            CHECK(p.threads_per_node == 1);
    }
    CHECK(plan.estimated_seconds > 0);
}

TEST_CASE("skylake-4node: a node may give min(its MemFree, MemAvailable) x fraction") {
    Fixture f("skylake-4node");
    SweepOptions local;
    local.placement = Placement::node_local;
    SweepPlan plan = f.plan(local);
    // Node MemFree 301989888 kB (288 GiB) is below MemAvailable (1152 GiB).
    for (const auto& n : plan.nodes)
        CHECK(n.available_bytes == 301989888ull * 1024);
    CHECK(plan.memory_nodes.empty());
    // alloc/grow take a second sample while the zero phase's pool is held.
    CHECK(plan.nodes[0].peak_bytes == 2 * kDefaultSampleMib * kMib);
    SweepOptions zero_only = local;
    zero_only.phases = {Phase::zero};
    CHECK(f.plan(zero_only).nodes[0].peak_bytes == kDefaultSampleMib * kMib);

    // Boot placement: the same rule on every memory node, which the boot's split fills evenly
    // here (every chunk of 512 x 4 / (4 N) pages is a multiple of the 4 nodes).
    SweepPlan boot = f.plan();
    REQUIRE(boot.memory_nodes.size() == 4);
    for (const auto& m : boot.memory_nodes) {
        CHECK(m.available_bytes == 301989888ull * 1024);
        CHECK(m.peak_bytes == 2 * kDefaultSampleMib * kMib);
        CHECK(m.zero_pool_pages == 512);
    }
    SweepOptions boot_zero;
    boot_zero.phases = {Phase::zero};
    CHECK(f.plan(boot_zero).memory_nodes[3].peak_bytes == kDefaultSampleMib * kMib);
}

TEST_CASE("a sample that does not fit is refused with the largest one that does") {
    Fixture f("skylake-4node");
    SweepOptions o;
    o.sample_mib_per_node = 200000;
    // Boot placement: 400,000 pages in 128 chunks of 3,125 at 32 per node, each chunk one page
    // more on node 0 than on node 3, so node 0 holds 100,096 pages per sample.
    CHECK(refusal(f, o).message.find("200000 MiB per node needs 400384 MiB on node 0") == 0);
    o.placement = Placement::node_local;
    Refusal r = refusal(f, o);
    CHECK(r.setting == "sample_mib_per_node");
    CHECK(r.message.find("200000 MiB per node needs 400000 MiB on node 0") == 0);
    CHECK(r.message.find("the allowed fraction 0.5 of its 294912 MiB available") !=
          std::string::npos);
    // 0.5 x 294912 MiB shared by two samples.
    CHECK(r.message.find("; use 73728 or less") != std::string::npos);
    o.sample_mib_per_node = 73728;
    CHECK_NOTHROW(f.plan(o));
    o.sample_mib_per_node = 73730;
    CHECK(refusal(f, o).setting == "sample_mib_per_node");
    o.max_memory_fraction = 0.9;
    CHECK_NOTHROW(f.plan(o));
}

TEST_CASE("the default sample halves until it fits a small node; a given one is refused") {
    Fixture f("vm-1node");
    // 3 GiB free: 0.5 x 3 GiB holds two samples of 768 MiB at most -> 512 MiB, said so.
    f.memory.node_free_bytes[0] = 3072 * kMib;
    f.memory.mem_available_bytes = 20000 * kMib;
    SweepPlan plan = f.plan();
    CHECK(plan.sample_mib_per_node == 512);
    CHECK(plan.pages_per_node == 256);
    bool said = false;
    for (const auto& w : plan.warnings)
        said = said || w.find("default sample reduced to 512 MiB") != std::string::npos;
    CHECK(said);
    SweepOptions o;
    o.sample_mib_per_node = kDefaultSampleMib;
    CHECK(refusal(f, o).message.find("; use 768 or less") != std::string::npos);
    // Nothing fits, not even one page: the default is refused like a given sample.
    f.memory.node_free_bytes[0] = 4 * kMib;
    Refusal r = refusal(f, SweepOptions{});
    CHECK(r.setting == "sample_mib_per_node");
    CHECK(r.message.find("2 MiB per node") == 0);
    CHECK(r.message.find("allow a larger memory fraction") != std::string::npos);
    // Plenty of memory: the full default, no note.
    f.memory.node_free_bytes[0] = 20000 * kMib;
    CHECK(f.plan().sample_mib_per_node == kDefaultSampleMib);
}

TEST_CASE("oversubscription is flagged above a node's hardware threads") {
    Fixture vm("vm-1node");
    SweepOptions o;
    o.threads_per_node = {1, 2, 4};
    SweepPlan plan = vm.plan(o);
    REQUIRE(plan.nodes.size() == 1);
    CHECK(plan.nodes[0].cpus == std::vector<int>{0, 1, 0, 1});
    for (const auto& p : plan.points)
        CHECK(p.oversubscribed == (p.threads_per_node > 2));

    Fixture sky("skylake-4node");
    o.threads_per_node = {36, 37};
    for (const auto& p : sky.plan(o).points)
        CHECK(p.oversubscribed == (p.threads_per_node == 37));
}

TEST_CASE("zen4-2node: two nodes of 96 hardware threads") {
    Fixture f("zen4-2node");
    SweepOptions o;
    o.page_size_kb = 1024 * 1024;
    o.sample_mib_per_node = 2048;
    SweepPlan plan = f.plan(o);
    REQUIRE(plan.nodes.size() == 2);
    CHECK(plan.nodes[0].hardware_threads == 96);
    CHECK(plan.pages_per_node == 2);
    CHECK(plan.page_bytes == 1024 * kMib);
    bool gigantic_note = false, few_pages_note = false;
    for (const auto& w : plan.warnings) {
        gigantic_note = gigantic_note || w.find("gigantic") != std::string::npos;
        few_pages_note = few_pages_note || w.find("some threads get no page") != std::string::npos;
    }
    CHECK(gigantic_note);
    CHECK(few_pages_note);
    // No surplus gigantic pages exist (the kernel refuses their overcommit): no alloc phase.
    for (const auto& p : plan.points)
        CHECK(p.phase != Phase::alloc);
    CHECK(plan.options.phases == std::vector<Phase>{Phase::zero, Phase::grow});
    o.phases = {Phase::alloc};
    Refusal r = refusal(f, o);
    CHECK(r.setting == "phases");
    CHECK(r.message.find("the alloc phase needs surplus pages") == 0);
}

TEST_CASE("the default sample does not grow with the machine's memory") {
    // 24 GiB VM and 1.25 TiB four-node server: the same pages per node, the same points.
    SweepPlan small = Fixture("vm-1node").plan();
    SweepPlan big = Fixture("skylake-4node").plan();
    CHECK(small.pages_per_node == big.pages_per_node);
    CHECK(small.points.size() + 1 == big.points.size());  // the HVO pass: skylake has the sysctl
    // 12 TiB host: a hypothetical MemoryView with 3 TiB free per node changes nothing.
    Fixture sky("skylake-4node");
    MemoryView huge;
    for (int n = 0; n < 4; ++n)
        huge.node_free_bytes[n] = 3ull << 40;
    huge.mem_available_bytes = 12ull << 40;
    SweepPlan giant = plan_sweep(sky.probe, huge, {});
    CHECK(giant.pages_per_node == big.pages_per_node);
    CHECK(giant.estimated_seconds == doctest::Approx(big.estimated_seconds));
}

TEST_CASE("bad options are refused naming the option or the setting") {
    Fixture f("vm-1node");
    SweepOptions o;
    o.page_size_kb = 16 * 1024;
    Refusal r = refusal(f, o);
    CHECK(r.setting == "page_size");
    CHECK(r.message.find("this kernel has no 16M huge pages; available: 2M, 1G") == 0);
    o = {};
    o.page_size_kb = 1024 * 1024;
    o.sample_mib_per_node = 1000;
    r = refusal(f, o);
    CHECK(r.setting == "sample_mib_per_node");
    CHECK(r.message ==
          "1000 is not a positive multiple of the page size (1024 MiB); use e.g. 4096");
    o = {};
    o.page_size_kb = 1024 * 1024;  // default sample for 1 GiB pages: one page
    CHECK(f.plan(o).pages_per_node == 1);
}

TEST_CASE("no hugetlb in the kernel is UnsupportedError") {
    Fixture f("vm-1node");
    Probe p = f.probe;
    p.kernel.hugepage_sizes_kb.clear();
    p.kernel.pools.clear();
    CHECK_THROWS_AS(plan_sweep(p, f.memory, {}), UnsupportedError);
}

namespace {

bool has_note(const SweepPlan& plan, const std::string& text) {
    for (const auto& w : plan.warnings)
        if (w.find(text) != std::string::npos)
            return true;
    return false;
}

// The 2-node Zen 4 fixture with node 1's CPUs taken away: a node with memory and no CPUs.
Probe memory_only_node1(const Fixture& f) {
    Probe p = f.probe;
    p.topology.nodes[1].cpus.clear();
    p.topology.nodes[1].core_order.clear();
    return p;
}

}  // namespace

TEST_CASE("node-local: a node with memory but no CPUs is skipped and noted") {
    Fixture f("zen4-2node");
    Probe p = memory_only_node1(f);
    SweepOptions o;
    o.placement = Placement::node_local;
    SweepPlan plan = plan_sweep(p, f.memory, o);
    CHECK(plan.node_ids() == std::vector<int>{0});
    CHECK(plan.skipped_nodes == std::vector<int>{1});
    CHECK(has_note(plan, "node 1 has memory but no CPUs: not measured"));
}

TEST_CASE("boot: a memory-only node gives pages to the other nodes' threads, as at boot") {
    Fixture f("zen4-2node");
    Probe p = memory_only_node1(f);
    SweepOptions o;
    o.threads_per_node = {1, 2};
    o.sample_mib_per_node = 14;  // 7 pages: node 0's threads take them from both nodes
    SweepPlan plan = plan_sweep(p, f.memory, o);
    CHECK(plan.node_ids() == std::vector<int>{0});
    CHECK(plan.memory_node_ids() == std::vector<int>{0, 1});
    CHECK(plan.skipped_nodes.empty());
    CHECK(has_note(plan, "node 1 has memory but no CPUs: its pages are taken by the other"));
    // 7 pages by 1 thread: one chunk, pages 0, 2, 4, 6 from node 0 and 1, 3, 5 from node 1.
    CHECK(plan.boot_node_pages(1) == std::vector<std::uint64_t>{4, 3});
    // By 2 threads: chunks of 3, 3 and 1, each starting again at node 0.
    CHECK(plan.boot_split(2).chunk_pages == std::vector<std::uint64_t>{3, 3, 1});
    CHECK(plan.boot_node_pages(2) == std::vector<std::uint64_t>{5, 2});
    CHECK(plan.memory_nodes[0].zero_pool_pages == 5);
    CHECK(plan.memory_nodes[1].zero_pool_pages == 4);  // ceil(7 / 2) at least
}

TEST_CASE("boot: a node with CPUs and no memory gets threads and gives no pages") {
    Fixture f("zen4-2node");
    Probe p = f.probe;
    p.topology.nodes[1].memory_bytes = 0;
    SweepOptions o;
    o.threads_per_node = {1, 2};
    SweepPlan plan = plan_sweep(p, f.memory, o);
    CHECK(plan.node_ids() == std::vector<int>{0, 1});
    CHECK(plan.memory_node_ids() == std::vector<int>{0});
    CHECK(plan.boot_split(2).worker_nodes == std::vector<int>{0, 1, 0, 1});
    CHECK(plan.boot_node_pages(2) == std::vector<std::uint64_t>{1024});
    CHECK(has_note(plan, "node 1 has CPUs but no memory: its threads take pages"));
    // Node-local placement measures only nodes with both.
    o.placement = Placement::node_local;
    CHECK(plan_sweep(p, f.memory, o).node_ids() == std::vector<int>{0});
}

TEST_CASE("node_available_bytes: node MemFree capped by MemAvailable, else an even share") {
    MemoryView m;
    m.node_free_bytes[0] = 4 * kMib;
    m.mem_available_bytes = 24 * kMib;
    CHECK(node_available_bytes(m, 0, 1) == 4 * kMib);  // the VM case: node view smaller
    m.node_free_bytes[0] = 30 * kMib;
    CHECK(node_available_bytes(m, 0, 1) == 24 * kMib);
    CHECK(node_available_bytes(m, 1, 2) == 12 * kMib);  // no node file: MemAvailable / nodes
    MemoryView none;
    CHECK_FALSE(node_available_bytes(none, 0, 1).has_value());
}

TEST_CASE("pages_for_thread spreads the sample evenly and loses nothing") {
    for (std::uint64_t pages : {0ull, 1ull, 7ull, 128ull, 131ull})
        for (int n : {1, 2, 3, 32}) {
            std::uint64_t sum = 0, lo = ~0ull, hi = 0;
            for (int i = 0; i < n; ++i) {
                auto k = pages_for_thread(pages, n, i);
                sum += k;
                lo = std::min(lo, k);
                hi = std::max(hi, k);
            }
            CHECK(sum == pages);
            CHECK(hi - lo <= 1);
        }
}

TEST_CASE("the plan as JSON carries what run --dry-run prints") {
    auto j = to_json(Fixture("skylake-4node").plan());
    CHECK(j["pages_per_node"] == kDefaultSampleMib / 2);
    CHECK(j["nodes"].size() == 4);
    CHECK(j["nodes"][2]["cpus"][0] == 36);
    CHECK(j["points"].size() == 14);
    CHECK(j["phases"] == nlohmann::json::array({"alloc", "zero", "grow"}));
    CHECK(format_plan(Fixture("skylake-4node").plan()).find("node 3: 36 hardware threads") !=
          std::string::npos);
}

TEST_CASE(
    "the HVO pass: planned where the sysctl exists, its points flipped, left out on request") {
    SweepPlan sky = Fixture("skylake-4node").plan();  // hugetlb_optimize_vmemmap 1
    REQUIRE(sky.hvo_pass.has_value());
    CHECK(sky.hvo_pass->as_is);
    CHECK_FALSE(sky.hvo_pass->flipped());
    std::vector<std::string> pass;
    for (const auto& p : sky.points)
        if (p.hvo_flipped)
            pass.push_back(std::string(phase_name(p.phase)) + "@" +
                           std::to_string(p.threads_per_node));
    // Only grow at 1: the HVO what-if and the breakdown read nothing else of the pass.
    CHECK(pass == std::vector<std::string>{"grow@1"});
    const std::string text = format_plan(sky);
    CHECK(text.find("~grow@1") != std::string::npos);
    CHECK(text.find("~alloc") == std::string::npos);
    CHECK(text.find("HVO pass: writes 0 to /proc/sys/vm/hugetlb_optimize_vmemmap") !=
          std::string::npos);
    CHECK(to_json(sky)["hvo_pass"]["hugetlb_optimize_vmemmap_pass"] == 0);

    SweepPlan vm = Fixture("vm-1node").plan();  // no sysctl
    CHECK_FALSE(vm.hvo_pass.has_value());
    CHECK(vm.hvo_pass_note.find("has no /proc/sys/vm/hugetlb_optimize_vmemmap") !=
          std::string::npos);
    for (const auto& p : vm.points)
        CHECK_FALSE(p.hvo_flipped);
    CHECK(format_plan(vm).find("no HVO pass") != std::string::npos);

    Fixture f("skylake-4node");
    SweepOptions o;
    o.hvo_pass = false;
    SweepPlan off = f.plan(o);
    CHECK_FALSE(off.hvo_pass.has_value());
    CHECK(off.points.size() == 13);
    o.hvo_pass = true;
    o.phases = {Phase::alloc, Phase::zero};
    const SweepPlan no_grow = f.plan(o);
    CHECK_FALSE(no_grow.hvo_pass.has_value());
    CHECK(no_grow.hvo_pass_note == "no HVO pass: it times the grow phase, which phases leaves out");
    for (const auto& p : no_grow.points)
        CHECK_FALSE(p.hvo_flipped);
}

TEST_CASE("arm64: the page size defaults to the kernel's, and gigantic is the kernel's rule") {
    // 64 KiB base pages: 512M is the kernel's default size and not gigantic, so the surplus
    // (alloc) phase is planned; 16G is above the 512 MiB largest block.
    Fixture k("kunpeng920-64k");
    SweepOptions o;
    o.sample_mib_per_node = 1024;
    const SweepPlan plan = k.plan(o);
    CHECK(plan.page_size_kb == 512 * 1024);
    CHECK(plan.pages_per_node == 2);
    CHECK(plan.options.phases.front() == Phase::alloc);
    o.page_size_kb = 16 * 1024 * 1024;
    o.sample_mib_per_node = 16 * 1024;
    o.max_memory_fraction = 0.9;
    CHECK(k.plan(o).options.phases == std::vector<Phase>{Phase::zero, Phase::grow});

    // 4 KiB base pages: 64K is a size of its own, 32M is gigantic.
    Fixture n1("neoverse-n1-1node");
    SweepOptions small;
    CHECK(n1.plan(small).page_size_kb == 2048);
    small.page_size_kb = 64;
    small.sample_mib_per_node = 64;
    CHECK(n1.plan(small).options.phases.front() == Phase::alloc);
    small.page_size_kb = 32 * 1024;
    CHECK(n1.plan(small).options.phases == std::vector<Phase>{Phase::zero, Phase::grow});
    // A size the kernel does not list is refused with the list.
    small.page_size_kb = 16 * 1024;
    CHECK(refusal(n1, small).message ==
          "this kernel has no 16M huge pages; available: 64K, 2M, 32M, 1G");
}
