// Each host against the other hosts of its SKU (docs/fleet.md "Outliers"): its curve, its
// verified boots' ratio, its kernel and firmware.
#include <algorithm>
#include <cmath>
#include <map>

#include "model/fit/resampling.hpp"
#include "model/fleet/fleet.hpp"
#include "model/fleet/host_runs.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

// Where a host's curve stands among its SKU's hosts, over the thread counts at least
// kMinHostsToCompare hosts measured: its robust deviation of largest size, and the largest factor
// its value lies from the hosts' median at one of those counts.
struct CurveStanding {
    std::optional<double> deviation;
    std::optional<double> factor;
};

std::vector<CurveStanding> curve_standings(const std::vector<HostRuns>& hosts) {
    // Per thread count, each host that measured it (in host order) with its value there: one
    // block per count, not a map per host, for a SKU of 100,000 hosts.
    std::map<double, std::vector<std::pair<std::size_t, double>>> hosts_at;
    for (std::size_t h = 0; h < hosts.size(); ++h)
        for (const auto& [threads, log_seconds] : host_curve(hosts[h]))
            hosts_at[threads].emplace_back(h, log_seconds);
    std::vector<CurveStanding> out(hosts.size());
    for (const auto& [threads, at] : hosts_at) {
        if (at.size() < static_cast<std::size_t>(kMinHostsToCompare))
            continue;
        std::vector<double> values;
        values.reserve(at.size());
        for (const auto& [h, value] : at)
            values.push_back(value);
        const auto z = robust_deviations(values, kMinLogSpread);
        const double centre = median(values);
        for (std::size_t i = 0; i < at.size(); ++i) {
            auto& s = out[at[i].first];
            if (!s.deviation || std::abs(z[i]) > std::abs(*s.deviation))
                s.deviation = z[i];
            if (const double f = std::exp(std::abs(values[i] - centre)); !s.factor || f > *s.factor)
                s.factor = f;
        }
    }
    return out;
}

// The median measured/predicted ratio of the host's verified boots.
std::optional<double> host_ratio(const HostRuns& host) {
    std::vector<double> ratios;
    for (const Verification& v : verified_boots_of(host.runs))
        if (v.ratio)
            ratios.push_back(*v.ratio);
    return ratios.empty() ? std::nullopt : std::optional(median(ratios));
}

std::vector<std::optional<double>> ratio_deviations(const std::vector<HostCheck>& checks) {
    std::vector<double> logs;
    std::vector<std::size_t> with_ratio;
    for (std::size_t h = 0; h < checks.size(); ++h)
        if (checks[h].verification_ratio) {
            logs.push_back(std::log(*checks[h].verification_ratio));
            with_ratio.push_back(h);
        }
    std::vector<std::optional<double>> out(checks.size());
    if (logs.size() < static_cast<std::size_t>(kMinHostsToCompare))
        return out;
    const auto z = robust_deviations(logs, kMinLogSpread);
    for (std::size_t i = 0; i < with_ratio.size(); ++i)
        out[with_ratio[i]] = z[i];
    return out;
}

void flag(HostCheck& c, std::string reason) {
    c.outlier = true;
    c.reasons.push_back(std::move(reason));
}

void judge_curve(HostCheck& c, const CurveStanding& standing) {
    const auto deviation = standing.deviation;
    c.curve_deviation = deviation;
    c.curve_factor = standing.factor;
    if (deviation && std::abs(*deviation) > kOutlierDeviations)
        flag(c, std::string("its curve is ") + (*deviation > 0 ? "slower" : "faster") +
                    " than the SKU's by " + decimals_text(std::abs(*deviation), 1) +
                    " robust deviations at one thread count (above " +
                    decimals_text(kOutlierDeviations, 1) + ")");
}

void judge_ratio(HostCheck& c, std::optional<double> deviation) {
    if (deviation && std::abs(*deviation) > kOutlierDeviations)
        flag(c, "its verified boots' measured/predicted ratio " +
                    decimals_text(*c.verification_ratio, 2) + " lies " +
                    decimals_text(std::abs(*deviation), 1) +
                    " robust deviations from the SKU's (above " +
                    decimals_text(kOutlierDeviations, 1) + ")");
}

