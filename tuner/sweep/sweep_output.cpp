// The sweep as the file `hugetune fit` reads (docs/sweep-format.md) and as the fit and the
// console tables take it in memory: one set of points for both.
#include <algorithm>
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
    return m;
}

json point_json(const SweepResult& r, const model::MeasuredPoint& m, const PointResult& p) {
    auto [lo, hi] = std::minmax_element(p.samples_seconds.begin(), p.samples_seconds.end());
    json point = {{"phase", m.phase},
                  {"threads_per_node", m.threads_per_node},
                  {"total_threads", p.total_threads},
                  {"page_size_kb", m.page_size_kb},
                  {"pages_per_node", static_cast<std::uint64_t>(m.pages_per_node)},
                  {"samples_seconds", m.samples_seconds},
                  {"median_seconds", m.median_seconds},
                  {"gib_per_second", m.gib_per_second},
                  {"oversubscribed", m.oversubscribed},
                  {"shortfall_pages", m.shortfall_pages},
                  {"spread", {{"min_seconds", *lo}, {"max_seconds", *hi}}},
                  {"thread_seconds", p.thread_seconds}};
    if (m.nodes_serialised)
        point["nodes_serialised"] = true;
    if (r.plan.options.placement == Placement::boot) {
        point["node_pages"] = p.node_pages;
        if (p.phase != Phase::grow)
            point["expected_node_pages"] = r.plan.boot_node_pages(p.threads_per_node);
    }
    return point;
}

}  // namespace

model::MeasuredSweep measured_sweep(const SweepResult& r) {
    model::MeasuredSweep m;
    m.page_size_kb = r.plan.page_size_kb;
    m.seed = r.plan.options.seed;
    m.complete = r.complete;
    m.nodes = r.plan.node_ids();
    m.placement = std::string(placement_name(r.plan.options.placement));
    if (r.plan.hvo_pass)
        m.hvo_pass = model::HvoPass{r.plan.hvo_pass->as_is, r.plan.hvo_pass->flipped(), {}};
    for (const auto& p : r.points)
        if (!p.samples_seconds.empty())  // not reached before an interruption
            (p.hvo_flipped ? m.hvo_pass->points : m.points).push_back(measured_point(r, p));
    m.sampling = model::Sampling{std::string(sampling_rule(r.plan.options)), r.rounds,
                                 r.stopped ? std::string(stop_reason_name(*r.stopped)) : ""};
    m.warnings = r.warnings;
    return m;
}

nlohmann::json measured_block_json(const SweepResult& r) {
    json phases = json::array();
    for (Phase p : r.plan.options.phases)
        phases.push_back(phase_name(p));
    json points = json::array();
    json hvo_points = json::array();
    for (const auto& p : r.points)
        if (!p.samples_seconds.empty())
            (p.hvo_flipped ? hvo_points : points).push_back(point_json(r, measured_point(r, p), p));
    json block = {{"complete", r.complete},
                  {"parameters",
                   {{"threads_per_node", r.plan.options.threads_per_node},
                    {"repetitions", r.plan.options.most_repetitions()},
                    {"phases", phases},
                    {"page_size_kb", r.plan.page_size_kb},
                    {"sample_mib_per_node", r.plan.sample_mib_per_node},
                    {"nodes", r.plan.node_ids()},
                    {"placement", placement_name(r.plan.options.placement)},
                    {"seed", r.plan.options.seed},
                    {"max_memory_fraction", r.plan.options.max_memory_fraction}}},
                  {"points", points}};
    if (r.plan.options.placement == Placement::boot) {
        block["parameters"]["memory_nodes"] = r.plan.memory_node_ids();
        block["parameters"]["boot_node"] = r.plan.boot_node;
    }
    block["sampling"] = sampling_json(r.plan.options);
    block["sampling"]["rounds"] = r.rounds;
    if (r.stopped)
        block["sampling"]["stopped"] = stop_reason_name(*r.stopped);
    if (r.plan.hvo_pass)
        block["hvo_pass"] = {{"hugetlb_optimize_vmemmap_as_is", r.plan.hvo_pass->as_is ? 1 : 0},
                             {"hugetlb_optimize_vmemmap", r.plan.hvo_pass->flipped() ? 1 : 0},
                             {"points", hvo_points}};
    else
        block["hvo_pass"] = {{"note", r.plan.hvo_pass_note}};
    return block;
}

nlohmann::json to_json(const SweepResult& r) {
    json doc = measured_block_json(r);
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
