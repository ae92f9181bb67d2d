// One SKU's answer: every host's sweeps fitted together, each host with the same say, outliers
// left out, the uncertainty from a bootstrap over hosts and their repetitions, and judged by
// every condition a roll-out needs (docs/fleet.md "How a SKU's answer is made" and "Status").
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <span>

#include "model/alloc_threads.hpp"
#include "model/fit/resampling.hpp"
#include "model/fleet/fleet.hpp"
#include "model/fleet/host_runs.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

struct VerifiedBoots {
    int boots = 0;
    int hosts = 0;  // with at least one verified boot
    // Each host's median measured/predicted ratio: a host has one say, however often it booted.
    std::vector<double> ratios;
    // Measured seconds per page of the booted pool, per total thread count booted.
    std::map<int, std::vector<double>> seconds_per_page;
};

VerifiedBoots verified_boots(const std::vector<HostRuns>& hosts) {
    VerifiedBoots v;
    for (const auto& host : hosts) {
        std::vector<double> ratios;
        const auto boots = verified_boots_of(host.runs);
        for (const Verification& f : boots) {
            ++v.boots;
            if (f.ratio)
                ratios.push_back(*f.ratio);
            if (f.threads && f.measured_ms && f.pool && f.pool->pages > 0)
                v.seconds_per_page[static_cast<int>(*f.threads)].push_back(
                    static_cast<double>(*f.measured_ms) / 1000.0 /
                    static_cast<double>(f.pool->pages));
        }
        if (!boots.empty())
            ++v.hosts;
        if (!ratios.empty())
            v.ratios.push_back(median(ratios));
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

// At most kNamedHosts host names, then how many more: a reason stays one readable sentence on
// a SKU of thousands of hosts.
constexpr std::size_t kNamedHosts = 5;
std::string host_list(const std::vector<std::string>& hosts) {
    if (hosts.size() <= kNamedHosts)
        return join(hosts);
    const std::vector<std::string> first(hosts.begin(),
                                         hosts.begin() + static_cast<std::ptrdiff_t>(kNamedHosts));
    return join(first) + " and " + std::to_string(hosts.size() - kNamedHosts) + " more";
}

bool accepted(const FleetOptions& o, const std::string& code) {
    return std::find(o.accepted_warnings.begin(), o.accepted_warnings.end(), code) !=
           o.accepted_warnings.end();
}

// The fitted hosts and the ones left out: check_hosts' outliers, unless the options keep them.
// A SKU whose every host stands out (which the median makes impossible for curves) keeps all.
// `camp`: the hosts whose curves stand out, slower or faster, each also beyond
// kHostAgreementFactor of the hosts' median at some thread count, when they are more than
// kMaxOutliers and more than kMaxOutlierShare of the hosts: more than hosts standing alone by
// chance, whichever way each stands (two slower and two faster are as much a split SKU as four
// slower). A host left out within the factor would not unsettle the answer kept in
// (disagreeing_hosts), so it does not left out either: clean SKUs' hosts stand out by chance
// only a little (docs/fleet.md "Outliers", the false camp rate).
void split_outliers(std::vector<HostRuns>&& hosts, const FleetOptions& o,
                    std::vector<HostRuns>& fitted, std::vector<ExcludedHost>& excluded,
                    std::vector<std::string>& camp) {
    const auto checks = check_host_runs(hosts);
    const std::size_t all_hosts = hosts.size();
    std::vector<std::string> standing_out;
    for (std::size_t h = 0; h < hosts.size(); ++h) {
        const HostCheck& c = checks[h];
        if (c.outlier && c.curve_deviation && std::abs(*c.curve_deviation) > kOutlierDeviations &&
            c.curve_factor && *c.curve_factor > kHostAgreementFactor)
            standing_out.push_back(c.host);
        if (c.outlier && !o.include_outliers)
            excluded.push_back({c.host, c.reasons});
        else
            fitted.push_back(std::move(hosts[h]));
    }
    if (fitted.empty()) {  // every host excluded, so none was moved
        fitted = std::move(hosts);
        excluded.clear();
    }
    const double most = std::max(static_cast<double>(kMaxOutliers),
                                 kMaxOutlierShare * static_cast<double>(all_hosts));
    if (static_cast<double>(standing_out.size()) > most)
        camp = std::move(standing_out);
}

// Each host's runs that `apply --report` would accept (no warning of kUnfitCodes but those the
// options accept): only they enter the fit, so refused runs, however many, move nothing. A host
// whose every run would be refused keeps its newest, whose warnings then keep the answer
// unsettled (host_warnings). `refused`: how many runs were left out.
// The runs are left out in place: a SKU's runs are held once.
void keep_acceptable_runs(std::vector<HostRuns>& hosts, const FleetOptions& o, int& refused) {
    for (auto& h : hosts) {
        const auto acceptable = [&](const RunFacts& run) {
            return std::none_of(
                run.warning_codes.begin(), run.warning_codes.end(),
                [&](const std::string& c) { return is_unfit_code(c) && !accepted(o, c); });
        };
        if (std::none_of(h.runs.begin(), h.runs.end(), acceptable)) {  // none: the newest
            refused += static_cast<int>(h.runs.size()) - 1;
            h.runs.erase(h.runs.begin(), h.runs.end() - 1);
            continue;
        }
        const auto kept = std::stable_partition(h.runs.begin(), h.runs.end(), acceptable);
        refused += static_cast<int>(h.runs.end() - kept);
        h.runs.erase(kept, h.runs.end());
    }
}

// The pool the answer is for: the option's, else the one the most fitted hosts' newest reports
// were made for (the larger on a tie), else nothing (the fit's own rule then).
FleetPool choose_pool(const std::vector<HostRuns>& fitted, const FleetOptions& o,
                      std::uint64_t page_size_kb) {
    FleetPool pool;
    pool.page_size_kb = page_size_kb;
    std::map<std::uint64_t, int> counts;
    std::map<std::uint64_t, std::string> source_of;  // the first such report's own source
    int with_pool = 0;
    for (const auto& h : fitted)
        if (const auto& p = newest(h).boot_pool; p && p->pages > 0) {
            ++counts[p->pages];
            source_of.emplace(p->pages, p->source);
            ++with_pool;
        }
    if (o.boot_pages) {
        pool.pages = *o.boot_pages;
        pool.source = o.words("boot_pages");
    } else if (!counts.empty()) {
        const auto most =
            std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
                return a.second != b.second ? a.second < b.second : a.first < b.first;
            });
        pool.pages = most->first;
        pool.source = "hosts' reports" +
                      (source_of[most->first].empty() ? "" : " (" + source_of[most->first] + ")");
    }
    const auto same = counts.find(pool.pages);
    pool.hosts = same == counts.end() ? 0 : same->second;
    pool.other_hosts = with_pool - pool.hosts;
    return pool;
}

