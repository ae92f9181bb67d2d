// The sweep as the file `hugetune fit` reads (docs/sweep-format.md); `hugetune sweep` prints
// its tables from this document too.
#include <algorithm>

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

}  // namespace

nlohmann::json to_json(const SweepResult& r) {
    json phases = json::array();
    for (Phase p : r.plan.options.phases)
        phases.push_back(phase_name(p));
    json points = json::array();
    double gib = sample_gib(r);
    for (const auto& p : r.points) {
        if (p.samples_seconds.empty())
            continue;  // not reached before an interruption
        double med = p.median_seconds();
        auto [lo, hi] = std::minmax_element(p.samples_seconds.begin(), p.samples_seconds.end());
        json point = {{"phase", phase_name(p.phase)},
                      {"threads_per_node", p.threads_per_node},
                      {"total_threads", p.total_threads},
                      {"page_size_kb", r.plan.page_size_kb},
                      {"pages_per_node", r.plan.pages_per_node},
                      {"samples_seconds", p.samples_seconds},
                      {"median_seconds", med},
                      {"gib_per_second", med > 0 ? gib / med : 0.0},
                      {"oversubscribed", p.oversubscribed},
                      {"shortfall_pages", p.shortfall_pages},
                      {"spread", {{"min_seconds", *lo}, {"max_seconds", *hi}}},
                      {"thread_seconds", p.thread_seconds}};
        // The resize lock serialises the nodes' pool writes, unlike the fault phases.
        if (p.phase == Phase::grow)
            point["nodes_serialised"] = true;
        points.push_back(std::move(point));
    }
    return {{"format", "hugetune-sweep"},
            {"format_version", kSweepFormatVersion},
            {"tool",
             {{"version", std::string(tool_version())}, {"commit", std::string(tool_commit())}}},
            {"generated_at", utc_now()},
            {"started_at", r.started_at},
            {"complete", r.complete},
            {"elapsed_seconds", r.elapsed_seconds},
            {"probe", r.probe},
            {"parameters",
             {{"threads_per_node", r.plan.options.threads_per_node},
              {"repetitions", r.plan.options.repetitions},
              {"phases", phases},
              {"page_size_kb", r.plan.page_size_kb},
              {"sample_mib_per_node", r.plan.sample_mib_per_node},
              {"nodes", r.plan.node_ids()},
              {"seed", r.plan.options.seed},
              {"max_memory_fraction", r.plan.options.max_memory_fraction}}},
            {"points", points},
            {"warnings", r.warnings}};
}

}  // namespace hugetune
