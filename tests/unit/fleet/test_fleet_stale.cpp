// Which of a host's runs the SKU's answer fits, and the answer that older runs would outvote
// (docs/fleet.md "How a SKU's answer is made" and "Status").
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "model/fit/resampling.hpp"
#include "model/fleet/fleet.hpp"
#include "tests/support/fleet_generator.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;
using nlohmann::json;

namespace {

constexpr int kHosts = 16;
constexpr int kMonths = 4;
constexpr const char* kOldKernel = "6.15.3";
constexpr const char* kNewKernel = "6.16.1";
// The new kernel's contention between allocating threads, against the old one's: its best
// thread count lies further out.
constexpr double kNewKappaShare = 0.2;

FleetOptions stale_options() {
    FleetOptions o;
    o.recommend.resamples = 50;
    o.recommend.seed = 1;
    return o;
}

// The generator's zen4-like SKU (64 CPUs, kernel default 16), one report per host.
struct Sku {
    test::SkuTruth truth;
    std::vector<FleetRun> runs;
};

Sku zen4_sku() {
    test::FleetSpec spec = test::clean_spec(3, 2, kHosts);
    spec.verify_share = 0;
    const auto fleet = test::generate_fleet(spec);
    return {fleet.skus.at(1), fleet.runs_of(fleet.skus.at(1))};
}

// The boot's work per page at `n` threads per node (the generator's curve), with contention
// `kappa`, plus the fault's zeroing, which no kernel change moves.
double alloc_per_page(const test::SkuTruth& s, double kappa, double n) {
    const double work = s.seconds_per_page * (1 + s.sigma * (n - 1) + kappa * n * (n - 1)) / n;
    const double zero = 0.35 * s.seconds_per_page * (1 + 0.01 * (n - 1)) / n;
    return work + zero;
}

// `base` as the host's run of month `month` (0 the oldest): its samples with fresh repetition
// noise, the last month on the new kernel, whose curve drifted.
FleetRun monthly_run(const test::SkuTruth& s, const FleetRun& base, int month,
                     model::Resampler& rng) {
    FleetRun run = base;
    const bool drifted = month == kMonths - 1;
    run.report["kernel"]["release"] = drifted ? kNewKernel : kOldKernel;
    char at[32];
    std::snprintf(at, sizeof at, "2026-%02d-01T00:00:00Z", 3 + month);
    run.report["generated_at"] = std::string(at);
    run.run_key = base.host + "-" + std::to_string(month);
    for (auto& p : run.report["sweep"]["points"]) {
        const double n = p["threads_per_node"].get<double>();
        const double drift =
            drifted && p["phase"] == "alloc"
                ? alloc_per_page(s, s.kappa * kNewKappaShare, n) / alloc_per_page(s, s.kappa, n)
                : 1.0;
        for (auto& sample : p["samples_seconds"])
            sample = sample.get<double>() * drift * std::exp(0.02 * rng.normal());
    }
    return run;
}

// Each host's runs of the months `first` to `last`.
std::vector<FleetRun> months(const Sku& sku, int first, int last) {
    model::Resampler rng(7);
    std::vector<FleetRun> out;
    for (const auto& base : sku.runs)
        for (int m = 0; m < kMonths; ++m) {
            FleetRun run = monthly_run(sku.truth, base, m, rng);
            if (m >= first && m <= last)
                out.push_back(std::move(run));
        }
    return out;
}

bool fails_with(const SkuAnswer& a, SkuStatus code) {
    return std::any_of(a.reasons.begin(), a.reasons.end(),
                       [&](const StatusReason& r) { return r.code == code; });
}

}  // namespace

TEST_CASE("a host's older runs of one kernel family give way to its newest") {
    // Every run on the old kernel: each host's newest alone is what the SKU's answer fits.
    const Sku sku = zen4_sku();
    const SkuAnswer all = answer_sku(months(sku, 0, kMonths - 2), stale_options());
    const SkuAnswer newest = answer_sku(months(sku, kMonths - 2, kMonths - 2), stale_options());
    CHECK(all.runs == kHosts * (kMonths - 1));
    CHECK(all.superseded_runs == kHosts * (kMonths - 2));
    CHECK(newest.superseded_runs == 0);
    CHECK(all.recommendation.hugepage_alloc_threads ==
          newest.recommendation.hugepage_alloc_threads);
    CHECK(all.recommendation.predicted_seconds ==
          doctest::Approx(newest.recommendation.predicted_seconds).epsilon(1e-9));
    CHECK(all.recommendation.confidence == newest.recommendation.confidence);
    CHECK(all.status_reason.find(std::to_string(kHosts * (kMonths - 2)) + " older runs") !=
          std::string::npos);
}

TEST_CASE("runs on a kernel the hosts have left that outvote the newest are stale_runs") {
    // Sixteen hosts, four monthly runs each, the newest on a new kernel whose curve drifted.
    const Sku sku = zen4_sku();
    const SkuAnswer pooled = answer_sku(months(sku, 0, kMonths - 1), stale_options());
    const SkuAnswer now = answer_sku(months(sku, kMonths - 1, kMonths - 1), stale_options());
    const SkuAnswer old = answer_sku(months(sku, 0, kMonths - 2), stale_options());
    const std::pair<std::string, const SkuAnswer*> answers[] = {
        {"old kernel's runs", &old}, {"newest", &now}, {"all", &pooled}};
    for (const auto& [name, a] : answers)
        MESSAGE(name, ": ", to_string(a->recommendation.decision), " ",
                a->recommendation.hugepage_alloc_threads, ", ", a->recommendation.predicted_seconds,
                " s [", a->recommendation.predicted_seconds_low.value_or(0), ", ",
                a->recommendation.predicted_seconds_high.value_or(0), "], ", to_string(a->status),
                ": ", a->status_reason);
    // The old kernel's runs alone settle on keeping the default; the newest alone set another
    // value, seconds faster on every boot.
    CHECK(old.status == SkuStatus::settled);
    CHECK(old.recommendation.decision == model::Decision::keep_default);
    CHECK(now.status == SkuStatus::settled);
    CHECK_FALSE(fails_with(now, SkuStatus::stale_runs));
    CHECK(now.recommendation.decision == model::Decision::set);
    CHECK(now.recommendation.hugepage_alloc_threads > old.recommendation.hugepage_alloc_threads);
    CHECK(now.recommendation.predicted_seconds < old.recommendation.predicted_seconds - 5);
    // Together, each host's newest old-kernel run beside its new one: not settled, and the
    // reason says which value the newest runs give and which kernel's runs outvote them.
    CHECK(pooled.runs == kHosts * kMonths);
    CHECK(pooled.superseded_runs == kHosts * (kMonths - 2));
    CHECK(fails_with(pooled, SkuStatus::stale_runs));
    CHECK_FALSE(is_settled(pooled.status));
    CHECK(pooled.kernel_cmdline.empty() ==
          (pooled.recommendation.decision == model::Decision::keep_default));
    CHECK(pooled.recommendation.hugepage_alloc_threads !=
          now.recommendation.hugepage_alloc_threads);
    CHECK(pooled.status_reason.find("newest runs alone give hugepage_alloc_threads=" +
                                    std::to_string(now.recommendation.hugepage_alloc_threads)) !=
          std::string::npos);
    CHECK(pooled.status_reason.find("of kernel 6.15,") != std::string::npos);
    const FleetAnswer document = fleet_answer(pooled);
    CHECK(read_fleet_answer(to_json(document)).status == pooled.status);
}
