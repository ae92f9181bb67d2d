#include "tuner/sweep/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "model/enum_names.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/kernel/kernel_files.hpp"

namespace hugetune {
namespace {

constexpr auto kPhaseNames =
    enum_names<Phase>({{Phase::alloc, "alloc"}, {Phase::zero, "zero"}, {Phase::grow, "grow"}});
constexpr auto kPlacementNames =
    enum_names<Placement>({{Placement::boot, "boot"}, {Placement::node_local, "node-local"}});

constexpr std::uint64_t kMib = 1024 * 1024;

// Deliberately low rates (GiB/s per node) for the duration estimate: a small VM zeroes a few
// GiB/s per thread; a bigger machine only finishes sooner than estimated.
constexpr double kAssumedZeroGibPerSecond = 2.0;
constexpr double kAssumedAllocGibPerSecond = 1.0;
constexpr double kAssumedGrowGibPerSecond = 1.0;
// Thread start, pinning, mapping and counter reads around each repetition.
constexpr double kRepetitionOverheadSeconds = 0.005;
constexpr double kThreadOverheadSeconds = 0.0002;

// In MiB, whole, as --sample-mib-per-node is given: a refusal of that flag says its sizes in the
// flag's own unit (model/text.hpp memory_text says every other size).
std::string mib_text(std::uint64_t bytes) {
    return std::to_string(bytes / kMib) + " MiB";
}

double assumed_rate(Phase phase) {
    switch (phase) {
        case Phase::zero:
            return kAssumedZeroGibPerSecond;
        case Phase::alloc:
            return kAssumedAllocGibPerSecond;
        case Phase::grow:
            return kAssumedGrowGibPerSecond;
    }
    return 1.0;
}

}  // namespace

std::string_view phase_name(Phase phase) {
    return name_of(kPhaseNames, phase);
}

bool has_phase(const std::vector<Phase>& phases, Phase phase) {
    return std::find(phases.begin(), phases.end(), phase) != phases.end();
}

std::optional<Phase> parse_phase(std::string_view name) {
    return value_named(kPhaseNames, name);
}

std::string_view placement_name(Placement placement) {
    return name_of(kPlacementNames, placement);
}

std::optional<Placement> parse_placement(std::string_view name) {
    return value_named(kPlacementNames, name);
}

MemoryView read_memory_view(const KernelFs& fs, const Probe& probe) {
    MemoryView view;
    for (const auto& node : probe.topology.nodes) {
        if (auto free = node_meminfo_bytes(fs, node.id, "MemFree"))
            view.node_free_bytes[node.id] = *free;
    }
    view.mem_available_bytes = system_meminfo_bytes(fs, "MemAvailable");
    return view;
}

std::optional<std::uint64_t> node_available_bytes(const MemoryView& memory, int node,
                                                  std::size_t memory_node_count) {
    auto it = memory.node_free_bytes.find(node);
    if (it != memory.node_free_bytes.end()) {
        if (memory.mem_available_bytes)
            return std::min(it->second, *memory.mem_available_bytes);
        return it->second;
    }
    if (memory.mem_available_bytes && memory_node_count > 0)
        return *memory.mem_available_bytes / memory_node_count;
    return std::nullopt;
}

std::uint64_t pages_for_thread(std::uint64_t pages_per_node, int threads, int index) {
    auto n = static_cast<std::uint64_t>(threads);
    auto i = static_cast<std::uint64_t>(index);
    return pages_per_node / n + (i < pages_per_node % n ? 1 : 0);
}

std::vector<int> SweepPlan::node_ids() const {
    std::vector<int> ids;
    for (const auto& n : nodes)
        ids.push_back(n.node);
    return ids;
}

std::vector<int> SweepPlan::memory_node_ids() const {
    std::vector<int> ids;
    for (const auto& n : memory_nodes)
        ids.push_back(n.node);
    return ids;
}

const NodePlan& SweepPlan::node(int id) const {
    for (const auto& n : nodes)
        if (n.node == id)
            return n;
    throw RuntimeError("internal: node " + std::to_string(id) + " has no CPUs in the plan");
}

int SweepPlan::grow_writers() const {
    return options.placement == Placement::boot ? 1 : static_cast<int>(nodes.size());
}

BootWorkers SweepPlan::boot_split(int threads_per_node) const {
    return boot_workers(sample_pages(), static_cast<std::uint64_t>(threads_per_node) * nodes.size(),
                        node_ids(), boot_node);
}

std::vector<std::uint64_t> SweepPlan::boot_node_pages(int threads_per_node) const {
    return hugetune::boot_node_pages(boot_split(threads_per_node), memory_nodes.size());
}

int SweepPlan::fewest_hardware_threads() const {
    int fewest = nodes.empty() ? 0 : nodes.front().hardware_threads;
    for (const auto& n : nodes)
        fewest = std::min(fewest, n.hardware_threads);
    return fewest;
}

namespace {

// The kernel refuses nr_overcommit_hugepages for gigantic pages (docs/kernel-facts.md "Gigantic
// pages"), so no surplus page, and no alloc phase, exists.
std::vector<Phase> phases_for_page_size(std::vector<Phase> phases, bool gigantic,
                                        std::vector<std::string>& warnings) {
    if (!gigantic || std::erase(phases, Phase::alloc) == 0)
        return phases;
    if (phases.empty())
        throw SettingError("phases",
                           "the alloc phase needs surplus pages, which the kernel does not allow "
                           "for gigantic pages; measure zero,grow, or use a smaller page size");
    warnings.push_back(
        "alloc phase left out: the kernel allows no surplus gigantic pages; the grow phase "
        "measures their allocation");
    return phases;
}

// How much of a node's memory the sweep may hold at once.
struct MemoryRule {
    double max_memory_fraction = 0;
    // The zero phase keeps its pool for the whole sweep, and alloc or grow take a second
    // sample on top of it.
    std::uint64_t samples_held = 0;

