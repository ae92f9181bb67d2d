// A sweep's measurements and its probe's facts -> the fit's input (SweepData).
#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "model/documents/probe_record.hpp"
#include "model/documents/sweep.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/input/probe_nodes.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

// HVO and pre-zeroing as the probe found them (tuner/probe/probe_output.cpp writes them); a
// probe written before them reads as HVO unknown, no sysctl, nothing freeable, no file.
void read_kernel_options(const JsonField& kernel, std::uint64_t page_size_kb, KernelOptions& k) {
    k.hvo = kernel.hint<bool>("hvo");
    k.hvo_sysctl = kernel.hint<bool>("hvo_sysctl").value_or(false);
    for (std::size_t i = 0; i < kernel["vmemmap_freeable"].hint_size(); ++i) {
        const JsonField f = kernel["vmemmap_freeable"][i];
        if (f.hint<std::uint64_t>("size_kb") == page_size_kb)
            if (const auto kib = f.hint<std::uint64_t>("kib_per_page"))
                k.vmemmap_freeable_kib_per_page = static_cast<double>(*kib);
    }
    for (std::size_t i = 0; i < kernel["pools"].hint_size(); ++i) {
        const JsonField pool = kernel["pools"][i];
        if (pool.hint<std::uint64_t>("size_kb") != page_size_kb)
            continue;
        for (std::size_t n = 0; n < pool["nodes"].hint_size(); ++n)
            k.zeroable_hugepages =
                k.zeroable_hugepages || pool["nodes"][n].hint<std::uint64_t>("zeroable_hugepages");
    }
}

void read_kernel(const JsonField& kernel, std::uint64_t page_size_kb, MachineFacts& m) {
    if (auto cpus = kernel.hint<int>("online_cpus"); cpus && *cpus > 0)
        m.online_cpus = cpus;
    m.init_on_alloc = kernel.hint<bool>("init_on_alloc");
    m.kernel_release = kernel.hint<std::string>("release");
    m.supports_alloc_threads = kernel.hint<bool>("supports_hugepage_alloc_threads");
    if (auto block = kernel.hint<std::uint64_t>("largest_buddy_block_kb"); block && *block >= 4)
        m.largest_buddy_block_kb = *block;
    for (std::size_t i = 0; i < kernel["boot_pool"].hint_size(); ++i) {
        const JsonField request = kernel["boot_pool"][i];
        const BootPoolRequest r{request.hint<std::uint64_t>("size_kb").value_or(0),
                                request.hint<std::uint64_t>("pages"),
                                request.hint<bool>("node_format").value_or(false)};
        if (r.size_kb == page_size_kb)
            m.boot_pool_pages = r.pages;
        m.boot_requests.push_back(r);
    }
    for (std::size_t i = 0; i < kernel["pools"].hint_size(); ++i)
        if (kernel["pools"][i].hint<std::uint64_t>("size_kb") == page_size_kb)
            m.current_pool_pages = kernel["pools"][i].hint<std::uint64_t>("nr");
    read_kernel_options(kernel, page_size_kb, m.kernel);
}

MachineFacts read_machine(const JsonField& probe, const std::vector<int>& measured_nodes,
                          std::uint64_t page_size_kb) {
    MachineFacts m;
    m.microarch = probe["cpu"].hint<std::string>("microarch").value_or("unknown");
    read_kernel(probe["kernel"], page_size_kb, m);
    m.hypervisor = probe["virtualization"].hint<bool>("hypervisor").value_or(false);
    set_node_facts(read_probe_nodes(probe["topology"]), measured_nodes, m);
    return m;
}

// One point's repetitions as the fit counts them.
struct Sample {
    std::string phase;
    double threads = 0;
    double pages = 0;
    std::vector<double> seconds;
    bool oversubscribed = false;
};

// The kernel's resize lock serialises the nodes' pool writes of the grow phase: its wall time
// covers every node one after another, so one node's share is wall / nodes.
Sample sample_of(const MeasuredPoint& point, std::optional<int> nodes) {
    Sample s{point.phase, static_cast<double>(point.threads_per_node), point.pages_per_node,
             point.seconds(), point.oversubscribed};
    if (point.nodes_serialised && nodes && *nodes > 1)
        for (double& seconds : s.seconds)
            seconds /= *nodes;
    return s;
}

