#include "tuner/sweep/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "tuner/system/errors.hpp"

namespace hugetune {
namespace {

constexpr std::uint64_t kMib = 1024 * 1024;
constexpr double kGib = 1024.0 * 1024 * 1024;
constexpr std::uint64_t kGiganticPageKb = 1024 * 1024;

// Deliberately low rates (GiB/s per node) for the duration estimate: a small VM zeroes a few
// GiB/s per thread; a bigger machine only finishes sooner than estimated.
constexpr double kAssumedZeroGibPerSecond = 2.0;
constexpr double kAssumedAllocGibPerSecond = 1.0;
constexpr double kAssumedGrowGibPerSecond = 1.0;
// Thread start, pinning, mapping and counter reads around each repetition.
constexpr double kRepetitionOverheadSeconds = 0.005;
constexpr double kThreadOverheadSeconds = 0.0002;

// "Node 0 MemFree:   4288448 kB" or "MemAvailable:   24334624 kB" -> bytes.
std::optional<std::uint64_t> meminfo_bytes(const std::string& text, const std::string& key) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        auto at = line.find(key + ":");
        if (at == std::string::npos)
            continue;
        unsigned long long kb = 0;
        if (std::sscanf(line.c_str() + at + key.size() + 1, " %llu", &kb) == 1)
            return kb * 1024;
    }
    return std::nullopt;
}

std::string mib_text(std::uint64_t bytes) {
    return std::to_string(bytes / kMib) + " MiB";
}

std::string size_text(std::uint64_t kb) {
    if (kb % (1024 * 1024) == 0)
        return std::to_string(kb / 1024 / 1024) + "G";
    if (kb % 1024 == 0)
        return std::to_string(kb / 1024) + "M";
    return std::to_string(kb) + "k";
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
    switch (phase) {
        case Phase::alloc:
            return "alloc";
        case Phase::zero:
            return "zero";
        case Phase::grow:
            return "grow";
    }
    return "?";
}

std::optional<Phase> parse_phase(std::string_view name) {
    if (name == "alloc")
        return Phase::alloc;
    if (name == "zero")
        return Phase::zero;
    if (name == "grow")
        return Phase::grow;
    return std::nullopt;
}