    bool memory_only_nodes_hold = false;  // boot placement: every memory node gives pages

    MemoryRule(double fraction, const std::vector<Phase>& phases, Placement placement)
        : max_memory_fraction(fraction),
          samples_held((has_phase(phases, Phase::zero) ? 1 : 0) +
                       (has_phase(phases, Phase::alloc) || has_phase(phases, Phase::grow) ? 1 : 0)),
          memory_only_nodes_hold(placement == Placement::boot) {}

    std::uint64_t allowed_bytes(std::uint64_t available_bytes) const {
        return static_cast<std::uint64_t>(max_memory_fraction *
                                          static_cast<double>(available_bytes));
    }
};

struct MemoryNode {
    const NumaNode* node = nullptr;
    std::optional<std::uint64_t> available_bytes;  // unset: no counter tells
};

std::vector<MemoryNode> memory_nodes_of(const Topology& topology, const MemoryView& memory) {
    auto nodes = topology.memory_nodes();
    if (nodes.empty()) {
        // hwloc reports no local memory size (rare): treat every node as having memory.
        for (const auto& n : topology.nodes)
            nodes.push_back(&n);
    }
    std::vector<MemoryNode> out;
    for (const NumaNode* n : nodes)
        out.push_back({n, node_available_bytes(memory, n->id, nodes.size())});
    return out;
}

// Not given: kDefaultSampleMib (at least one page), halved while a node cannot hold the samples
// of the sweep at once, but never below one page; said when it shrank.
std::uint64_t choose_sample_mib(std::optional<std::uint64_t> given_mib,
                                const std::vector<MemoryNode>& nodes, const MemoryRule& rule,
                                std::uint64_t page_mib, std::vector<std::string>& warnings) {
    if (given_mib)
        return *given_mib;
    std::uint64_t mib = std::max(kDefaultSampleMib, page_mib);
    for (const auto& [node, available] : nodes) {
        // Node-local threads never take a memory-only node's pages; boot workers do.
        if ((node->cpus.empty() && !rule.memory_only_nodes_hold) || !available)
            continue;
        while (mib / 2 >= page_mib &&
               rule.samples_held * mib * kMib > rule.allowed_bytes(*available))
            mib /= 2;
    }
    if (mib < kDefaultSampleMib && mib >= page_mib)
        warnings.push_back("default sample reduced to " + std::to_string(mib) +
                           " MiB per node to stay within the allowed fraction of the free memory");
    return mib;
}

std::uint64_t pages_in_sample(std::uint64_t sample_mib, std::uint64_t page_bytes,
                              std::uint64_t page_mib) {
    if (sample_mib == 0 || (sample_mib * kMib) % page_bytes != 0)
        throw SettingError(
            "sample_mib_per_node",
            std::to_string(sample_mib) + " is not a positive multiple of the page size (" +
                std::to_string(page_mib) + " MiB); use e.g. " + std::to_string(page_mib * 4));
    return sample_mib * kMib / page_bytes;
}

// The samples the sweep holds on a node at once, against the share of it the sweep may take.
void check_node_fits(int node_id, std::uint64_t available_bytes, std::uint64_t peak_bytes,
                     const MemoryRule& rule, std::uint64_t sample_mib, std::uint64_t page_bytes) {
    auto allowed = rule.allowed_bytes(available_bytes);
    if (peak_bytes <= allowed)
        return;
    std::uint64_t fit_pages = allowed / rule.samples_held / page_bytes;
    std::string fix =
        fit_pages == 0
            ? "free memory on that node, use smaller pages, or allow a larger memory fraction"
            : "use " + std::to_string(fit_pages * page_bytes / kMib) + " or less";
    std::ostringstream fraction;
    fraction << rule.max_memory_fraction;
    throw SettingError("sample_mib_per_node",
                       std::to_string(sample_mib) + " MiB per node needs " + mib_text(peak_bytes) +
                           " on node " + std::to_string(node_id) +
                           " at once, more than the allowed fraction " + fraction.str() +
                           " of its " + mib_text(available_bytes) + " available; " + fix);
}

std::uint64_t available_or_fail(const MemoryNode& m) {
    if (!m.available_bytes)
        throw RuntimeError("cannot tell how much memory node " + std::to_string(m.node->id) +
                           " has free (no nodeN/meminfo MemFree, no MemAvailable in "
                           "/proc/meminfo)");
    return *m.available_bytes;
}

// A node's threads: thread i at the largest count on core_order[i % PUs], cores before siblings.
NodePlan thread_node(const NumaNode& node, int max_threads) {
    NodePlan plan;
    plan.node = node.id;
    plan.hardware_threads = static_cast<int>(node.cpus.size());
    const auto& order = node.core_order.empty() ? node.cpus : node.core_order;
    for (int i = 0; i < max_threads; ++i)
        plan.cpus.push_back(order[static_cast<std::size_t>(i) % order.size()]);
    return plan;
}

NodePlan plan_node(const MemoryNode& memory_node, int max_threads, std::uint64_t peak_bytes) {
    NodePlan plan = thread_node(*memory_node.node, max_threads);
    plan.available_bytes = available_or_fail(memory_node);
    plan.peak_bytes = peak_bytes;
    return plan;
}

struct NodeLayout {
    std::vector<NodePlan> measured;
    std::vector<int> skipped;  // memory without CPUs: no local thread to pin
};

NodeLayout plan_nodes(const std::vector<MemoryNode>& memory_nodes, const MemoryRule& rule,
                      const SweepPlan& sample, int max_threads) {
    NodeLayout layout;
    std::uint64_t peak_bytes = rule.samples_held * sample.pages_per_node * sample.page_bytes;
    for (const MemoryNode& m : memory_nodes) {
        if (m.node->cpus.empty()) {
            layout.skipped.push_back(m.node->id);
            continue;
        }
        NodePlan node = plan_node(m, max_threads, peak_bytes);
        check_node_fits(node.node, node.available_bytes, node.peak_bytes, rule,
                        sample.sample_mib_per_node, sample.page_bytes);
        layout.measured.push_back(std::move(node));
    }
    if (layout.measured.empty())
        throw UnsupportedError("no NUMA node has both memory and CPUs; nothing to measure");
    return layout;
}

// The boot CPU is CPU 0: its node runs the share padata keeps on the calling thread
// (docs/kernel-facts.md "Where the boot's workers run and where their pages come from").
int boot_cpu_node(const std::vector<NodePlan>& cpu_nodes, const Topology& topology) {
    for (const auto& n : topology.nodes)
        if (std::find(n.cpus.begin(), n.cpus.end(), 0) != n.cpus.end())
            return n.id;
    return cpu_nodes.front().node;
}

// Boot placement: threads on every node with CPUs, pages from every node with memory. Each
// memory node holds at once the zero pool (the most any planned count takes from it) and one
// alloc or grow sample (the same at most).
void plan_boot_nodes(const Topology& topology, const std::vector<MemoryNode>& memory_nodes,
                     const MemoryRule& rule, const std::vector<int>& counts, SweepPlan& plan) {
    const int max_threads = counts.back();
    for (const NumaNode& n : topology.nodes)
        if (!n.cpus.empty())
            plan.nodes.push_back(thread_node(n, max_threads));
    if (plan.nodes.empty())
        throw UnsupportedError("no NUMA node has CPUs; nothing to measure");
    if (memory_nodes.empty())
        throw UnsupportedError("no NUMA node has memory; nothing to measure");
    plan.boot_node = boot_cpu_node(plan.nodes, topology);
    for (const MemoryNode& m : memory_nodes)
        plan.memory_nodes.push_back({m.node->id, available_or_fail(m), 0, 0});
    const std::size_t count = plan.memory_nodes.size();
    const std::uint64_t sample_pages = plan.sample_pages();
    std::vector<std::uint64_t> most(count, sample_pages / count + (sample_pages % count ? 1 : 0));
    for (int n : counts) {
        const auto pages = plan.boot_node_pages(n);
        for (std::size_t i = 0; i < count; ++i)
            most[i] = std::max(most[i], pages[i]);
    }
    for (std::size_t i = 0; i < count; ++i) {
        MemoryNodePlan& m = plan.memory_nodes[i];
        m.zero_pool_pages = most[i];
        m.peak_bytes = rule.samples_held * most[i] * plan.page_bytes;
        check_node_fits(m.node, m.available_bytes, m.peak_bytes, rule, plan.sample_mib_per_node,
                        plan.page_bytes);
    }
}

std::vector<int> distinct_counts(std::vector<int> counts) {
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
}

constexpr Phase kOutputOrder[] = {Phase::alloc, Phase::zero, Phase::grow};

// Writing nr_hugepages runs in one thread under the kernel's resize lock (docs/kernel-facts.md
// "Growing a pool through nr_hugepages"): only N = 1 means anything for the grow phase, and its
// threads are the plan's grow writers.
std::vector<PointPlan> plan_points(const SweepPlan& plan, const std::vector<int>& counts) {
    const int node_count = static_cast<int>(plan.nodes.size());
    const int fewest = plan.fewest_hardware_threads();
    std::vector<PointPlan> points;
    for (Phase phase : kOutputOrder) {
        if (!has_phase(plan.options.phases, phase))
            continue;
        if (phase == Phase::grow)
            points.push_back({phase, 1, plan.grow_writers(), 1 > fewest});
        else
            for (int n : counts)
                points.push_back({phase, n, n * node_count, n > fewest});
    }
    return points;
}

// The pass needs the sysctl and the grow phase: grow at 1 thread per node, timed the other way,
// is what the HVO what-if row and the breakdown read (model/boot_breakdown.cpp). The alloc
// phase is not timed the other way: a fault's zeroing dominates it and hides HVO's part, and
// with HVO on every page also pays the vmemmap remap, the slowest repetitions of a sweep.
void plan_hvo_pass(const Probe& probe, SweepPlan& plan) {
    if (!plan.options.hvo_pass) {
        plan.hvo_pass_note = "HVO pass left out (" + plan.options.words("hvo_pass") + ")";
        return;
    }
    if (!probe.kernel.hvo_sysctl || !probe.kernel.hvo) {
        plan.hvo_pass_note =
            "no HVO pass: this kernel has no /proc/sys/vm/hugetlb_optimize_vmemmap, so HVO "
            "cannot be switched at run time";
        return;
    }
    if (!has_phase(plan.options.phases, Phase::grow)) {
        plan.hvo_pass_note = "no HVO pass: it times the grow phase, which " +
                             plan.options.words("phases") + " leaves out";
        return;
    }
    plan.hvo_pass = HvoPassPlan{*probe.kernel.hvo};
    plan.points.push_back({Phase::grow, 1, plan.grow_writers(), false, true});
}

double estimate_seconds(const SweepPlan& plan) {
    const double sample_gib =
        static_cast<double>(plan.pages_per_node * plan.page_bytes) / kGibBytes;
    const int node_count = static_cast<int>(plan.nodes.size());
    double seconds = 0;
    for (Phase phase : kOutputOrder) {
        if (!has_phase(plan.options.phases, phase))
            continue;
        for (const PointPlan& p : plan.points) {
            if (p.phase != phase)
                continue;
            // Nodes run at once except grow, which the resize lock serialises.
            double per_rep =
                sample_gib / assumed_rate(phase) * (phase == Phase::grow ? 2.0 * node_count : 1.0) +
                kRepetitionOverheadSeconds + kThreadOverheadSeconds * p.total_threads;
            seconds += per_rep * plan.options.most_repetitions();
        }
        seconds += sample_gib / assumed_rate(phase);  // warm-up repetition
    }
    // The zero phase's pool grows once and shrinks once.
    if (has_phase(plan.options.phases, Phase::zero))
        seconds += sample_gib * node_count * 2 / kAssumedGrowGibPerSecond;
    return seconds;
}

std::vector<std::string> machine_notes(const Probe& probe, const SweepPlan& plan,
                                       int largest_count) {
    std::vector<std::string> notes;
    if (probe.virtualization.hypervisor)
        notes.push_back(
            "virtual machine: first touches of guest memory include host faults; the sweep "
            "warms up, but results are flagged as measured in a VM");
    if (probe.kernel.page_sizes().gigantic(plan.page_size_kb))
        notes.push_back(
            "gigantic pages: hugepage_alloc_threads= does not apply to them at boot; their "
            "zeroing curve is still measured");
    if (plan.pages_per_node < static_cast<std::uint64_t>(largest_count))
        notes.push_back("the sample has " + std::to_string(plan.pages_per_node) +
                        " page(s) per node, fewer than " + std::to_string(largest_count) +
                        " threads: some threads get no page");
    for (int id : plan.skipped_nodes)
        notes.push_back("node " + std::to_string(id) + " has memory but no CPUs: not measured");
    const std::vector<int> cpu_ids = plan.node_ids(), memory_ids = plan.memory_node_ids();
    auto holds = [](const std::vector<int>& ids, int id) {
        return std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    for (int id : memory_ids)
        if (!holds(cpu_ids, id))
            notes.push_back("node " + std::to_string(id) +
                            " has memory but no CPUs: its pages are taken by the other nodes' "
                            "threads, as at boot");
    for (int id : plan.options.placement == Placement::boot ? cpu_ids : std::vector<int>{})
        if (!holds(memory_ids, id))
            notes.push_back("node " + std::to_string(id) +
                            " has CPUs but no memory: its threads take pages from the memory "
                            "nodes, as at boot");
    int fewest = plan.fewest_hardware_threads();
    if (largest_count > fewest)
        notes.push_back("counts above " + std::to_string(fewest) +
                        " threads per node exceed the hardware threads: flagged "
                        "oversubscribed");
    return notes;
}

}  // namespace

std::uint64_t page_size_of(const SweepOptions& options, const Probe& probe) {
    if (options.page_size_kb != kKernelDefaultPageSize)
        return options.page_size_kb;
    return probe.kernel.page_sizes().default_size_kb;
}

SweepPlan plan_sweep(const Probe& probe, const MemoryView& memory,
                     const SweepOptions& asked_options) {
    SweepOptions options = asked_options;
    options.page_size_kb = page_size_of(asked_options, probe);
    if (probe.kernel.hugepage_sizes_kb.empty())
        throw UnsupportedError(
            "this kernel has no hugetlb support (/sys/kernel/mm/hugepages is missing); boot a "
            "kernel built with CONFIG_HUGETLBFS");
    validate_sweep_options(options);
    if (!probe.kernel.pool(options.page_size_kb)) {
        const std::string sizes = join(probe.kernel.hugepage_sizes_kb, ", ", [](std::uint64_t kb) {
            return page_size_text(kb, SizeStyle::cmdline);
        });
        throw SettingError("page_size",
                           "this kernel has no " +
                               page_size_text(options.page_size_kb, SizeStyle::cmdline) +
                               " huge pages; available: " + sizes);
    }

    SweepPlan plan;
    plan.options = options;
    plan.options.phases = phases_for_page_size(
        options.phases, probe.kernel.page_sizes().gigantic(options.page_size_kb), plan.warnings);
    plan.page_size_kb = options.page_size_kb;
    plan.page_bytes = options.page_size_kb * 1024;
    const std::uint64_t page_mib = std::max<std::uint64_t>(1, plan.page_bytes / kMib);
    const MemoryRule rule(options.max_memory_fraction, plan.options.phases, options.placement);
    const auto memory_nodes = memory_nodes_of(probe.topology, memory);
    plan.sample_mib_per_node =
        choose_sample_mib(options.sample_mib_per_node, memory_nodes, rule, page_mib, plan.warnings);
    plan.pages_per_node = pages_in_sample(plan.sample_mib_per_node, plan.page_bytes, page_mib);
    const std::vector<int> counts = distinct_counts(options.threads_per_node);
    if (options.placement == Placement::boot) {
        plan_boot_nodes(probe.topology, memory_nodes, rule, counts, plan);
    } else {
        auto layout = plan_nodes(memory_nodes, rule, plan, counts.back());
        plan.nodes = std::move(layout.measured);
        plan.skipped_nodes = std::move(layout.skipped);
    }
    plan.points = plan_points(plan, counts);
    plan_hvo_pass(probe, plan);
    plan.timed_repetitions = static_cast<int>(plan.points.size()) * options.most_repetitions();
    plan.estimated_seconds = estimate_seconds(plan);
    for (auto& note : machine_notes(probe, plan, counts.back()))
        plan.warnings.push_back(std::move(note));
    return plan;
}

std::string repetitions_text(const SweepOptions& o) {
    if (!o.adaptive)
        return std::to_string(o.repetitions) + " repetitions";
    std::string text = std::to_string(o.first_rounds()) + " to " +
                       std::to_string(o.most_repetitions()) +
                       " repetitions (adaptive: more only where the decision is still open";
    if (o.budget_seconds)
        text += ", within a budget of " + seconds_text(*o.budget_seconds);
    return text + ")";
}

std::string_view sampling_rule(const SweepOptions& o) {
    return o.adaptive ? "adaptive" : "fixed";
}

model::Sampling sampling_settings(const SweepOptions& o) {
    model::Sampling sampling;
    sampling.rule = std::string(sampling_rule(o));
    sampling.first_rounds = o.first_rounds();
    sampling.max_repetitions = o.most_repetitions();
    if (o.adaptive) {
        sampling.tolerance = o.tolerance;
        sampling.budget_seconds = o.budget_seconds;
    }
    return sampling;
}

nlohmann::json to_json(const SweepPlan& plan) {
    using nlohmann::json;
    json phases = json::array();
    for (Phase p : plan.options.phases)
        phases.push_back(phase_name(p));
    json nodes = json::array();
    for (const auto& n : plan.nodes)
        nodes.push_back({{"node", n.node},
                         {"cpus", n.cpus},
                         {"hardware_threads", n.hardware_threads},
                         {"available_bytes", n.available_bytes},
                         {"peak_bytes", n.peak_bytes}});
    json points = json::array();
    for (const auto& p : plan.points) {
        json point = {{"phase", phase_name(p.phase)},
                      {"threads_per_node", p.threads_per_node},
                      {"total_threads", p.total_threads},
                      {"oversubscribed", p.oversubscribed},
                      {"hvo_flipped", p.hvo_flipped}};
        if (plan.options.placement == Placement::boot && p.phase != Phase::grow) {
            const BootWorkers split = plan.boot_split(p.threads_per_node);
            point["worker_nodes"] = split.worker_nodes;
            point["chunk_pages"] = split.chunk_pages;
            point["node_pages"] = boot_node_pages(split, plan.memory_nodes.size());
        }
        points.push_back(std::move(point));
    }
    json memory_nodes = json::array();
    for (const auto& m : plan.memory_nodes)
        memory_nodes.push_back({{"node", m.node},
                                {"available_bytes", m.available_bytes},
                                {"peak_bytes", m.peak_bytes},
                                {"zero_pool_pages", m.zero_pool_pages}});
    json hvo = plan.hvo_pass
                   ? json{{"hugetlb_optimize_vmemmap_as_is", plan.hvo_pass->as_is ? 1 : 0},
                          {"hugetlb_optimize_vmemmap_pass", plan.hvo_pass->flipped() ? 1 : 0}}
                   : json{{"note", plan.hvo_pass_note}};
    return {{"threads_per_node", plan.options.threads_per_node},
            {"repetitions", plan.options.most_repetitions()},
            {"sampling", model::to_json(sampling_settings(plan.options))},
            {"phases", phases},
            {"page_size_kb", plan.page_size_kb},
            {"sample_mib_per_node", plan.sample_mib_per_node},
            {"pages_per_node", plan.pages_per_node},
            {"max_memory_fraction", plan.options.max_memory_fraction},
            {"seed", plan.options.seed},
            {"placement", placement_name(plan.options.placement)},
            {"nodes", nodes},
            {"skipped_nodes", plan.skipped_nodes},
            {"memory_nodes", memory_nodes},
            {"boot_node", plan.boot_node},
            {"points", points},
            {"hvo_pass", hvo},
            {"timed_repetitions", plan.timed_repetitions},
            {"estimated_seconds", plan.estimated_seconds},
            {"warnings", plan.warnings}};
}

std::string format_plan(const SweepPlan& plan) {
    std::ostringstream out;
    out << "sweep plan: " << plan.pages_per_node << " x "
        << page_size_text(plan.page_size_kb, SizeStyle::cmdline) << " pages ("
        << plan.sample_mib_per_node << " MiB) per node, " << repetitions_text(plan.options)
        << ", seed " << plan.options.seed << "\n";
    const bool boot = plan.options.placement == Placement::boot;
    out << "  placement: "
        << (boot ? "boot: threads placed as the kernel's boot workers (the boot CPU's node "
                   "first, then round-robin over the nodes with CPUs), each chunk's pages "
                   "from every memory node in turn"
                 : "node-local: each node's threads and pages on that node (diagnosis)")
        << "\n";
    for (const auto& n : plan.nodes) {
        out << "  node " << n.node << ": " << n.hardware_threads << " hardware threads";
        if (!boot)
            out << ", " << memory_text(static_cast<double>(n.available_bytes))
                << " available, holds up to " << memory_text(static_cast<double>(n.peak_bytes));
        out << "; CPUs by thread:";
        for (int c : n.cpus)
            out << ' ' << c;
        out << "\n";
    }
    for (const auto& m : plan.memory_nodes)
        out << "  memory node " << m.node << ": "
            << memory_text(static_cast<double>(m.available_bytes)) << " available, holds up to "
            << memory_text(static_cast<double>(m.peak_bytes)) << "\n";
    out << "  points:";
    for (const auto& p : plan.points)
        out << ' ' << (p.hvo_flipped ? "~" : "") << phase_name(p.phase) << '@' << p.threads_per_node
            << (p.oversubscribed ? "*" : "");
    out << "   (* oversubscribed, ~ with HVO the other way)\n";
    if (plan.hvo_pass)
        out << "  HVO pass: writes " << (plan.hvo_pass->flipped() ? 1 : 0)
            << " to /proc/sys/vm/hugetlb_optimize_vmemmap before each ~ repetition and "
            << (plan.hvo_pass->as_is ? 1 : 0)
            << " before each other one; the saved value is put back at the end\n";
    else
        out << "  " << plan.hvo_pass_note << "\n";
    char est[64];
    std::snprintf(est, sizeof est, "%.0f", plan.estimated_seconds);
    out << "  " << (plan.options.adaptive ? "at most " : "") << plan.timed_repetitions
        << " timed repetitions, about " << est << " s (a rough upper estimate)\n";
    for (const auto& w : plan.warnings)
        out << "  note: " << w << "\n";
    return out.str();
}

}  // namespace hugetune
