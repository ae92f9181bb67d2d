// One SKU's answer: every host's sweeps fitted together, the uncertainty from a bootstrap over
// hosts and their repetitions, judged against the boots `verify` has seen
// (docs/fleet.md "How a SKU's answer is made").
#include <algorithm>
#include <map>

#include "model/alloc_threads.hpp"
#include "model/fit/resampling.hpp"
#include "model/fleet/fleet.hpp"
#include "model/fleet/host_runs.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

struct VerifiedBoots {
    int boots = 0;
    std::vector<double> ratios;
    // Measured seconds per page of the booted pool, per total thread count booted.
    std::map<int, std::vector<double>> seconds_per_page;
};

VerifiedBoots verified_boots(const std::vector<HostRuns>& hosts) {
    VerifiedBoots v;
    for (const auto& host : hosts)
        for (const Verification& f : verified_boots_of(host.runs)) {
            ++v.boots;
            if (f.ratio)
                v.ratios.push_back(*f.ratio);
            if (f.threads && f.measured_ms && f.pool && f.pool->pages > 0)
                v.seconds_per_page[static_cast<int>(*f.threads)].push_back(
                    static_cast<double>(*f.measured_ms) / 1000.0 /
                    static_cast<double>(f.pool->pages));
        }
    return v;
}

// The booted count whose median time per page is the least, when the recommended count was
// booted too and is slower than it by more than the tolerance: the boots themselves found a
// better value than the one recommended.
std::optional<int> faster_booted_count(const VerifiedBoots& v, int recommended, double tolerance) {
    const auto at_recommended = v.seconds_per_page.find(recommended);
    if (at_recommended == v.seconds_per_page.end() || v.seconds_per_page.size() < 2)
        return std::nullopt;
    std::optional<int> fastest;
    double fastest_seconds = 0;
    for (const auto& [threads, seconds] : v.seconds_per_page)
        if (const double m = median(seconds); !fastest || m < fastest_seconds) {
            fastest = threads;
            fastest_seconds = m;
        }
    if (*fastest == recommended ||
        median(at_recommended->second) <= fastest_seconds * (1 + tolerance))
        return std::nullopt;
    return fastest;
}

void judge(SkuAnswer& a, const VerifiedBoots& v, const FleetOptions& o) {
    if (a.hosts < o.min_hosts) {
        a.status = SkuStatus::needs_more_hosts;
        a.status_reason = std::to_string(a.hosts) + " host(s) measured; the answer needs " +
                          std::to_string(o.min_hosts) + " before it stands for the SKU.";
        return;
    }
    const int recommended = a.recommendation.hugepage_alloc_threads;
    if (a.verification_ratio && (*a.verification_ratio < kVerificationRatioLow ||
                                 *a.verification_ratio > kVerificationRatioHigh)) {
        a.status = SkuStatus::disagrees_with_verification;
        a.status_reason = "verified boots took " + decimals_text(*a.verification_ratio, 2) +
                          " times the predicted time (median), outside " +
                          decimals_text(kVerificationRatioLow, 2) + " to " +
                          decimals_text(kVerificationRatioHigh, 2) + ".";
        return;
    }
    if (const auto faster = faster_booted_count(v, recommended, o.recommend.tolerance)) {
        a.status = SkuStatus::disagrees_with_verification;
        a.status_reason = "verified boots at hugepage_alloc_threads=" + std::to_string(*faster) +
                          " were faster per page than at the recommended " +
                          std::to_string(recommended) + ".";
        return;
    }
    a.status = SkuStatus::settled;
    a.status_reason =
        std::to_string(a.hosts) + " hosts fitted together" +
        (a.verified_boots > 0 ? "; " + std::to_string(a.verified_boots) + " verified boot(s) agree."
                              : std::string("; no verified boot yet."));
}

}  // namespace

SkuAnswer answer_sku(const std::vector<FleetRun>& runs, const FleetOptions& options,
                     const InputSource& runs_input) {
    const std::vector<HostRuns> hosts = read_host_runs(runs, runs_input);
    SkuAnswer a;
    a.sku = hosts.front().runs.front().sku;
    a.hosts = static_cast<int>(hosts.size());
    for (const auto& h : hosts)
        a.runs += static_cast<int>(h.runs.size());
    a.recommendation = recommend_from_sweep(pooled_sweep(hosts, runs_input), options.recommend);
    if (a.recommendation.decision == Decision::set)
        a.kernel_cmdline = alloc_threads_setting(
            static_cast<std::uint64_t>(a.recommendation.hugepage_alloc_threads));
    const VerifiedBoots v = verified_boots(hosts);
    a.verified_boots = v.boots;
    if (!v.ratios.empty())
        a.verification_ratio = median(v.ratios);
    judge(a, v, options);
    return a;
}

}  // namespace hugetune::model::fleet