MemoryView read_memory_view(const KernelFs& fs, const Probe& probe) {
    MemoryView view;
    for (const auto& node : probe.topology.nodes) {
        auto text = fs.read("/sys/devices/system/node/node" + std::to_string(node.id) + "/meminfo");
        if (!text)
            continue;
        if (auto free = meminfo_bytes(*text, "MemFree"))
            view.node_free_bytes[node.id] = *free;
    }
    if (auto text = fs.read("/proc/meminfo"))
        view.mem_available_bytes = meminfo_bytes(*text, "MemAvailable");
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

SweepPlan plan_sweep(const Probe& probe, const MemoryView& memory, const SweepOptions& options) {
    if (probe.kernel.hugepage_sizes_kb.empty())
        throw UnsupportedError(
            "this kernel has no hugetlb support (/sys/kernel/mm/hugepages is missing); boot a "
            "kernel built with CONFIG_HUGETLBFS");
    validate_sweep_options(options);
    if (!probe.kernel.pool(options.page_size_kb)) {
        std::string sizes;
        for (auto kb : probe.kernel.hugepage_sizes_kb)
            sizes += (sizes.empty() ? "" : ", ") + size_text(kb);
        throw UsageError("--page-size: this kernel has no " + size_text(options.page_size_kb) +
                         " huge pages; available: " + sizes);
    }

    SweepPlan plan;
    plan.options = options;
    // The kernel refuses nr_overcommit_hugepages for gigantic pages (1 GiB on x86-64 is above
    // the buddy allocator's largest order), so no surplus page, and no alloc phase, exists.
    bool gigantic = options.page_size_kb >= kGiganticPageKb;
    if (gigantic) {
        auto& phases = plan.options.phases;
        if (std::erase(phases, Phase::alloc) > 0) {
            if (phases.empty())
                throw UsageError(
                    "--phases: the alloc phase needs surplus pages, which the kernel does not "
                    "allow for gigantic pages; use --phases zero,grow or --page-size 2M");
            plan.warnings.push_back(
                "alloc phase left out: the kernel allows no surplus gigantic pages; the grow "
                "phase measures their allocation");
        }
    }
    plan.page_size_kb = options.page_size_kb;
    plan.page_bytes = options.page_size_kb * 1024;
    std::uint64_t page_mib = std::max<std::uint64_t>(1, plan.page_bytes / kMib);

    auto has = [&](Phase p) {
        return std::find(plan.options.phases.begin(), plan.options.phases.end(), p) !=
               plan.options.phases.end();
    };
    // The zero phase keeps its pool for the whole sweep, and alloc or grow take a second
    // sample on top of it.
    std::uint64_t samples_held =
        (has(Phase::zero) ? 1 : 0) + (has(Phase::alloc) || has(Phase::grow) ? 1 : 0);

    auto memory_nodes = probe.topology.memory_nodes();
    if (memory_nodes.empty() && !probe.topology.nodes.empty()) {
        // hwloc reports no local memory size (rare): treat every node as having memory.
        for (const auto& n : probe.topology.nodes)
            memory_nodes.push_back(&n);
    }
    auto allowed_bytes = [&](std::uint64_t available) {
        return static_cast<std::uint64_t>(options.max_memory_fraction *
                                          static_cast<double>(available));
    };

    if (options.sample_mib_per_node) {
        plan.sample_mib_per_node = *options.sample_mib_per_node;
    } else {
        plan.sample_mib_per_node = std::max(kDefaultSampleMib, page_mib);
        for (const NumaNode* node : memory_nodes) {
            auto available = node_available_bytes(memory, node->id, memory_nodes.size());
            if (node->cpus.empty() || !available)
                continue;
            while (plan.sample_mib_per_node / 2 >= page_mib &&
                   samples_held * plan.sample_mib_per_node * kMib > allowed_bytes(*available))
                plan.sample_mib_per_node /= 2;
        }
        if (plan.sample_mib_per_node < kDefaultSampleMib && plan.sample_mib_per_node >= page_mib)
            plan.warnings.push_back("default sample reduced to " +
                                    std::to_string(plan.sample_mib_per_node) +
                                    " MiB per node to stay within --max-memory-fraction of the "
                                    "free memory");
    }
    if (plan.sample_mib_per_node == 0 || (plan.sample_mib_per_node * kMib) % plan.page_bytes != 0)
        throw UsageError("--sample-mib: " + std::to_string(plan.sample_mib_per_node) +
                         " is not a positive multiple of the page size (" +
                         std::to_string(page_mib) + " MiB); use e.g. " +
                         std::to_string(page_mib * 4));
    plan.pages_per_node = plan.sample_mib_per_node * kMib / plan.page_bytes;
    std::uint64_t sample_bytes = plan.pages_per_node * plan.page_bytes;

    std::uint64_t peak_bytes = samples_held * sample_bytes;

    for (const NumaNode* node : memory_nodes) {
        if (node->cpus.empty()) {
            plan.skipped_nodes.push_back(node->id);
            continue;
        }
        NodePlan np;
        np.node = node->id;
        np.hardware_threads = static_cast<int>(node->cpus.size());
        const auto& order = node->core_order.empty() ? node->cpus : node->core_order;
        int max_threads =
            *std::max_element(options.threads_per_node.begin(), options.threads_per_node.end());
        for (int i = 0; i < max_threads; ++i)
            np.cpus.push_back(order[static_cast<std::size_t>(i) % order.size()]);
        auto available = node_available_bytes(memory, node->id, memory_nodes.size());
        if (!available)
            throw RuntimeError("cannot tell how much memory node " + std::to_string(node->id) +
                               " has free (no nodeN/meminfo MemFree, no MemAvailable in "
                               "/proc/meminfo)");
        np.available_bytes = *available;
        np.peak_bytes = peak_bytes;
        auto allowed = allowed_bytes(np.available_bytes);
        if (peak_bytes > allowed) {
            std::uint64_t fit_pages = allowed / samples_held / plan.page_bytes;
            std::string fix = fit_pages == 0
                                  ? "free memory on that node, use smaller pages, or raise "
                                    "--max-memory-fraction"
                                  : "use --sample-mib " +
                                        std::to_string(fit_pages * plan.page_bytes / kMib) +
                                        " or less";
            std::ostringstream fraction;
            fraction << options.max_memory_fraction;
            throw UsageError("--sample-mib: " + std::to_string(plan.sample_mib_per_node) +
                             " MiB per node needs " + mib_text(peak_bytes) + " on node " +
                             std::to_string(node->id) +
                             " at once, more than --max-memory-fraction " + fraction.str() +
                             " of its " + mib_text(np.available_bytes) + " available; " + fix);
        }
        plan.nodes.push_back(std::move(np));
    }
    if (plan.nodes.empty())
        throw UnsupportedError("no NUMA node has both memory and CPUs; nothing to measure");

    int min_hw = plan.nodes.front().hardware_threads;
    for (const auto& n : plan.nodes)
        min_hw = std::min(min_hw, n.hardware_threads);
    int node_count = static_cast<int>(plan.nodes.size());
    std::vector<int> counts = options.threads_per_node;
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());

    double seconds = 0;
    double sample_gib = static_cast<double>(sample_bytes) / kGib;
    for (Phase phase : {Phase::alloc, Phase::zero, Phase::grow}) {
        if (!has(phase))
            continue;
        // Writing nr_hugepages runs in one thread under the kernel's resize lock
        // (docs/kernel-facts.md "Growing a pool through nr_hugepages"): only N = 1 means
        // anything for the grow phase.
        std::vector<int> ns = phase == Phase::grow ? std::vector<int>{1} : counts;
        for (int n : ns) {
            PointPlan p;
            p.phase = phase;
            p.threads_per_node = n;
            p.total_threads = n * node_count;
            p.oversubscribed = n > min_hw;
            plan.points.push_back(p);
            // Nodes run at once except grow, which the resize lock serialises; +1: warm-up.
            double per_rep =
                sample_gib / assumed_rate(phase) * (phase == Phase::grow ? 2.0 * node_count : 1.0) +
                kRepetitionOverheadSeconds + kThreadOverheadSeconds * p.total_threads;
            seconds += per_rep * options.repetitions;
        }
        seconds += sample_gib / assumed_rate(phase);  // warm-up repetition
    }
    if (has(Phase::zero))
        seconds += sample_gib * node_count * 2 / kAssumedGrowGibPerSecond;
    plan.timed_repetitions = static_cast<int>(plan.points.size()) * options.repetitions;
    plan.estimated_seconds = seconds;

    if (probe.virtualization.hypervisor)
        plan.warnings.push_back(
            "virtual machine: first touches of guest memory include host faults; the sweep "
            "warms up, but results are flagged as measured in a VM");
    if (gigantic)
        plan.warnings.push_back(
            "gigantic pages: hugepage_alloc_threads= does not apply to them at boot; their "
            "zeroing curve is still measured");
    if (plan.pages_per_node < static_cast<std::uint64_t>(counts.back()))
        plan.warnings.push_back("the sample has " + std::to_string(plan.pages_per_node) +
                                " page(s) per node, fewer than " + std::to_string(counts.back()) +
                                " threads: some threads get no page");
    for (int id : plan.skipped_nodes)
        plan.warnings.push_back("node " + std::to_string(id) +
                                " has memory but no CPUs: not measured");
    if (counts.back() > min_hw)
        plan.warnings.push_back("counts above " + std::to_string(min_hw) +
                                " threads per node exceed the hardware threads: flagged "
                                "oversubscribed");
    return plan;
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
    for (const auto& p : plan.points)
        points.push_back({{"phase", phase_name(p.phase)},
                          {"threads_per_node", p.threads_per_node},
                          {"total_threads", p.total_threads},
                          {"oversubscribed", p.oversubscribed}});
    return {{"threads_per_node", plan.options.threads_per_node},
            {"repetitions", plan.options.repetitions},
            {"phases", phases},
            {"page_size_kb", plan.page_size_kb},
            {"sample_mib_per_node", plan.sample_mib_per_node},
            {"pages_per_node", plan.pages_per_node},
            {"max_memory_fraction", plan.options.max_memory_fraction},
            {"seed", plan.options.seed},
            {"nodes", nodes},
            {"skipped_nodes", plan.skipped_nodes},
            {"points", points},
            {"timed_repetitions", plan.timed_repetitions},
            {"estimated_seconds", plan.estimated_seconds},
            {"warnings", plan.warnings}};
}