// What the judging needs of the fitted hosts, taken before the fit so that their runs can go
// (a SKU of 100,000 hosts holds them once): names, each one's host_curve, the verified boots and
// the warnings of their newest reports.
struct FittedHosts {
    // The names one after another, and each host's curve's (count, value) pairs in count order,
    // each in one block: held through the fit, two small blocks a host among the runs' freed
    // ones would keep most of their pages from going back.
    std::string names;
    std::vector<std::size_t> name_ends;
    std::vector<std::pair<double, double>> curves;
    std::vector<std::size_t> curve_ends;
    VerifiedBoots boots;
    std::optional<std::string> warnings;  // host_warnings' reason
    std::optional<std::string> stale;     // stale_reason's

    void add(const std::string& name, const std::map<double, double>& curve) {
        names += name;
        name_ends.push_back(names.size());
        curves.insert(curves.end(), curve.begin(), curve.end());
        curve_ends.push_back(curves.size());
    }
    std::size_t size() const { return name_ends.size(); }
    std::string name(std::size_t h) const {
        const std::size_t begin = h == 0 ? 0 : name_ends[h - 1];
        return names.substr(begin, name_ends[h] - begin);
    }
    std::span<const std::pair<double, double>> curve(std::size_t h) const {
        const std::size_t begin = h == 0 ? 0 : curve_ends[h - 1];
        return {curves.data() + begin, curve_ends[h] - begin};
    }
    // The host's value at thread count `n`, when its curve has it.
    const double* at(std::size_t h, double n) const {
        const auto c = curve(h);
        const auto it = std::lower_bound(
            c.begin(), c.end(), n, [](const auto& point, double v) { return point.first < v; });
        return it != c.end() && it->first == n ? &it->second : nullptr;
    }
};

