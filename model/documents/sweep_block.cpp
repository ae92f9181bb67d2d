// Writes the measured block of `hugetune-sweep` documents and reports (docs/sweep-format.md)
// from the typed sweep: the sweep's file, its JSON output and a report's `sweep` all come from
// here, whether the sweep was measured a moment ago or read from a file.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "model/documents/json_values.hpp"
#include "model/documents/sweep.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

// A count the reader holds as a number: written as the integer the format states where it is one.
json count_json(double value) {
    if (value >= 0 && value < 9.0e15 && std::floor(value) == value)
        return static_cast<std::uint64_t>(value);
    return value;
}

json point_json(const MeasuredPoint& p) {
    json point = {{"phase", p.phase},
                  {"threads_per_node", p.threads_per_node},
                  {"pages_per_node", count_json(p.pages_per_node)},
                  {"median_seconds", p.median_seconds},
                  {"gib_per_second", p.gib_per_second},
                  {"oversubscribed", p.oversubscribed},
                  {"shortfall_pages", p.shortfall_pages}};
    if (p.total_threads > 0)
        point["total_threads"] = p.total_threads;
    if (p.page_size_kb > 0)
        point["page_size_kb"] = p.page_size_kb;
    if (!p.samples_seconds.empty()) {
        point["samples_seconds"] = p.samples_seconds;
        const auto [lo, hi] =
            std::minmax_element(p.samples_seconds.begin(), p.samples_seconds.end());
        point["spread"] = {{"min_seconds", *lo}, {"max_seconds", *hi}};
    }
    put_present(point, "thread_seconds", p.thread_seconds);
    if (p.nodes_serialised)
        point["nodes_serialised"] = true;
    put_present(point, "node_pages", p.node_pages);
    put_present(point, "expected_node_pages", p.expected_node_pages);
    return point;
}

json points_json(const std::vector<MeasuredPoint>& points) {
    json out = json::array();
    for (const auto& p : points)
        out.push_back(point_json(p));
    return out;
}

json parameters_json(const MeasuredSweep& m) {
    const SweepAsked& a = m.asked;
    json parameters = {
        {"page_size_kb", m.page_size_kb}, {"placement", m.placement}, {"seed", m.seed}};
    if (!m.nodes.empty())
        parameters["nodes"] = m.nodes;
    if (!a.threads_per_node.empty())
        parameters["threads_per_node"] = a.threads_per_node;
    put_present(parameters, "repetitions", a.repetitions);
    if (!a.phases.empty())
        parameters["phases"] = a.phases;
    put_present(parameters, "sample_mib_per_node", a.sample_mib_per_node);
    put_present(parameters, "max_memory_fraction", a.max_memory_fraction);
    put_present(parameters, "memory_nodes", a.memory_nodes);
    put_present(parameters, "boot_node", a.boot_node);
    return parameters;
}

}  // namespace

json to_json(const Sampling& s) {
    json sampling = {{"rule", s.rule}};
    put_present(sampling, "rounds", s.rounds);
    if (!s.stopped.empty())
        sampling["stopped"] = s.stopped;
    put_present(sampling, "first_rounds", s.first_rounds);
    put_present(sampling, "max_repetitions", s.max_repetitions);
    put_present(sampling, "tolerance", s.tolerance);
    put_present(sampling, "budget_seconds", s.budget_seconds);
    return sampling;
}

json measured_block_json(const MeasuredSweep& m) {
    json block = {{"complete", m.complete},
                  {"parameters", parameters_json(m)},
                  {"points", points_json(m.points)}};
    if (m.sampling)
        block["sampling"] = to_json(*m.sampling);
    if (m.hvo_pass)
        block["hvo_pass"] = {{"hugetlb_optimize_vmemmap_as_is", m.hvo_pass->as_is ? 1 : 0},
                             {"hugetlb_optimize_vmemmap", m.hvo_pass->flipped ? 1 : 0},
                             {"points", points_json(m.hvo_pass->points)}};
    else if (m.hvo_note)
        block["hvo_pass"] = {{"note", *m.hvo_note}};
    return block;
}

}  // namespace hugetune::model