std::string format_plan(const SweepPlan& plan) {
    std::ostringstream out;
    out << "sweep plan: " << plan.pages_per_node << " x " << size_text(plan.page_size_kb)
        << " pages (" << plan.sample_mib_per_node << " MiB) per node, " << plan.options.repetitions
        << " repetitions, seed " << plan.options.seed << "\n";
    for (const auto& n : plan.nodes) {
        out << "  node " << n.node << ": " << n.hardware_threads << " hardware threads, "
            << mib_text(n.available_bytes) << " available, holds up to " << mib_text(n.peak_bytes)
            << "; CPUs by thread:";
        for (int c : n.cpus)
            out << ' ' << c;
        out << "\n";
    }
    out << "  points:";
    for (const auto& p : plan.points)
        out << ' ' << phase_name(p.phase) << '@' << p.threads_per_node
            << (p.oversubscribed ? "*" : "");
    out << "   (* oversubscribed)\n";
    char est[64];
    std::snprintf(est, sizeof est, "%.0f", plan.estimated_seconds);
    out << "  " << plan.timed_repetitions << " timed repetitions, about " << est
        << " s (a rough upper estimate)\n";
    for (const auto& w : plan.warnings)
        out << "  note: " << w << "\n";
    return out.str();
}

}  // namespace hugetune
