#include "model/fleet/boots.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "model/boot_plausibility.hpp"
#include "model/fit/resampling.hpp"
#include "model/statistics.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

int hvo_key(const std::optional<bool>& hvo) {
    return hvo ? (*hvo ? 1 : 0) : -1;
}

std::string value_text(const BootValue& v) {
    return decimals_text(v.ms_per_1000_pages, 2) + " ms per 1,000 pages at " +
           std::to_string(v.threads) + " (" + count_text(v.hosts, "host") + ", " +
           count_text(v.boots, "boot") + ")";
}

// Each host's ratios of boot time to the prediction, one per value it booted, hosts in name
// order: the calibration factor is their median, its interval a bootstrap over hosts.
struct HostRatios {
    std::vector<double> ratios;       // host by host
    std::vector<std::size_t> starts;  // where each host's begin, and the end
};

// The median of a resample, which draws host h drawn[h] times (each time with all its ratios):
// walked over every ratio in order, each counted as often as its host was drawn. The value
// median() gives for the resample itself (the same two middle values, the same arithmetic),
// without copying and sorting 100,000 ratios 200 times.
double resample_median(const std::vector<std::pair<double, std::uint32_t>>& sorted,
                       const std::vector<std::uint32_t>& drawn, std::size_t size) {
    const std::size_t middle = size / 2;  // the upper middle's rank; the lower's is one less
    const bool even = size % 2 == 0;
    std::size_t seen = 0;
    std::optional<double> lower;
    for (const auto& [ratio, host] : sorted) {
        if (drawn[host] == 0)
            continue;
        seen += drawn[host];
        if (even && !lower && seen >= middle)
            lower = ratio;
        if (seen > middle)
            return even ? (*lower + ratio) / 2 : ratio;
    }
    return 0;  // an empty resample: cannot be, every host has a ratio
}

void calibrate(SkuBoots& out, const HostRatios& by_host) {
    if (by_host.ratios.empty())
        return;
    out.calibration = median(by_host.ratios);
    const std::size_t hosts = by_host.starts.size() - 1;
    std::vector<std::pair<double, std::uint32_t>> sorted;
    std::vector<std::uint32_t> ratios_of(hosts);
    for (std::size_t h = 0; h < hosts; ++h) {
        ratios_of[h] = static_cast<std::uint32_t>(by_host.starts[h + 1] - by_host.starts[h]);
        for (std::size_t i = by_host.starts[h]; i < by_host.starts[h + 1]; ++i)
            sorted.emplace_back(by_host.ratios[i], static_cast<std::uint32_t>(h));
    }
    std::sort(sorted.begin(), sorted.end());
    Resampler draw(1);
    std::vector<double> medians;
    std::vector<std::uint32_t> drawn(hosts);
    for (int i = 0; i < kCalibrationResamples; ++i) {
        std::fill(drawn.begin(), drawn.end(), 0);
        std::size_t size = 0;
        for (std::size_t h = 0; h < hosts; ++h) {
            const std::size_t at = draw.index(hosts);
            ++drawn[at];
            size += ratios_of[at];
        }
        medians.push_back(resample_median(sorted, drawn, size));
    }
    out.calibration_low = quantile(medians, 0.05);
    out.calibration_high = quantile(medians, 0.95);
}

// The sweeps' interval at `threads` (the 5%..95% bootstrap where the fit gave one, else the
// curve's point), for the boots' pool.
struct SweepsAt {
    double low = 0, high = 0;
};
std::optional<SweepsAt> sweeps_at(const Recommendation& r, int threads) {
    for (const auto& p : r.predictions)
        if (p.total_threads == threads)
            return SweepsAt{p.seconds_low.value_or(p.seconds), p.seconds_high.value_or(p.seconds)};
    if (!r.decided_by_rule.empty() || r.pool_pages <= 0)
        return std::nullopt;
    const double s = predict_boot_seconds(r, threads, r.pool_pages);
    return SweepsAt{s, s};
}