// The measured thread count per node nearest `per_node` (in ratio) that every fitted host has.
std::optional<double> common_count(const FittedHosts& fitted, double per_node) {
    std::optional<double> best;
    for (const auto& [n, value] : fitted.curve(0)) {
        bool everyone = true;
        for (std::size_t h = 0; h < fitted.size() && everyone; ++h)
            everyone = fitted.at(h, n) != nullptr;
        if (everyone &&
            (!best || std::abs(std::log(n / per_node)) < std::abs(std::log(*best / per_node))))
            best = n;
    }
    return best;
}

// Hosts whose time per page at the counts the answer compares lies outside
// kHostAgreementFactor of the hosts' median there, with the worst factor.
std::optional<std::string> disagreeing_hosts(const FittedHosts& fitted, const Recommendation& r) {
    if (fitted.size() < 2)
        return std::nullopt;
    std::vector<double> counts;
    for (const double per_node : {r.threads_per_node, r.default_threads_per_node})
        if (const auto n = common_count(fitted, std::max(per_node, 1.0));
            n && std::find(counts.begin(), counts.end(), *n) == counts.end())
            counts.push_back(*n);
    std::vector<double> medians;  // the hosts' median at each count compared, found once
    for (const double n : counts) {
        std::vector<double> logs;
        for (std::size_t h = 0; h < fitted.size(); ++h)
            logs.push_back(*fitted.at(h, n));
        medians.push_back(median(logs));
    }
    std::vector<std::string> out;
    double worst = 1;
    for (std::size_t h = 0; h < fitted.size(); ++h) {
        double factor = 1;
        for (std::size_t i = 0; i < counts.size(); ++i)
            factor = std::max(factor, std::exp(std::abs(*fitted.at(h, counts[i]) - medians[i])));
        if (factor > kHostAgreementFactor) {
            out.push_back(fitted.name(h));
            worst = std::max(worst, factor);
        }
    }
    if (out.empty())
        return std::nullopt;
    return std::to_string(out.size()) + " of " + count_text(fitted.size(), "host") + " (" +
           host_list(out) + (out.size() == 1 ? ") lies" : ") lie") + " up to " +
           decimals_text(worst, 2) +
           " times from the hosts' median time per page at the thread counts compared, beyond " +
           decimals_text(kHostAgreementFactor, 2) + "; the hosts do not agree on one curve.";
}

// The outliers that stand apart together (split_outliers' camp), in words.
std::optional<std::string> camp_reason(const std::vector<std::string>& camp, int hosts) {
    if (camp.empty())
        return std::nullopt;
    return std::to_string(camp.size()) + " of " + count_text(hosts, "host") + " (" +
           host_list(camp) + ") stand apart from the rest, slower or faster: more than " +
           std::to_string(kMaxOutliers) + " and more than " + percent_text(kMaxOutlierShare) +
           " of the SKU's hosts, so they are a camp, not outliers; the hosts do not agree on one "
           "curve (measure them again, or give each camp a SKU of its own).";
}

// Fitted hosts whose newest report carries a warning `apply --report` refuses.
std::optional<std::string> host_warnings(const std::vector<HostRuns>& fitted,
                                         const FleetOptions& o) {
    std::map<std::string, std::vector<std::string>> hosts_of;
    for (const auto& h : fitted)
        for (const auto& code : newest(h).warning_codes)
            if (is_unfit_code(code) && !accepted(o, code))
                if (auto& list = hosts_of[code]; list.empty() || list.back() != h.host)
                    list.push_back(h.host);
    if (hosts_of.empty())
        return std::nullopt;
    std::vector<std::string> parts, codes;
    for (const auto& [code, hosts] : hosts_of) {
        parts.push_back(code + " (" + host_list(hosts) + ")");
        codes.push_back(code);
    }
    return "hosts' reports carry warnings 'hugetune apply " + o.words("report") +
           "' refuses: " + join(parts) + "; measure them again, or accept with " +
           o.words("accepted_warnings") + " " + join(codes, ",") + ".";
}

