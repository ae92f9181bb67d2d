// What a sweep will do, computed from the probe, the nodes' free memory and the options alone
// (no kernel writes), so `sweep --dry-run`, `run --dry-run` and fixture-tree tests can show it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/documents/sweep.hpp"
#include "model/errors.hpp"
#include "model/recommend.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/boot_layout.hpp"
#include "tuner/sweep/settings.hpp"

namespace hugetune {

// Bytes in a GiB, for the sample sizes and rates the plan and the sweep file state.
inline constexpr double kGibBytes = 1024.0 * 1024 * 1024;

std::string_view phase_name(Phase phase);
std::optional<Phase> parse_phase(std::string_view name);
bool has_phase(const std::vector<Phase>& phases, Phase phase);
// "boot" or "node-local", as the sweep file and --placement write it.
std::string_view placement_name(Placement placement);
std::optional<Placement> parse_placement(std::string_view name);

// Defaults and ranges: tuner/sweep/settings.hpp.
struct SweepOptions {
    std::vector<int> threads_per_node{kDefaultThreadsPerNode.begin(), kDefaultThreadsPerNode.end()};
    // adaptive: measure kAdaptiveFirstRounds rounds, then only the points that could still
    // change the decision (tuner/sweep/adaptive.hpp); otherwise every point `repetitions` times.
    bool adaptive = true;
    int repetitions = kDefaultRepetitions;  // the fixed count, when not adaptive
    // adaptive: stop measuring once the timed samples add up to this much (none: no budget).
    std::optional<double> budget_seconds;
    // adaptive: the share of the best time within which a count with fewer threads is as good
    // (the decision's tolerance, model::RecommendOptions::tolerance).
    double tolerance = model::RecommendOptions{}.tolerance;
    std::vector<Phase> phases{kDefaultPhases.begin(), kDefaultPhases.end()};
    std::uint64_t page_size_kb = kKernelDefaultPageSize;  // KiB, a size the kernel lists
    // Unset: kDefaultSampleMib (halved until it fits in free memory), raised to one page when
    // pages are larger.
    std::optional<std::uint64_t> sample_mib_per_node;
    double max_memory_fraction = kDefaultMaxMemoryFraction;
    std::uint64_t seed = kDefaultSeed;
    // Where /proc/sys/vm/hugetlb_optimize_vmemmap exists: also time alloc and grow with HVO the
    // other way (docs/sweep-format.md "HVO pass").
    bool hvo_pass = true;
    Placement placement = kDefaultPlacement;
    // How the plan's notes name these options ("hvo_pass" for its switch-off, "phases"): the
    // command line's flags.
    SettingWords words;