// Why the sweeps contradict the boots' `faster` value against `recommended`, or nothing: they
// predict it slower even at the fast end of its interval than the recommended value at the slow
// end of its own, or they predict nothing to check the boots against.
std::optional<std::string> sweeps_contradict(const Recommendation& r, int faster, int recommended) {
    const auto f = sweeps_at(r, faster), rec = sweeps_at(r, recommended);
    if (!f || !rec)
        return "the sweeps predict nothing at " + std::to_string(faster) +
               " to check the boots against";
    if (f->low <= rec->high)
        return std::nullopt;
    return "the sweeps predict " + std::to_string(faster) + " slower (at least " +
           seconds_text(f->low) + " against at most " + seconds_text(rec->high) + " at " +
           std::to_string(recommended) + ", their 5%..95% intervals)";
}

// The hosts that booted both values, and the median over them of each one's time at `faster`
// over its time at `recommended`: the comparison a canary plan makes on the same machines.
struct Paired {
    int hosts = 0;
    double ratio = 1;
};
Paired paired_hosts(const std::vector<const HostBootMedian*>& by_host, int faster,
                    int recommended) {
    std::map<std::string, std::pair<double, double>> both;  // host -> (faster, recommended)
    for (const auto* m : by_host)
        if (m->threads == faster)
            both[m->host].first = m->ms_per_1000_pages;
        else if (m->threads == recommended)
            both[m->host].second = m->ms_per_1000_pages;
    std::vector<double> ratios;
    for (const auto& [host, times] : both)
        if (times.first > 0 && times.second > 0)
            ratios.push_back(times.first / times.second);
    Paired p;
    p.hosts = static_cast<int>(ratios.size());
    if (!ratios.empty())
        p.ratio = quantile(ratios, 0.5);
    return p;
}

void decide(SkuBoots& out, const std::vector<const HostBootMedian*>& by_host,
            const Recommendation& r, int recommended, double tolerance) {
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
    const std::string found = value_text(*fastest) + " against " + value_text(rec) +
                              ", the recommended value, faster by more than " +
                              percent_text(tolerance);
    const Paired paired = paired_hosts(by_host, fastest->threads, recommended);
    out.paired_hosts = paired.hosts;
    const auto contradiction = sweeps_contradict(r, fastest->threads, recommended);
    if (!contradiction) {
        out.decided = fastest->threads;
        out.reason =
            "The boots settle on hugepage_alloc_threads=" + std::to_string(fastest->threads) +
            ": " + found + ".";
        return;
    }
    // Boots that overturn the sweeps are believed only from the same machines booting both.
    const std::string pairs = count_text(paired.hosts, "host") + " booted both values";
    if (paired.hosts >= kMinBootHosts && paired.ratio * (1 + tolerance) < 1) {
        out.decided = fastest->threads;
        out.reason =
            "The boots settle on hugepage_alloc_threads=" + std::to_string(fastest->threads) +
            ": " + found + "; " + *contradiction + ", but " + pairs + " and took " +
            decimals_text(paired.ratio, 2) + " times as long at " +
            std::to_string(fastest->threads) + " (median).";
        return;
    }
    out.disputed = fastest->threads;
    out.reason = "The boots find hugepage_alloc_threads=" + std::to_string(fastest->threads) +
                 " faster (" + found + "), but " + *contradiction + "; " + pairs + ", and " +
                 std::to_string(kMinBootHosts) +
                 " that are faster there are needed to settle it (a canary plan of " +
                 std::to_string(fastest->threads) + " boots both on its hosts).";
}

}  // namespace

std::string kernel_family_of(const std::string& kernel_release) {
    std::size_t at = 0, dots = 0;
    while (at < kernel_release.size() &&
           (std::isdigit(static_cast<unsigned char>(kernel_release[at])) != 0 ||
            (kernel_release[at] == '.' && ++dots < 2)))
        ++at;
    return kernel_release.substr(0, at);
}

void BootFamilyCounter::add(const std::string& host, const std::string& kernel_release,
                            const std::optional<bool>& hvo) {
    if (host != host_) {
        end_host();
        host_ = host;
    }
    std::pair<std::string, int> family{kernel_family_of(kernel_release), hvo_key(hvo)};
    if (std::find(seen_.begin(), seen_.end(), family) == seen_.end())
        seen_.push_back(std::move(family));
}