// The SKU's own fit's warnings that make it unfit, but for low_confidence, which min_confidence
// judges, and the machine's, which the hosts' reports carry.
std::optional<std::string> fit_warnings(const Recommendation& r, const FleetOptions& o) {
    std::vector<std::string> parts, codes;
    for (const auto& w : r.warnings)
        if (is_unfit_code(w.code) && w.code != "low_confidence" && !is_machine_warning(w.code) &&
            !accepted(o, w.code)) {
            parts.push_back(w.code + ": " + w.message);
            codes.push_back(w.code);
        }
    if (parts.empty())
        return std::nullopt;
    return "the SKU's fit warns " + join(parts, "; ") + "; accept with " +
           o.words("accepted_warnings") + " " + join(codes, ",") + ".";
}

void judge(SkuAnswer& a, const FittedHosts& fitted, const std::vector<std::string>& camp,
           const FleetOptions& o) {
    const VerifiedBoots& v = fitted.boots;
    const auto fail = [&a](SkuStatus code, std::string reason) {
        a.reasons.push_back({code, std::move(reason)});
    };
    const int in_fit = static_cast<int>(fitted.size());
    if (in_fit < o.min_hosts)
        fail(SkuStatus::needs_more_hosts,
             count_text(in_fit, "host") + " in the fit; the answer needs " +
                 std::to_string(o.min_hosts) + " (" + o.words("min_hosts") +
                 ") before it stands for the SKU.");
    if (fitted.warnings)
        fail(SkuStatus::host_warnings, *fitted.warnings);
    if (const auto w = fit_warnings(a.recommendation, o))
        fail(SkuStatus::fit_warnings, *w);
    // A rule's decision (no fitted curve) has no confidence to settle on: said as such.
    if (const auto& rule = a.recommendation.decided_by_rule; !rule.empty())
        fail(SkuStatus::low_confidence,
             "decided by rule, not by data (" + rule +
                 "): no confidence to settle on; measure the SKU where its allocation can be "
                 "told apart from zeroing.");
    else if (const auto c = a.recommendation.confidence; !c || *c < o.min_confidence)
        fail(SkuStatus::low_confidence,
             (c ? "confidence " + percent_text(*c) : std::string("no confidence estimated")) +
                 ", below the " + percent_text(o.min_confidence) + " needed (" +
                 o.words("min_confidence") + ").");
    if (const auto c = camp_reason(camp, a.hosts))
        fail(SkuStatus::hosts_disagree, *c);
    if (const auto d = disagreeing_hosts(fitted, a.recommendation))
        fail(SkuStatus::hosts_disagree, *d);
    const int recommended = a.recommendation.hugepage_alloc_threads;
    // Fewer verified hosts are one machine's word against the sweeps of all (docs/fleet.md
    // "Status"): their boots are reported, and unsettle nothing.
    const bool verifications_count = v.hosts >= kMinVerifiedHosts;
    if (verifications_count && a.verification_ratio &&
        (*a.verification_ratio < kVerificationRatioLow ||
         *a.verification_ratio > kVerificationRatioHigh))
        fail(SkuStatus::disagrees_with_verification,
             "verified boots took " + decimals_text(*a.verification_ratio, 2) +
                 " times the predicted time (median), outside " +
                 decimals_text(kVerificationRatioLow, 2) + " to " +
                 decimals_text(kVerificationRatioHigh, 2) + ".");
    if (const auto faster = verifications_count
                                ? faster_booted_count(v, recommended, o.recommend.tolerance)
                                : std::nullopt)
        fail(SkuStatus::disagrees_with_verification,
             "verified boots at hugepage_alloc_threads=" + std::to_string(*faster) +
                 " were faster per page than at the recommended " + std::to_string(recommended) +
                 ".");
    if (a.boots && a.boots->disputed)
        fail(SkuStatus::disagrees_with_boots, a.boots->reason);
    if (fitted.stale)
        fail(SkuStatus::stale_runs, *fitted.stale);
    std::vector<std::string> sentences;
    for (const auto& r : a.reasons)
        sentences.push_back(r.reason);
    if (!a.reasons.empty()) {
        a.status = a.reasons.front().code;
        a.status_reason = join(sentences, " ");
        return;
    }
    a.status = SkuStatus::settled;
    a.status_reason =
        count_text(in_fit, "host") + " fitted together" +
        (a.excluded.empty() ? std::string()
                            : " (" + count_text(a.excluded.size(), "outlier") + " left out)") +
        (a.refused_runs == 0 ? std::string()
                             : ", " + count_text(a.refused_runs, "run") +
                                   " that apply would refuse left out of the fit") +
        (a.superseded_runs == 0
             ? std::string()
             : ", " + count_text(a.superseded_runs, "older run") +
                   " left out for its host's newer run of the same kernel family") +
        (a.verified_boots > 0 ? "; " + count_text(a.verified_boots, "verified boot") +
                                    (a.verified_boots == 1 ? " agrees." : " agree.")
                              : std::string("; no verified boot yet."));
}