void judge_same(HostCheck& c, const std::optional<std::string>& own,
                const std::optional<std::string>& common, const char* what) {
    if (own && common && *own != *common)
        flag(c, std::string("its ") + what + " " + *own + " differs from the SKU's most common " +
                    *common);
}

}  // namespace

std::map<double, double> host_curve(const HostRuns& host) {
    // (count, log seconds per page) in one vector, grouped by count in input order: a SKU of
    // 100,000 hosts takes every host's curve, where a map of vectors per host was most of it.
    std::vector<std::pair<double, double>> logs;
    for (const auto& run : host.runs)
        if (const auto* alloc = run.sweep.phase(kPhaseAlloc))
            for (const auto& p : alloc->points)
                logs.emplace_back(p.threads_per_node, std::log(p.seconds / alloc->pages_per_node));
    std::stable_sort(logs.begin(), logs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::map<double, double> curve;
    std::vector<double> values;
    for (std::size_t i = 0; i < logs.size();) {
        values.clear();
        std::size_t j = i;
        for (; j < logs.size() && logs[j].first == logs[i].first; ++j)
            values.push_back(logs[j].second);
        curve.emplace_hint(curve.end(), logs[i].first, median(values));
        i = j;
    }
    return curve;
}

std::vector<double> robust_deviations(const std::vector<double>& values, double floor) {
    std::vector<double> z(values.size(), 0.0);
    if (values.size() < static_cast<std::size_t>(kMinHostsToCompare))
        return z;
    const double centre = median(values);
    std::vector<double> distances;
    for (const double v : values)
        distances.push_back(std::abs(v - centre));
    const double spread = std::max(kMadToSigma * median(distances), floor);
    for (std::size_t i = 0; i < values.size(); ++i)
        z[i] = (values[i] - centre) / spread;
    return z;
}

std::string new_hardware_text(const NewHardware& change) {
    const std::string source(to_string(change.source));
    const bool same = change.source == change.first_source;
    return "hardware identity changed at the run of " + change.since + " (" +
           (same ? "another " + source + " than " : source + ", where ") + change.host +
           "'s first runs" +
           (same ? std::string() : " had " + std::string(to_string(change.first_source))) +
           "): counted as a new host, apart from " + change.host;
}

std::vector<HostCheck> check_hosts(const std::vector<FleetRun>& runs,
                                   const FleetOptions& /*options*/, const InputSource& runs_input) {
    return check_host_runs(read_host_runs(runs, runs_input));
}

std::vector<HostCheck> check_host_runs(const std::vector<HostRuns>& hosts) {
    std::vector<HostCheck> checks;
    std::vector<std::optional<std::string>> kernels, firmwares;
    for (const auto& host : hosts) {
        HostCheck c;
        c.host = host.host;
        c.same_machine = host.same_machine;
        c.new_hardware = host.new_hardware;
        if (!host.short_name_of.empty())
            flag(c, "its name is the short name of " + join(host.short_name_of) +
                        ": which machine it is cannot be told, so it is left out of the fit; "
                        "give the host its full name (hostnamectl set-hostname) and write its "
                        "report again");
        c.runs = static_cast<int>(host.runs.size());
        c.verification_ratio = host_ratio(host);
        c.kernel_release = newest(host).kernel_release;
        c.firmware = newest(host).firmware;
        kernels.push_back(c.kernel_release);
        firmwares.push_back(c.firmware);
        checks.push_back(std::move(c));
    }
    const auto curves = curve_standings(hosts);
    const auto ratios = ratio_deviations(checks);
    const auto common_kernel = most_common(kernels);
    const auto common_firmware = most_common(firmwares);
    for (std::size_t h = 0; h < checks.size(); ++h) {
        judge_curve(checks[h], curves[h]);
        judge_ratio(checks[h], ratios[h]);
        judge_same(checks[h], checks[h].kernel_release, common_kernel, "kernel");
        judge_same(checks[h], checks[h].firmware, common_firmware, "firmware");
    }
    return checks;
}

}  // namespace hugetune::model::fleet