void BootFamilyCounter::end_host() {
    for (auto& family : seen_) {
        const auto at = std::find_if(hosts_.begin(), hosts_.end(),
                                     [&](const auto& h) { return h.first == family; });
        if (at == hosts_.end())
            hosts_.emplace_back(std::move(family), 1);
        else
            ++at->second;
    }
    seen_.clear();
}

std::vector<BootFamily> BootFamilyCounter::families() {
    end_host();
    std::sort(hosts_.begin(), hosts_.end());
    std::vector<BootFamily> out;
    for (const auto& [key, hosts] : hosts_)
        out.push_back({key.first,
                       key.second < 0 ? std::nullopt : std::optional<bool>(key.second == 1),
                       hosts});
    hosts_.clear();
    return out;
}

std::optional<BootGroupChoice> choose_boot_group(const std::vector<BootFamily>& families,
                                                 const std::vector<BootGroup>& groups) {
    std::map<std::pair<std::string, int>, int> by_family;
    for (const auto& f : families)
        by_family[{f.kernel_family, hvo_key(f.hvo)}] += f.hosts;
    if (by_family.empty())
        return std::nullopt;
    const auto most = std::max_element(by_family.begin(), by_family.end(), [](auto& a, auto& b) {
                          return a.second < b.second;
                      })->first;
    BootGroupChoice c;
    c.kernel_family = most.first;
    if (most.second >= 0)
        c.hvo = most.second == 1;
    for (const auto& g : groups)
        if (hvo_key(g.hvo) == most.second && kernel_family_of(g.kernel_release) == most.first &&
            std::find(c.kernel_releases.begin(), c.kernel_releases.end(), g.kernel_release) ==
                c.kernel_releases.end())
            c.kernel_releases.push_back(g.kernel_release);
    std::sort(c.kernel_releases.begin(), c.kernel_releases.end());
    return c;
}

namespace {

bool has_line(const SkuBoot& boot) {
    return !boot.host.empty() && boot.threads >= 1 && boot.pool_pages > 0;
}

}  // namespace

bool counts_as_boot(const SkuBoot& boot) {
    return has_line(boot) && !boot.in_vm && !boot.ambiguous_host;
}

namespace {

// Per value, the hosts and boots of those `boots` with the line that `set_aside` selects.
template <typename Select>
std::vector<SetAsideBoots> set_aside_boots(const std::vector<SkuBoot>& boots, Select set_aside) {
    std::map<int, std::pair<std::set<std::string>, int>> by_value;  // value -> hosts, boots
    for (const auto& b : boots)
        if (has_line(b) && set_aside(b)) {
            by_value[b.threads].first.insert(b.host);
            ++by_value[b.threads].second;
        }
    std::vector<SetAsideBoots> out;
    for (const auto& [threads, of] : by_value)
        out.push_back({threads, static_cast<int>(of.first.size()), of.second});
    return out;
}

}  // namespace

