// The sweep as the file `hugetune fit` reads (docs/sweep-format.md) and as the fit and the
// console tables take it in memory: one set of points for both.
#include <nlohmann/json.hpp>

#include "model/text.hpp"
#include "tuner/sweep/sweep.hpp"
#include "tuner/system/build_info.hpp"

namespace hugetune {
namespace {

using nlohmann::json;

double sample_gib(const SweepResult& r) {
    return static_cast<double>(r.plan.pages_per_node * r.plan.page_bytes * r.plan.nodes.size()) /
           kGibBytes;
}

model::MeasuredPoint measured_point(const SweepResult& r, const PointResult& p) {
    model::MeasuredPoint m;
    m.phase = phase_name(p.phase);
    m.threads_per_node = p.threads_per_node;
    m.pages_per_node = static_cast<double>(r.plan.pages_per_node);
    m.page_size_kb = r.plan.page_size_kb;
    m.samples_seconds = p.samples_seconds;
    m.median_seconds = p.median_seconds();
    m.gib_per_second = m.median_seconds > 0 ? sample_gib(r) / m.median_seconds : 0.0;
    m.oversubscribed = p.oversubscribed;
    m.shortfall_pages = p.shortfall_pages;
    // The resize lock serialises the nodes' pool writes, unlike the fault phases.
    m.nodes_serialised = p.phase == Phase::grow;
    m.total_threads = p.total_threads;
    m.thread_seconds = p.thread_seconds;
    if (r.plan.options.placement == Placement::boot) {
        m.node_pages = p.node_pages;
        if (p.phase != Phase::grow)
            m.expected_node_pages = r.plan.boot_node_pages(p.threads_per_node);
    }
    return m;
}

model::SweepAsked asked_of(const SweepPlan& plan) {
    model::SweepAsked a;
    a.threads_per_node = plan.options.threads_per_node;
    a.repetitions = plan.options.most_repetitions();
    for (Phase p : plan.options.phases)
        a.phases.emplace_back(phase_name(p));
    a.sample_mib_per_node = plan.sample_mib_per_node;
    a.max_memory_fraction = plan.options.max_memory_fraction;
    if (plan.options.placement == Placement::boot) {
        a.memory_nodes = plan.memory_node_ids();
        a.boot_node = plan.boot_node;
    }
    return a;
}

}  // namespace

model::MeasuredSweep measured_sweep(const SweepResult& r) {
    model::MeasuredSweep m;
    m.page_size_kb = r.plan.page_size_kb;
    m.seed = r.plan.options.seed;
    m.complete = r.complete;
    m.nodes = r.plan.node_ids();
    m.placement = std::string(placement_name(r.plan.options.placement));
    m.asked = asked_of(r.plan);
    if (r.plan.hvo_pass)
        m.hvo_pass = model::HvoPass{r.plan.hvo_pass->as_is, r.plan.hvo_pass->flipped(), {}};
    else
        m.hvo_note = r.plan.hvo_pass_note;
    for (const auto& p : r.points)
        if (!p.samples_seconds.empty())  // not reached before an interruption
            (p.hvo_flipped ? m.hvo_pass->points : m.points).push_back(measured_point(r, p));
    m.sampling = sampling_settings(r.plan.options);
    m.sampling->rounds = r.rounds;
    if (r.stopped)
        m.sampling->stopped = std::string(stop_reason_name(*r.stopped));
    m.warnings = r.warnings;
    return m;
}

nlohmann::json to_json(const SweepResult& r) {
    json doc = model::measured_block_json(measured_sweep(r));
    doc["format"] = model::kSweepFormat;
    doc["format_version"] = model::kSweepFormatVersion;
    doc["tool"] = {{"version", std::string(tool_version())},
                   {"commit", std::string(tool_commit())}};
    doc["generated_at"] = utc_now();
    doc["started_at"] = r.started_at;
    doc["elapsed_seconds"] = r.elapsed_seconds;
    doc["probe"] = model::to_json(r.probe);
    doc["warnings"] = r.warnings;
    return doc;
}

}  // namespace hugetune