// The hosts' recorded boots beside the sweeps' answer: when they settle on another value, the
// answer is that value, whatever the sweeps' own status was (the boots are the kernel's own
// times on these hosts), and the sentence says what the sweeps answered.
void settle_by_boots(SkuAnswer& a) {
    const int recommended = a.recommendation.hugepage_alloc_threads;
    if (!a.boots || !a.boots->decided)
        return;
    a.status_reason = a.boots->reason +
                      " The sweeps answered hugepage_alloc_threads=" + std::to_string(recommended) +
                      " (" + to_string(a.status) +
                      (a.reasons.empty() ? "" : ": " + a.status_reason) + ").";
    a.status = SkuStatus::settled_by_boots;
    a.reasons.clear();
    a.kernel_cmdline = alloc_threads_setting(static_cast<std::uint64_t>(*a.boots->decided));
}

// The kernel values the sweeps measured: each thread count per node of every phase, on every
// node, within the CPUs. The pooled phases hold millions of samples of a few counts: each
// value is kept once as it is met.
std::vector<int> swept_values(const SweepData& pooled, const Recommendation& r) {
    std::vector<int> out;
    for (const auto& phase : pooled.phases)
        for (const auto& p : phase.points) {
            const int value =
                std::min(r.cpu_cap, static_cast<int>(std::llround(p.threads_per_node * r.nodes)));
            if (std::find(out.begin(), out.end(), value) == out.end())
                out.push_back(value);
        }
    std::sort(out.begin(), out.end());
    return out;
}

// What the fitted hosts' newest runs alone answer: the hosts as they are now.
struct NewestAnswer {
    Decision decision = Decision::set;
    int hugepage_alloc_threads = 1;
    double predicted_seconds = 0;
    std::set<std::string> older_families;  // of the runs that are not their host's newest
};

// The fitted hosts' newest runs fitted alone, for their value and predicted time only (no
// bootstrap); absent when every fitted host has one run, whose answer is the SKU's own.
std::optional<NewestAnswer> newest_answer(const std::vector<HostRuns>& fitted,
                                          const RecommendOptions& recommend,
                                          const InputSource& runs_input) {
    if (std::all_of(fitted.begin(), fitted.end(),
                    [](const HostRuns& h) { return h.runs.size() == 1; }))
        return std::nullopt;
    RecommendOptions point_only = recommend;
    point_only.resamples = 0;
    point_only.spread_sweeps = 0;
    const Recommendation r = recommend_from_sweep(newest_sweep(fitted, runs_input), point_only);
    NewestAnswer n{r.decision, r.hugepage_alloc_threads, r.predicted_seconds, {}};
    for (const auto& h : fitted)
        for (auto run = h.runs.begin(); run + 1 < h.runs.end(); ++run)
            n.older_families.insert(kernel_family_of(run->kernel_release.value_or("")));
    return n;
}

std::string value_text(Decision decision, int threads) {
    return (decision == Decision::keep_default ? "the kept default hugepage_alloc_threads="
                                               : "hugepage_alloc_threads=") +
           std::to_string(threads);
}

// The newest runs' answer against the pooled one: stale when it takes another value, predicted
// outside the pooled answer's 5%..95% interval (without one, beyond its tolerance).
std::optional<std::string> stale_reason(const std::optional<NewestAnswer>& n,
                                        const Recommendation& r) {
    if (!n || (n->decision == r.decision && n->hugepage_alloc_threads == r.hugepage_alloc_threads))
        return std::nullopt;
    const double low = r.predicted_seconds_low.value_or(r.predicted_seconds * (1 - r.tolerance));
    const double high = r.predicted_seconds_high.value_or(r.predicted_seconds * (1 + r.tolerance));
    if (n->predicted_seconds >= low && n->predicted_seconds <= high)
        return std::nullopt;
    return "the fitted hosts' newest runs alone give " +
           value_text(n->decision, n->hugepage_alloc_threads) + " (" +
           seconds_text(n->predicted_seconds) + " predicted), outside the " + seconds_text(low) +
           " to " + seconds_text(high) + " (5% to 95%) that all their runs predict for " +
           value_text(r.decision, r.hugepage_alloc_threads) + ": older runs, of kernel " +
           join(n->older_families, ", ",
                [](const std::string& f) { return f.empty() ? std::string("unknown") : f; }) +
           ", outvote the hosts as they are now; measure the hosts again, or forget the older "
           "kernel's runs ('hugetune fleet forget').";
}