BootTally tally_boots(const std::vector<SkuBoot>& boots) {
    BootTally t;
    std::map<std::pair<std::string, int>, int> groups;
    for (const auto& b : boots)
        if (counts_as_boot(b))
            ++groups[{b.kernel_release, hvo_key(b.hvo)}];
    for (const auto& [key, count] : groups)
        t.groups.push_back({key.first,
                            key.second < 0 ? std::nullopt : std::optional<bool>(key.second == 1),
                            count});
    // The hosts of each family, host by host as the database gives them.
    std::vector<const SkuBoot*> by_host;
    for (const auto& b : boots)
        if (counts_as_boot(b))
            by_host.push_back(&b);
    std::stable_sort(by_host.begin(), by_host.end(),
                     [](auto* a, auto* b) { return a->host < b->host; });
    BootFamilyCounter families;
    for (const auto* b : by_host)
        families.add(b->host, b->kernel_release, b->hvo);
    t.families = families.families();
    t.virtual_boots =
        set_aside_boots(boots, [](const SkuBoot& b) { return b.in_vm && !b.ambiguous_host; });
    t.ambiguous_boots = set_aside_boots(boots, [](const SkuBoot& b) { return b.ambiguous_host; });
    const auto compared = choose_boot_group(t.families, t.groups);
    if (!compared)
        return t;
    t.compared = *compared;
    // value -> host -> ms per 1,000 pages of each boot; value -> each boot's pool
    std::map<int, std::map<std::string, std::vector<double>>> by_value;
    std::map<int, std::vector<double>> pools;
    for (const auto& b : boots) {
        if (!counts_as_boot(b) || hvo_key(b.hvo) != hvo_key(t.compared.hvo) ||
            std::find(t.compared.kernel_releases.begin(), t.compared.kernel_releases.end(),
                      b.kernel_release) == t.compared.kernel_releases.end())
            continue;
        by_value[b.threads][b.host].push_back(b.milliseconds * 1000.0 /
                                              static_cast<double>(b.pool_pages));
        pools[b.threads].push_back(static_cast<double>(b.pool_pages));
    }
    for (const auto& [threads, host_boots] : by_value)
        for (const auto& [host, values] : host_boots)
            t.host_medians.push_back(
                {host, threads, static_cast<int>(values.size()), quantile(values, 0.5)});
    for (const auto& [threads, values] : pools)
        t.pool_pages.emplace_back(threads, quantile(values, 0.5));
    return t;
}