    // The rounds every point is measured: the first adaptive rounds, or the fixed count.
    int first_rounds() const { return adaptive ? kAdaptiveFirstRounds : repetitions; }
    // The most samples a point gets.
    int most_repetitions() const { return adaptive ? kAdaptiveMaxRepetitions : repetitions; }
};

// Free memory the sweep may draw from, per node. See node_available_bytes() for the rule.
struct MemoryView {
    std::map<int, std::uint64_t> node_free_bytes;      // nodeN/meminfo "MemFree"
    std::optional<std::uint64_t> mem_available_bytes;  // /proc/meminfo "MemAvailable"
};

MemoryView read_memory_view(const KernelFs& fs, const Probe& probe);

// A node's available memory: its own MemFree (the buddy allocator that huge pages on that node
// come from), capped by the system's MemAvailable, since a node counter can exceed what the
// system can really give (on some VMs the per-node and system-wide views disagree: a node can
// even report far less than /proc/meminfo; taking the smaller one is always safe). Without a
// node counter (a kernel without NUMA files), MemAvailable split evenly over the memory nodes.
std::optional<std::uint64_t> node_available_bytes(const MemoryView& memory, int node,
                                                  std::size_t memory_node_count);

struct NodePlan {
    int node = 0;
    std::vector<int> cpus;  // PU used by thread i at the largest N: core_order[i % PUs]
    int hardware_threads = 0;
    std::uint64_t available_bytes = 0;
    std::uint64_t peak_bytes = 0;  // the most the sweep holds on this node at once
};

struct PointPlan {
    Phase phase = Phase::zero;
    int threads_per_node = 1;
    int total_threads = 1;
    bool oversubscribed = false;  // threads_per_node > hardware threads of some measured node
    bool hvo_flipped = false;     // an HVO pass point: run with the sysctl the other way
};

// The HVO pass: grow at 1 thread per node timed with /proc/sys/vm/hugetlb_optimize_vmemmap the
// other way, its repetitions shuffled among the others'.
struct HvoPassPlan {
    bool as_is = false;                      // the sysctl's value for every other point
    bool flipped() const { return !as_is; }  // its value for the pass's points
};

// Boot placement: a node the pages come from (every node with memory) and what the sweep holds
// there at most.
struct MemoryNodePlan {
    int node = 0;
    std::uint64_t available_bytes = 0;
    std::uint64_t peak_bytes = 0;
    // The zero phase's pool on this node: the most pages any planned count takes from it.
    std::uint64_t zero_pool_pages = 0;
};

struct SweepPlan {
    SweepOptions options;
    std::uint64_t page_size_kb = 0;
    std::uint64_t page_bytes = 0;
    std::uint64_t sample_mib_per_node = 0;
    std::uint64_t pages_per_node = 0;
    // The nodes the threads run on. node_local: nodes with memory and CPUs; boot: every node
    // with CPUs, as padata queues the boot's workers (available and peak bytes then 0, the
    // memory is in memory_nodes).
    std::vector<NodePlan> nodes;
    std::vector<int> skipped_nodes;  // node_local: memory without CPUs, no local thread to pin
    std::vector<MemoryNodePlan> memory_nodes;  // boot: every node with memory, by id
    int boot_node = 0;                         // boot: the node of the boot CPU (CPU 0)
    std::vector<PointPlan> points;             // in the order of the output, not of execution
    std::optional<HvoPassPlan> hvo_pass;       // nothing: no pass (hvo_pass_note says why)
    std::string hvo_pass_note;
    int timed_repetitions = 0;  // points x the most repetitions a point gets
    double estimated_seconds = 0;
    std::vector<std::string> warnings;

    std::vector<int> node_ids() const;
    std::vector<int> memory_node_ids() const;
    // The pages one repetition of alloc or zero takes in all: pages_per_node times the nodes.
    std::uint64_t sample_pages() const { return pages_per_node * nodes.size(); }
    // The node `id` of `nodes`; an id the plan has no threads on is an internal error.
    const NodePlan& node(int id) const;
    // Threads that write nr_hugepages in the grow phase: one for the boot's one global request,
    // one per node for node-local placement.
    int grow_writers() const;
    // Boot placement at `threads_per_node` on every node of `nodes`: the kernel's split of the
    // sample (pages_per_node times the nodes) among that total of threads.
    BootWorkers boot_split(int threads_per_node) const;
    // The pages the boot's split takes from each memory node, in the order of memory_nodes.
    std::vector<std::uint64_t> boot_node_pages(int threads_per_node) const;
    // Over the measured nodes: a count above it is oversubscribed somewhere.
    int fewest_hardware_threads() const;
};

// Validates the options against the machine and throws SettingError naming the setting and the
// fix when the sweep cannot run as asked (page size absent, sample too large), UsageError for
// bad values, or UnsupportedError when the kernel has no hugetlb at all.
SweepPlan plan_sweep(const Probe& probe, const MemoryView& memory, const SweepOptions& options);

// The page size the options ask for: the one given, else the kernel's default huge page size
// (else x86-64's 2 MiB, where the kernel does not say).
std::uint64_t page_size_of(const SweepOptions& options, const Probe& probe);

// Pages of `pages_per_node` given to thread `index` of `threads`: as even as possible.
std::uint64_t pages_for_thread(std::uint64_t pages_per_node, int threads, int index);

// "5 repetitions", or the adaptive rule's range and budget, as the plan and the summary say it.
std::string repetitions_text(const SweepOptions& options);
// "adaptive" or "fixed", as the sweep file names the rule.
std::string_view sampling_rule(const SweepOptions& options);
// How the points are to be sampled (the rule and its bounds, no rounds yet), as the plan and the
// sweep file write it (docs/sweep-format.md "Sampling").
model::Sampling sampling_settings(const SweepOptions& options);

nlohmann::json to_json(const SweepPlan& plan);
std::string format_plan(const SweepPlan& plan);

}  // namespace hugetune