// Each stage takes the hosts' runs from the one before (moved, never copied): a SKU of 100,000
// hosts is held once.
SkuAnswer answer_hosts(std::vector<HostRuns>&& hosts, const FleetOptions& options,
                       const InputSource& runs_input, const std::function<BootTally()>& boots) {
    SkuAnswer a;
    for (const auto& h : hosts)
        a.runs += static_cast<int>(h.runs.size());
    int refused = 0;
    keep_acceptable_runs(hosts, options, refused);
    keep_newest_per_family(hosts, a.superseded_runs);
    a.sku = hosts.front().runs.front().sku;
    a.hosts = static_cast<int>(hosts.size());
    std::vector<HostRuns> fitted;
    std::vector<std::string> camp;
    split_outliers(std::move(hosts), options, fitted, a.excluded, camp);
    a.refused_runs = refused;
    a.pool = choose_pool(fitted, options, a.sku.page_size_kb);
    RecommendOptions recommend = options.recommend;
    if (a.pool.pages > 0) {
        recommend.pool_pages = a.pool.pages;
        recommend.pool_source = a.pool.source;
    }
    // The hosts' runs are needed once more, for what the judging takes of them and pooled, then
    // go before the fit, which holds the pooled series and its resampling pools.
    FittedHosts judged;
    for (const auto& h : fitted)
        judged.add(h.host, host_curve(h));
    judged.boots = verified_boots(fitted);
    judged.warnings = host_warnings(fitted, options);
    const auto now = newest_answer(fitted, recommend, runs_input);
    SweepData pooled = pooled_sweep(std::move(fitted), runs_input);
    a.recommendation = recommend_from_sweep(pooled, recommend);
    const std::vector<int> swept = swept_values(pooled, a.recommendation);
    pooled = SweepData();
    if (a.pool.pages == 0) {  // no report said: the fit's own rule chose
        a.pool.pages = static_cast<std::uint64_t>(std::llround(a.recommendation.pool_pages));
        a.pool.source = a.recommendation.pool_source;
    }
    if (a.recommendation.decision == Decision::set)
        a.kernel_cmdline = alloc_threads_setting(
            static_cast<std::uint64_t>(a.recommendation.hugepage_alloc_threads));
    a.verified_boots = judged.boots.boots;
    if (!judged.boots.ratios.empty())
        a.verification_ratio = median(judged.boots.ratios);
    a.boots = judge_boots(boots(), a.recommendation, a.recommendation.hugepage_alloc_threads,
                          options.recommend.tolerance, swept);
    judged.stale = stale_reason(now, a.recommendation);
    judge(a, judged, camp, options);
    settle_by_boots(a);
    return a;
}

}  // namespace

SkuAnswer answer_sku(const std::vector<FleetRun>& runs, const FleetOptions& options,
                     const InputSource& runs_input, const BootTally& boots) {
    return answer_sku(std::vector<FleetRun>(runs), options, runs_input, boots);
}

SkuAnswer answer_sku(std::vector<FleetRun>&& runs, const FleetOptions& options,
                     const InputSource& runs_input, const BootTally& boots) {
    return answer_sku(read_host_runs(std::move(runs), runs_input), options, runs_input, boots);
}

SkuAnswer answer_sku(std::vector<HostRuns>&& hosts, const FleetOptions& options,
                     const InputSource& runs_input, const BootTally& boots) {
    return answer_hosts(std::move(hosts), options, runs_input, [&boots] { return boots; });
}

SkuAnswer answer_sku(std::vector<HostRuns>&& hosts, const FleetOptions& options,
                     const InputSource& runs_input, const std::function<BootTally()>& boots) {
    return answer_hosts(std::move(hosts), options, runs_input, boots);
}

}  // namespace hugetune::model::fleet