namespace {

// The values the fleet asked for: those the sweeps measured, the recommended one, the kernel's
// default for the SKU's CPUs, and the arms of its canary plans.
std::vector<int> asked_values(const BootTally& tally, const Recommendation& r, int recommended,
                              const std::vector<int>& swept) {
    std::vector<int> out = tally.plan_values;
    out.push_back(recommended);
    out.push_back(r.default_threads);
    out.insert(out.end(), swept.begin(), swept.end());
    for (const auto& m : r.measured)
        out.push_back(m.total_threads);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Why one host's median at one value counts for nothing, or nothing when it counts.
std::optional<BootRefusal> refusal_of(const HostBootMedian& m, const Recommendation& r,
                                      const std::vector<int>& asked,
                                      const std::map<int, double>& predicted) {
    if (m.threads > std::max(r.cpu_cap, 1))
        return BootRefusal::above_cpus;
    if (!std::binary_search(asked.begin(), asked.end(), m.threads))
        return BootRefusal::not_asked;
    if (const auto p = predicted.find(m.threads);
        p != predicted.end() && implausible_ratio(m.ms_per_1000_pages / p->second))
        return BootRefusal::implausible;
    return std::nullopt;
}

std::string refusal_text(const RefusedBoots& f, const Recommendation& r) {
    const std::string who =
        " (" + count_text(f.hosts, "host") + ", " + count_text(f.boots, "boot") + ")";
    switch (f.why) {
        case BootRefusal::above_cpus:
            return "Boots at " + std::to_string(f.threads) + who +
                   " count for nothing: the SKU's " + count_text(r.cpu_cap, "CPU") +
                   " cannot run that many threads.";
        case BootRefusal::not_asked:
            return "Boots at " + std::to_string(f.threads) + who +
                   " count for nothing: neither the sweeps measured that value nor a canary "
                   "plan tried it.";
        case BootRefusal::virtual_machine:
            return "Boots at " + std::to_string(f.threads) + who +
                   " count for nothing: they were recorded in virtual machines, whose "
                   "hypervisor backs guest memory its own way, and the answer is fitted from "
                   "bare-metal runs.";
        case BootRefusal::ambiguous_host:
            return "Boots at " + std::to_string(f.threads) + who +
                   " count for nothing: each was recorded under a short name that two or more "
                   "of the reports' host names begin with, so which machine booted cannot be "
                   "told; record the boots under the host's full name.";
        case BootRefusal::implausible:
            break;
    }
    return "Boots at " + std::to_string(f.threads) + who +
           " count for nothing: each host's time lies outside " +
           significant_text(kMinPlausibleRatio, 3) + " to " +
           significant_text(kMaxPlausibleRatio, 3) +
           " times the sweeps' prediction, which no boot of the SKU can give.";
}

}  // namespace

std::optional<SkuBoots> judge_boots(const BootTally& tally, const Recommendation& r,
                                    int recommended, double tolerance,
                                    const std::vector<int>& swept) {
    if (tally.groups.empty())
        return std::nullopt;
    SkuBoots out;
    out.kernel_family = tally.compared.kernel_family;
    out.hvo = tally.compared.hvo;
    int all = 0;
    for (const auto& g : tally.groups)
        all += g.boots;
    const bool predicts = r.decided_by_rule.empty();
    std::map<int, double> predicted;  // ms per 1,000 pages, per value
    for (const auto& [threads, pages] : tally.pool_pages) {
        if (!predicts || pages <= 0)
            continue;
        const double ms = predict_boot_seconds(r, threads, pages) * 1e6 / pages;
        if (ms > 0)
            predicted[threads] = ms;
    }
    // Each host's medians that count, in host name order (the order the database returns them
    // in may follow another collation): the bootstrap's draws name hosts by their place.
    const std::vector<int> asked = asked_values(tally, r, recommended, swept);
    std::vector<const HostBootMedian*> by_host;
    std::map<std::pair<int, BootRefusal>, RefusedBoots> refused;
    int compared = 0;
    for (const auto& m : tally.host_medians) {
        compared += m.boots;
        if (const auto why = refusal_of(m, r, asked, predicted)) {
            RefusedBoots& f = refused[{m.threads, *why}];
            f.threads = m.threads;
            f.why = *why;
            ++f.hosts;
            f.boots += m.boots;
            continue;
        }
        by_host.push_back(&m);
    }
    for (const auto& v : tally.virtual_boots)
        refused[{v.threads, BootRefusal::virtual_machine}] = {
            v.threads, BootRefusal::virtual_machine, v.hosts, v.boots, {}};
    for (const auto& v : tally.ambiguous_boots)
        refused[{v.threads, BootRefusal::ambiguous_host}] = {
            v.threads, BootRefusal::ambiguous_host, v.hosts, v.boots, {}};
    for (auto& [key, f] : refused) {
        f.reason = refusal_text(f, r);
        out.refused_boots += f.boots;
        out.refused.push_back(std::move(f));
    }
    std::stable_sort(by_host.begin(), by_host.end(),
                     [](auto* a, auto* b) { return a->host < b->host; });
    for (std::size_t i = 0; i < by_host.size(); ++i)
        if (i == 0 || by_host[i]->host != by_host[i - 1]->host)
            ++out.hosts;
    std::map<int, std::vector<double>> medians_of;
    std::map<int, BootValue> values;
    for (const auto* m : by_host) {
        BootValue& v = values[m->threads];
        v.threads = m->threads;
        ++v.hosts;
        v.boots += m->boots;
        out.boots += m->boots;
        medians_of[m->threads].push_back(m->ms_per_1000_pages);
    }
    out.other_boots = all - compared;
    for (auto& [threads, v] : values) {
        const auto& medians = medians_of[threads];
        v.ms_per_1000_pages = quantile(medians, 0.5);
        v.low = quantile(medians, 0.1);
        v.high = quantile(medians, 0.9);
        if (const auto p = predicted.find(threads); p != predicted.end())
            v.predicted_ms_per_1000_pages = p->second;
        out.values.push_back(v);
    }
    HostRatios ratios;
    const std::string* host = nullptr;
    for (const auto* m : by_host) {
        const auto p = predicted.find(m->threads);
        if (p == predicted.end())
            continue;
        if (host == nullptr || *host != m->host) {
            ratios.starts.push_back(ratios.ratios.size());
            host = &m->host;
        }
        ratios.ratios.push_back(m->ms_per_1000_pages / p->second);
    }
    if (!ratios.ratios.empty())
        ratios.starts.push_back(ratios.ratios.size());
    calibrate(out, ratios);
    decide(out, by_host, r, recommended, tolerance);
    return out;
}

std::optional<SkuBoots> judge_boots(const std::vector<SkuBoot>& boots, const Recommendation& r,
                                    int recommended, double tolerance) {
    return judge_boots(tally_boots(boots), r, recommended, tolerance);
}

}  // namespace hugetune::model::fleet
