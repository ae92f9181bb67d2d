// The sweep as the file `hugetune fit` reads (docs/sweep-format.md) and as console tables.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "model/text.hpp"
#include "tuner/sweep/sweep.hpp"

namespace hugetune {
namespace {

using nlohmann::json;

constexpr double kGib = 1024.0 * 1024 * 1024;

double sample_gib(const SweepResult& r) {
    return static_cast<double>(r.plan.pages_per_node * r.plan.page_bytes * r.plan.nodes.size()) /
           kGib;
}

std::string seconds_text(double s) {
    char buf[32];
    if (s < 1e-3)
        std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
    else if (s < 1)
        std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.3f s", s);
    return buf;
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
            {"tool", {{"version", HUGETUNE_VERSION}}},
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

std::string format_tables(const SweepResult& r) {
    std::ostringstream out;
    double gib = sample_gib(r);
    for (Phase phase : {Phase::alloc, Phase::zero, Phase::grow}) {
        bool any = false;
        for (const auto& p : r.points)
            any = any || (p.phase == phase && !p.samples_seconds.empty());
        if (!any)
            continue;
        out << phase_name(phase) << ": " << r.plan.pages_per_node << " x "
            << r.plan.page_size_kb / 1024 << " MiB pages per node, " << r.plan.nodes.size()
            << " node(s)\n";
        out << "     N       median   spread     GiB/s\n";
        for (const auto& p : r.points) {
            if (p.phase != phase || p.samples_seconds.empty())
                continue;
            double med = p.median_seconds();
            auto [lo, hi] = std::minmax_element(p.samples_seconds.begin(), p.samples_seconds.end());
            char line[160];
            std::snprintf(line, sizeof line, "  %4d%s %11s  %6.1f%%  %8.2f", p.threads_per_node,
                          p.oversubscribed ? "*" : " ", seconds_text(med).c_str(),
                          med > 0 ? (*hi - *lo) / med * 100 : 0.0, med > 0 ? gib / med : 0.0);
            out << line;
            if (p.shortfall_pages)
                out << "  shortfall " << p.shortfall_pages << " pages";
            out << "\n";
        }
        out << "\n";
    }
    bool over = std::any_of(r.points.begin(), r.points.end(),
                            [](const PointResult& p) { return p.oversubscribed; });
    if (over)
        out << "* more threads than the node has hardware threads (oversubscribed)\n";
    out << "spread: (slowest - fastest) / median over the repetitions\n";
    for (const auto& w : r.warnings)
        out << "note: " << w << "\n";
    return out.str();
}

}  // namespace hugetune
