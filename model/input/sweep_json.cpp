// Reads `hugetune-sweep` documents (format in docs/sweep-format.md) into plain data.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/input/fit_input.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& path, const std::string& problem) {
    throw InputError(std::nullopt, path + ": " + problem);
}

const json* member(const json& obj, const char* key) {
    if (!obj.is_object())
        return nullptr;
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

const json& require(const json& obj, const char* key, const std::string& path) {
    const json* v = member(obj, key);
    if (v == nullptr)
        bad(path + key, "missing");
    return *v;
}

double positive_number(const json& v, const std::string& path) {
    if (!v.is_number())
        bad(path, "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d <= 0)
        bad(path, "must be above 0");
    return d;
}

std::int64_t positive_integer(const json& v, const std::string& path) {
    if (!v.is_number_integer() && !v.is_number_unsigned())
        bad(path, "must be a whole number");
    const auto i = v.get<std::int64_t>();
    if (i <= 0)
        bad(path, "must be at least 1");
    return i;
}

template <typename T>
std::optional<T> optional_value(const json& obj, const char* key) {
    const json* v = member(obj, key);
    if (v == nullptr)
        return std::nullopt;
    try {
        return v->get<T>();
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

void read_machine(const json& probe, const json& parameters, SweepData& data) {
    MachineFacts& m = data.machine;
    if (const json* cpu = member(probe, "cpu"))
        m.microarch = optional_value<std::string>(*cpu, "microarch").value_or("unknown");
    const json* kernel = member(probe, "kernel");
    const json empty = json::object();
    const json& k = kernel != nullptr ? *kernel : empty;
    if (auto cpus = optional_value<int>(k, "online_cpus"); cpus && *cpus > 0)
        m.online_cpus = cpus;
    m.init_on_alloc = optional_value<bool>(k, "init_on_alloc");
    if (const json* boot = member(k, "boot_pool"); boot != nullptr && boot->is_array())
        for (const auto& r : *boot)
            if (optional_value<std::uint64_t>(r, "size_kb") == data.page_size_kb) {
                m.boot_pool_pages = optional_value<std::uint64_t>(r, "pages");
                m.boot_pool_node_format = optional_value<bool>(r, "node_format").value_or(false);
            }
    if (const json* pools = member(k, "pools"); pools != nullptr && pools->is_array())
        for (const auto& p : *pools)
            if (optional_value<std::uint64_t>(p, "size_kb") == data.page_size_kb)
                m.current_pool_pages = optional_value<std::uint64_t>(p, "nr");
    if (const json* virt = member(probe, "virtualization"))
        m.hypervisor = optional_value<bool>(*virt, "hypervisor").value_or(false);

    // Nodes with memory: the sweep measured exactly those (parameters.nodes); the probe's
    // topology gives their hardware threads.
    std::set<int> measured;
    if (const json* nodes = member(parameters, "nodes"); nodes != nullptr && nodes->is_array())
        for (const auto& n : *nodes)
            if (n.is_number_integer())
                measured.insert(n.get<int>());
    int memory_nodes = 0, most_threads = 0;
    if (const json* topo = member(probe, "topology"))
        if (const json* nodes = member(*topo, "nodes"); nodes != nullptr && nodes->is_array())
            for (const auto& n : *nodes) {
                const auto id = optional_value<int>(n, "id");
                const bool with_memory =
                    measured.empty()
                        ? optional_value<std::uint64_t>(n, "memory_bytes").value_or(0) > 0
                        : (id && measured.contains(*id));
                if (!with_memory)
                    continue;
                ++memory_nodes;
                if (const json* cpus = member(n, "cpus"); cpus != nullptr && cpus->is_array())
                    most_threads = std::max(most_threads, static_cast<int>(cpus->size()));
            }
    if (!measured.empty())
        m.nodes = static_cast<int>(measured.size());
    else if (memory_nodes > 0)
        m.nodes = memory_nodes;
    if (most_threads > 0)
        m.hw_threads_per_node = most_threads;
}

}  // namespace

SweepData parse_sweep_json(const nlohmann::json& doc) {
    if (!doc.is_object())
        bad("document", "not a JSON object; expected a hugetune sweep");
    const json* format = member(doc, "format");
    if (format == nullptr || *format != "hugetune-sweep")
        bad("format", "not 'hugetune-sweep'; give a file written by 'hugetune sweep --out'");
    const json& version = require(doc, "format_version", "");
    if (!version.is_number_integer())
        bad("format_version", "must be a whole number");
    if (version.get<int>() != 1)
        bad("format_version", std::to_string(version.get<int>()) +
                                  " is not supported (this hugetune reads version 1)");

    SweepData data;
    data.source = "sweep";
    data.complete = optional_value<bool>(doc, "complete").value_or(true);
    const json& parameters = require(doc, "parameters", "");
    data.page_size_kb = static_cast<std::uint64_t>(positive_integer(
        require(parameters, "page_size_kb", "parameters."), "parameters.page_size_kb"));
    data.seed = optional_value<std::uint64_t>(parameters, "seed").value_or(1);
    const json empty = json::object();
    const json* probe = member(doc, "probe");
    if (probe == nullptr)
        data.notes.push_back("the sweep has no probe block: machine facts unknown");
    read_machine(probe != nullptr ? *probe : empty, parameters, data);

    const json& points = require(doc, "points", "");
    if (!points.is_array())
        bad("points", "must be an array");
    struct Sample {
        std::string phase;
        double threads;
        double pages;
        std::vector<double> seconds;
        bool oversubscribed;
    };
    std::vector<Sample> samples_read;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::string path = "points[" + std::to_string(i) + "].";
        const json& p = points[i];
        if (!p.is_object())
            bad("points[" + std::to_string(i) + "]", "must be an object");
        const json& phase_v = require(p, "phase", path);
        if (!phase_v.is_string())
            bad(path + "phase", "must be a string");
        const auto phase = phase_v.get<std::string>();
        if (phase != kPhaseAlloc && phase != kPhaseZero && phase != kPhaseGrow)
            bad(path + "phase", "'" + phase + "' is not one of alloc, zero, grow");
        const auto threads =
            positive_integer(require(p, "threads_per_node", path), path + "threads_per_node");
        const double pages =
            positive_number(require(p, "pages_per_node", path), path + "pages_per_node");
        std::vector<double> samples;
        if (const json* s = member(p, "samples_seconds");
            s != nullptr && s->is_array() && !s->empty()) {
            for (std::size_t j = 0; j < s->size(); ++j)
                samples.push_back(
                    positive_number((*s)[j], path + "samples_seconds[" + std::to_string(j) + "]"));
        } else {
            samples.push_back(
                positive_number(require(p, "median_seconds", path), path + "median_seconds"));
        }
        // The kernel's resize lock serialises the nodes' pool writes of the grow phase: its wall
        // time covers every node one after another, so one node's share is wall / nodes.
        if (optional_value<bool>(p, "nodes_serialised").value_or(false) && data.machine.nodes &&
            *data.machine.nodes > 1)
            for (double& seconds : samples)
                seconds /= *data.machine.nodes;
        samples_read.push_back({phase, static_cast<double>(threads), pages, std::move(samples),
                                optional_value<bool>(p, "oversubscribed").value_or(false)});
    }
    // Time-sliced threads measure the scheduler, not the allocator, and the kernel never runs
    // more than the CPUs either: oversubscribed points stay out of the fit, unless without them
    // the alloc series has fewer than three thread counts (a machine with one or two hardware
    // threads per node). Then they are kept, said so, and the recommendation still never
    // exceeds the hardware threads.
    std::set<double> alloc_counts_in_hardware;
    for (const auto& s : samples_read)
        if (s.phase == kPhaseAlloc && !s.oversubscribed)
            alloc_counts_in_hardware.insert(s.threads);
    const bool keep_oversubscribed = alloc_counts_in_hardware.size() < 3;
    std::map<std::string, PhaseSeries> by_phase;
    std::set<int> oversubscribed;
    for (const auto& s : samples_read) {
        if (s.oversubscribed) {
            oversubscribed.insert(static_cast<int>(s.threads));
            if (!keep_oversubscribed)
                continue;
        }
        auto& series = by_phase[s.phase];
        if (series.phase.empty()) {
            series.phase = s.phase;
            series.pages_per_node = s.pages;
        }
        // Per-page cost is what carries over to the boot pool, so a point that did a different
        // amount of work is rescaled to the series' amount.
        for (double seconds : s.seconds)
            series.points.push_back({s.threads, seconds * series.pages_per_node / s.pages});
    }
    for (auto& [name, series] : by_phase)
        data.phases.push_back(std::move(series));
    if (!oversubscribed.empty()) {
        std::string list;
        for (int n : oversubscribed)
            list += (list.empty() ? "" : ", ") + std::to_string(n);
        if (keep_oversubscribed)
            data.notes.push_back(
                "fewer than 3 thread counts fit in the hardware threads: kept the oversubscribed "
                "points (" +
                list + " per node) in the fit; they measure time-sharing");
        else
            data.notes.push_back(
                "left out oversubscribed points (more threads than the node has): " + list +
                " per node");
    }
    if (!data.complete)
        data.notes.push_back("the sweep is incomplete (interrupted); fitting the points it has");
    const PhaseSeries* alloc = data.phase(kPhaseAlloc);
    if (alloc == nullptr)
        bad("points", "no alloc points: nothing to base a boot time on");
    check_enough_thread_counts(*alloc, std::nullopt);
    return data;
}

const PhaseSeries* SweepData::phase(std::string_view name) const {
    for (const auto& p : phases)
        if (p.phase == name)
            return &p;
    return nullptr;
}

void check_enough_thread_counts(const PhaseSeries& series, std::optional<int> line) {
    const auto distinct = distinct_thread_counts(series.points);
    if (distinct < kMinThreadCounts)
        throw InputError(line,
                         "only " + std::to_string(distinct) + " distinct threads_per_node " +
                             "value(s) in the " + series.phase + " series; a fit needs at least " +
                             std::to_string(kMinThreadCounts) + " (measure more thread counts)");
}

}  // namespace hugetune::model
