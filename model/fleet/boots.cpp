#include "model/fleet/boots.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "model/statistics.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

// "6.15" of "6.15.2-cloud-amd64": the release family whose boots are compared together.
std::string family_of(const std::string& release) {
    std::size_t at = 0, dots = 0;
    while (at < release.size() && (std::isdigit(static_cast<unsigned char>(release[at])) != 0 ||
                                   (release[at] == '.' && ++dots < 2)))
        ++at;
    return release.substr(0, at);
}

int hvo_key(const std::optional<bool>& hvo) {
    return hvo ? (*hvo ? 1 : 0) : -1;
}

std::string value_text(const BootValue& v) {
    return decimals_text(v.ms_per_1000_pages, 2) + " ms per 1,000 pages at " +
           std::to_string(v.threads) + " (" + count_text(v.hosts, "host") + ", " +
           count_text(v.boots, "boot") + ")";
}

// Each host's median ratio of boot time to the prediction, at every value it booted.
struct HostRatio {
    std::string host;
    double ratio = 0;
};

void calibrate(SkuBoots& out, const std::vector<HostRatio>& ratios) {
    if (ratios.empty())
        return;
    std::vector<double> all;
    std::map<std::string, std::vector<double>> by_host;
    for (const auto& r : ratios) {
        all.push_back(r.ratio);
        by_host[r.host].push_back(r.ratio);
    }
    out.calibration = median(all);
    std::vector<const std::vector<double>*> hosts;
    for (const auto& [host, values] : by_host)
        hosts.push_back(&values);
    std::mt19937_64 draw(1);
    std::uniform_int_distribution<std::size_t> pick(0, hosts.size() - 1);
    std::vector<double> medians;
    for (int i = 0; i < kCalibrationResamples; ++i) {
        std::vector<double> sample;
        for (std::size_t h = 0; h < hosts.size(); ++h) {
            const auto& values = *hosts[pick(draw)];
            sample.insert(sample.end(), values.begin(), values.end());
        }
        medians.push_back(median(sample));
    }
    out.calibration_low = quantile(medians, 0.05);
    out.calibration_high = quantile(medians, 0.95);
}

void decide(SkuBoots& out, int recommended, double tolerance) {
    std::vector<const BootValue*> enough;
    for (const auto& v : out.values)
        if (v.hosts >= kMinBootHosts)
            enough.push_back(&v);
    const std::string minimum = std::to_string(kMinBootHosts) + " hosts a value";
    if (enough.size() < 2) {
        out.reason = "Boots at " + count_text(enough.size(), "value") + " from enough hosts (" +
                     minimum + "); two are needed before the boots compare values.";
        return;
    }
    const auto at_recommended = std::find_if(
        enough.begin(), enough.end(), [&](const auto* v) { return v->threads == recommended; });
    if (at_recommended == enough.end()) {
        out.reason = "The recommended hugepage_alloc_threads=" + std::to_string(recommended) +
                     " has boots from fewer than " + minimum +
                     "; the boots cannot compare it with the values booted.";
        return;
    }
    const BootValue* fastest =
        *std::min_element(enough.begin(), enough.end(), [](auto* a, auto* b) {
            return std::tie(a->ms_per_1000_pages, a->threads) <
                   std::tie(b->ms_per_1000_pages, b->threads);
        });
    const BootValue& rec = **at_recommended;
    if (fastest == &rec || rec.ms_per_1000_pages <= fastest->ms_per_1000_pages * (1 + tolerance)) {
        out.reason = "The boots agree with the recommended value: " + value_text(rec) +
                     ", within " + percent_text(tolerance) + " of the fastest value booted (" +
                     value_text(*fastest) + ").";
        return;
    }
    out.decided = fastest->threads;
    out.reason = "The boots settle on hugepage_alloc_threads=" + std::to_string(fastest->threads) +
                 ": " + value_text(*fastest) + " against " + value_text(rec) +
                 ", the recommended value, faster by more than " + percent_text(tolerance) + ".";
}

}  // namespace

std::optional<SkuBoots> judge_boots(const std::vector<SkuBoot>& boots, const Recommendation& r,
                                    int recommended, double tolerance) {
    if (boots.empty())
        return std::nullopt;
    std::map<std::pair<std::string, int>, int> groups;
    for (const auto& b : boots)
        ++groups[{family_of(b.kernel_release), hvo_key(b.hvo)}];
    const auto group = std::max_element(groups.begin(), groups.end(), [](auto& a, auto& b) {
                           return a.second < b.second;
                       })->first;
    SkuBoots out;
    out.kernel_family = group.first;
    if (group.second >= 0)
        out.hvo = group.second == 1;
    // value -> host -> ms per 1,000 pages of each boot; value -> each boot's pool
    std::map<int, std::map<std::string, std::vector<double>>> by_value;
    std::map<int, std::vector<double>> pools;
    std::set<std::string> hosts;
    for (const auto& b : boots) {
        if (std::pair(family_of(b.kernel_release), hvo_key(b.hvo)) != group || b.threads < 1 ||
            b.pool_pages == 0) {
            ++out.other_boots;
            continue;
        }
        by_value[b.threads][b.host].push_back(b.milliseconds * 1000.0 /
                                              static_cast<double>(b.pool_pages));
        pools[b.threads].push_back(static_cast<double>(b.pool_pages));
        hosts.insert(b.host);
        ++out.boots;
    }
    out.hosts = static_cast<int>(hosts.size());
    const bool predicts = r.decided_by_rule.empty();
    std::vector<HostRatio> ratios;
    for (const auto& [threads, host_boots] : by_value) {
        BootValue v;
        v.threads = threads;
        v.hosts = static_cast<int>(host_boots.size());
        std::vector<double> host_medians;
        for (const auto& [host, values] : host_boots) {
            v.boots += static_cast<int>(values.size());
            host_medians.push_back(median(values));
        }
        v.ms_per_1000_pages = median(host_medians);
        v.low = quantile(host_medians, 0.1);
        v.high = quantile(host_medians, 0.9);
        if (predicts) {
            const double pages = median(pools[threads]);
            const double predicted = predict_boot_seconds(r, threads, pages) * 1e6 / pages;
            if (predicted > 0) {
                v.predicted_ms_per_1000_pages = predicted;
                for (const auto& [host, values] : host_boots)
                    ratios.push_back({host, median(values) / predicted});
            }
        }
        out.values.push_back(v);
    }
    calibrate(out, ratios);
    decide(out, recommended, tolerance);
    return out;
}

}  // namespace hugetune::model::fleet