// Time-sliced threads measure the scheduler, not the allocator, and the kernel never runs more
// than the CPUs either: oversubscribed points stay out of the fit, unless without them the
// alloc series has fewer than three thread counts (a machine with one or two hardware threads
// per node). Then they are kept, said so, and the recommendation still never exceeds the
// hardware threads.
void group_into_series(const std::vector<Sample>& samples, SweepData& data) {
    std::set<double> alloc_counts_in_hardware;
    std::set<int> oversubscribed;
    for (const auto& s : samples) {
        if (s.phase == kPhaseAlloc && !s.oversubscribed)
            alloc_counts_in_hardware.insert(s.threads);
        if (s.oversubscribed)
            oversubscribed.insert(static_cast<int>(s.threads));
    }
    const bool keep_oversubscribed = alloc_counts_in_hardware.size() < kMinThreadCounts;
    std::map<std::string, std::size_t> sizes;
    for (const auto& s : samples)
        sizes[s.phase] += s.seconds.size();
    std::map<std::string, PhaseSeries> by_phase;
    for (const auto& s : samples) {
        if (s.oversubscribed && !keep_oversubscribed)
            continue;
        auto& series = by_phase[s.phase];
        if (series.phase.empty()) {
            series = {s.phase, s.pages, {}, {}};
            series.points.reserve(sizes[s.phase]);
        }
        // Per-page cost is what carries over to the boot pool, so a point that did a different
        // amount of work is rescaled to the series' amount.
        for (double seconds : s.seconds)
            series.points.push_back({s.threads, seconds * series.pages_per_node / s.pages});
    }
    for (auto& [name, series] : by_phase)
        data.phases.push_back(std::move(series));
    if (oversubscribed.empty())
        return;
    if (keep_oversubscribed)
        data.notes.push_back(
            "fewer than 3 thread counts fit in the hardware threads: kept the oversubscribed "
            "points (" +
            counts_text(oversubscribed) + " per node) in the fit; they measure time-sharing");
    else
        data.notes.push_back("left out oversubscribed points (more threads than the node has): " +
                             counts_text(oversubscribed) + " per node");
}

}  // namespace

SweepData fit_input(const MeasuredSweep& sweep, const MachineFacts& machine,
                    const std::string& points_path) {
    SweepData data;
    data.input = sweep.input;
    data.source = "sweep";
    data.complete = sweep.complete;
    data.page_size_kb = sweep.page_size_kb;
    data.seed = sweep.seed;
    data.machine = machine;
    std::vector<Sample> samples;
    samples.reserve(sweep.points.size());
    for (const auto& point : sweep.points)
        samples.push_back(sample_of(point, data.machine.nodes));
    group_into_series(samples, data);
    if (sweep.hvo_pass) {
        SweepData pass;
        std::vector<Sample> pass_samples;
        for (const auto& point : sweep.hvo_pass->points)
            pass_samples.push_back(sample_of(point, data.machine.nodes));
        group_into_series(pass_samples, pass);
        data.hvo_pass =
            HvoPassData{sweep.hvo_pass->as_is, sweep.hvo_pass->flipped, std::move(pass.phases)};
    }
    if (!data.complete)
        data.notes.push_back("the sweep is incomplete (interrupted); fitting the points it has");
    const PhaseSeries* alloc = data.phase(kPhaseAlloc);
    if (alloc == nullptr)
        throw InputError(data.input, std::nullopt,
                         points_path +
                             ": no alloc points: nothing to base a boot time on; measure the "
                             "alloc phase");
    check_enough_thread_counts(*alloc, std::nullopt, data.input);
    return data;
}

SweepData fit_input(const MeasuredSweep& sweep, const JsonField& probe,
                    const std::string& points_path) {
    SweepData data =
        fit_input(sweep, read_machine(probe, sweep.nodes, sweep.page_size_kb), points_path);
    if (!probe.present())
        data.notes.insert(data.notes.begin(),
                          "the sweep has no probe block: machine facts unknown");
    return data;
}

SweepData read_sweep_fields(const JsonField& sweep, const JsonField& probe) {
    return fit_input(read_measured_sweep(sweep), probe, sweep["points"].path());
}

SweepData parse_sweep_json(const nlohmann::json& document, const InputSource& input) {
    check_sweep_format(document, input);
    const JsonField doc(document, sweep_document_fix(), input);
    return fit_input(read_measured_sweep(doc), doc["probe"], "points");
}

const PhaseSeries* SweepData::phase(std::string_view name) const {
    for (const auto& p : phases)
        if (p.phase == name)
            return &p;
    return nullptr;
}

const PhaseSeries* HvoPassData::phase(std::string_view name) const {
    for (const auto& p : phases)
        if (p.phase == name)
            return &p;
    return nullptr;
}

void check_enough_thread_counts(const PhaseSeries& series, std::optional<int> line,
                                const InputSource& input) {
    const auto distinct = distinct_thread_counts(series.points);
    if (distinct < kMinThreadCounts)
        throw InputError(input, line,
                         "only " + std::to_string(distinct) + " distinct threads_per_node " +
                             "value(s) in the " + series.phase + " series; a fit needs at least " +
                             std::to_string(kMinThreadCounts) + " (measure more thread counts)");
}

}  // namespace hugetune::model
