// Reads `hugetune-sweep` documents (format in docs/sweep-format.md) into plain data.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

constexpr int kSweepFormatVersion = 1;

void check_format(const json& document, const JsonField& doc) {
    if (!document.is_object())
        doc.fail("not a JSON object");
    if (doc["format"].hint<std::string>() != "hugetune-sweep")
        doc["format"].fail("not 'hugetune-sweep'");
    const auto version =
        doc["format_version"].whole_number({std::numeric_limits<std::int64_t>::min()});
    if (version != kSweepFormatVersion)
        doc["format_version"].fail(std::to_string(version) +
                                   " is not supported (this hugetune reads version " +
                                   std::to_string(kSweepFormatVersion) + ")");
}

void read_kernel(const JsonField& kernel, std::uint64_t page_size_kb, MachineFacts& m) {
    if (auto cpus = kernel["online_cpus"].hint<int>(); cpus && *cpus > 0)
        m.online_cpus = cpus;
    m.init_on_alloc = kernel["init_on_alloc"].hint<bool>();
    m.kernel_release = kernel["release"].hint<std::string>();
    m.supports_alloc_threads = kernel["supports_hugepage_alloc_threads"].hint<bool>();
    for (std::size_t i = 0; i < kernel["boot_pool"].hint_size(); ++i) {
        const JsonField request = kernel["boot_pool"][i];
        const BootPoolRequest r{request["size_kb"].hint<std::uint64_t>().value_or(0),
                                request["pages"].hint<std::uint64_t>(),
                                request["node_format"].hint<bool>().value_or(false)};
        if (r.size_kb == page_size_kb)
            m.boot_pool_pages = r.pages;
        m.boot_requests.push_back(r);
    }
    for (std::size_t i = 0; i < kernel["pools"].hint_size(); ++i)
        if (kernel["pools"][i]["size_kb"].hint<std::uint64_t>() == page_size_kb)
            m.current_pool_pages = kernel["pools"][i]["nr"].hint<std::uint64_t>();
}

// Nodes with memory: the sweep measured exactly those (parameters.nodes); the probe's topology
// gives their hardware threads.
void read_nodes(const JsonField& probe, const JsonField& parameters, MachineFacts& m) {
    std::set<int> measured;
    for (std::size_t i = 0; i < parameters["nodes"].hint_size(); ++i)
        if (const auto id = parameters["nodes"][i].hint<int>())
            measured.insert(*id);
    int memory_nodes = 0;
    std::size_t most_threads = 0;
    const JsonField nodes = probe["topology"]["nodes"];
    for (std::size_t i = 0; i < nodes.hint_size(); ++i) {
        const JsonField node = nodes[i];
        const auto id = node["id"].hint<int>();
        const bool with_memory = measured.empty()
                                     ? node["memory_bytes"].hint<std::uint64_t>().value_or(0) > 0
                                     : (id && measured.contains(*id));
        if (!with_memory)
            continue;
        ++memory_nodes;
        most_threads = std::max(most_threads, node["cpus"].hint_size());
    }
    if (!measured.empty())
        m.nodes = static_cast<int>(measured.size());
    else if (memory_nodes > 0)
        m.nodes = memory_nodes;
    if (most_threads > 0)
        m.hw_threads_per_node = static_cast<int>(most_threads);
}

MachineFacts read_machine(const JsonField& probe, const JsonField& parameters,
                          std::uint64_t page_size_kb) {
    MachineFacts m;
    m.microarch = probe["cpu"]["microarch"].hint<std::string>().value_or("unknown");
    read_kernel(probe["kernel"], page_size_kb, m);
    m.hypervisor = probe["virtualization"]["hypervisor"].hint<bool>().value_or(false);
    read_nodes(probe, parameters, m);
    return m;
}

// One point of the document, its seconds per repetition.
struct Sample {
    std::string phase;
    double threads = 0;
    double pages = 0;
    std::vector<double> seconds;
    bool oversubscribed = false;
};

// `read` counts the samples of the document so far, against kMaxInputSamples.
std::vector<double> sample_seconds(const JsonField& point, std::size_t& read) {
    const JsonField samples = point["samples_seconds"];
    if (samples.present() && samples.array_size() == 0)
        samples
            .with_fix(
                "a point needs at least one measured time; remove the field to use "
                "median_seconds")
            .fail("empty");
    read += std::max<std::size_t>(samples.hint_size(), 1);
    if (read > kMaxInputSamples)
        samples.with_fix(std::string(kFewerSamplesFix))
            .fail("more than " + std::to_string(kMaxInputSamples) +
                  " samples in the sweep, the most hugetune reads");
    std::vector<double> seconds = samples.positive_numbers();
    if (seconds.empty())
        seconds.push_back(point["median_seconds"].positive_number());
    return seconds;
}

Sample read_point(const JsonField& point, std::optional<int> nodes, std::size_t& read) {
    point.object();
    Sample s;
    s.phase = point["phase"].string();
    if (s.phase != kPhaseAlloc && s.phase != kPhaseZero && s.phase != kPhaseGrow)
        point["phase"].fail("'" + s.phase + "' is not one of alloc, zero, grow");
    s.threads = static_cast<double>(point["threads_per_node"].whole_number());
    s.pages = point["pages_per_node"].positive_number();
    s.seconds = sample_seconds(point, read);
    // The kernel's resize lock serialises the nodes' pool writes of the grow phase: its wall
    // time covers every node one after another, so one node's share is wall / nodes.
    if (point["nodes_serialised"].hint<bool>().value_or(false) && nodes && *nodes > 1)
        for (double& seconds : s.seconds)
            seconds /= *nodes;
    s.oversubscribed = point["oversubscribed"].hint<bool>().value_or(false);
    return s;
}

std::string counts_text(const std::set<int>& counts) {
    std::string list;
    for (int n : counts)
        list += (list.empty() ? "" : ", ") + std::to_string(n);
    return list;
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

SweepData read_sweep_fields(const JsonField& sweep, const JsonField& probe) {
    SweepData data;
    data.input = sweep.input();
    data.source = "sweep";
    data.complete = sweep["complete"].hint<bool>().value_or(true);
    const JsonField parameters = sweep["parameters"];
    parameters.object();
    data.page_size_kb = static_cast<std::uint64_t>(parameters["page_size_kb"].whole_number());
    data.seed = parameters["seed"].hint<std::uint64_t>().value_or(1);
    if (!probe.present())
        data.notes.push_back("the sweep has no probe block: machine facts unknown");
    data.machine = read_machine(probe, parameters, data.page_size_kb);

    std::vector<Sample> samples;
    const std::size_t points = sweep["points"].array_size();
    std::size_t read = 0;
    for (std::size_t i = 0; i < points; ++i)
        samples.push_back(read_point(sweep["points"][i], data.machine.nodes, read));
    group_into_series(samples, data);
    if (!data.complete)
        data.notes.push_back("the sweep is incomplete (interrupted); fitting the points it has");
    const PhaseSeries* alloc = data.phase(kPhaseAlloc);
    if (alloc == nullptr)
        sweep["points"]
            .with_fix("measure the alloc phase")
            .fail("no alloc points: nothing to base a boot time on");
    check_enough_thread_counts(*alloc, std::nullopt, data.input);
    return data;
}

SweepData parse_sweep_json(const nlohmann::json& document, const InputSource& input) {
    const JsonField doc(document, "give a file written by 'hugetune sweep --out'", input);
    check_format(document, doc);
    return read_sweep_fields(doc, doc["probe"]);
}

const PhaseSeries* SweepData::phase(std::string_view name) const {
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
