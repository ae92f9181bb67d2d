#include "model/fleet/host_runs.hpp"

#include <algorithm>
#include <map>

namespace hugetune::model::fleet {
namespace {

// Per page, at the series' pages per node, like points of one sweep (sweep_json.cpp), each
// point's weight times `weight`.
void append_points(PhaseSeries& to, const PhaseSeries& from, double weight) {
    const double scale = from.pages_per_node > 0 ? to.pages_per_node / from.pages_per_node : 1.0;
    for (const auto& p : from.points)
        to.points.push_back({p.threads_per_node, p.seconds * scale, p.weight * weight});
}

std::optional<std::uint64_t> most_common_pool(const std::vector<HostRuns>& hosts) {
    std::map<std::uint64_t, int> counts;
    for (const auto& h : hosts)
        if (const auto pages = newest(h).sweep.machine.boot_pool_pages)
            ++counts[*pages];
    if (counts.empty())
        return std::nullopt;
    return std::max_element(counts.begin(), counts.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
}

}  // namespace

std::vector<HostRuns> read_host_runs(const std::vector<FleetRun>& runs, const InputSource& input) {
    if (runs.empty())
        throw InputError(input, std::nullopt, "no runs of this SKU; ingest reports first");
    std::map<std::string, HostRuns> by_host;
    std::optional<SkuKey> key;
    for (const auto& run : runs) {
        RunFacts facts = read_stored_run(run, input);
        if (key && !(facts.sku == *key))
            throw InputError(input, std::nullopt,
                             "run " + run.run_key + " of host " + facts.host + " is of SKU " +
                                 to_string(facts.sku) + ", not " + to_string(*key) +
                                 "; give runs of one SKU");
        key = facts.sku;
        auto& host = by_host[facts.host];
        host.host = facts.host;
        host.runs.push_back(std::move(facts));
    }
    std::vector<HostRuns> out;
    for (auto& [name, host] : by_host) {
        std::stable_sort(
            host.runs.begin(), host.runs.end(),
            [](const RunFacts& a, const RunFacts& b) { return a.generated_at < b.generated_at; });
        out.push_back(std::move(host));
    }
    return out;
}

const RunFacts& newest(const HostRuns& host) {
    return host.runs.back();
}

SweepData pooled_sweep(const std::vector<HostRuns>& hosts, const InputSource& input) {
    SweepData pooled = newest(hosts.front()).sweep;
    pooled.input = input;
    pooled.machine.boot_pool_pages = most_common_pool(hosts);
    for (auto& series : pooled.phases)
        series.points.clear();
    pooled.notes.clear();
    for (const auto& host : hosts) {
        const double weight = 1.0 / static_cast<double>(host.runs.size());
        for (const auto& run : host.runs)
            for (const auto& from : run.sweep.phases)
                for (auto& to : pooled.phases)
                    if (to.phase == from.phase)
                        append_points(to, from, weight);
        for (auto& series : pooled.phases)
            series.host_ends.push_back(series.points.size());
    }
    pooled.complete = true;
    return pooled;
}

std::optional<std::string> most_common(const std::vector<std::optional<std::string>>& values) {
    std::map<std::string, int> counts;
    for (const auto& v : values)
        if (v)
            ++counts[*v];
    std::optional<std::string> best;
    int most = 0;
    bool tie = false;
    for (const auto& [value, count] : counts) {
        if (count > most) {
            best = value;
            most = count;
            tie = false;
        } else if (count == most) {
            tie = true;
        }
    }
    return tie ? std::nullopt : best;
}

}  // namespace hugetune::model::fleet
