// The fleet model against seeded fleets whose truth is known (tests/support/fleet_generator).
#include <doctest/doctest.h>

#include <algorithm>

#include "model/documents/report_schema.hpp"
#include "model/fleet/fleet.hpp"
#include "tests/support/fleet_generator.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;

namespace {

constexpr int kSeeds = 20;
// Clean hosts flagged, at most: a 3.5-deviation rule over six thread counts, its spread
// estimated from eight hosts, wrongly flags a clean one now and then (docs/fleet.md
// "Outliers"; 2.5% measured over these 20 seeds).
constexpr double kMaxFalsePositiveRate = 0.05;

bool planted(const test::SkuTruth& sku, const std::string& host) {
    return std::any_of(sku.outliers.begin(), sku.outliers.end(),
                       [&](const auto& o) { return o.host == host; });
}

FleetOptions fast_options() {
    FleetOptions o;
    o.recommend.resamples = 40;
    return o;
}

}  // namespace

TEST_CASE("every generated report is one `fleet ingest` accepts: it meets the shipped schema") {
    test::FleetSpec spec;
    spec.seed = 3;
    spec.fit_every_host = false;
    spec.report_resamples = 0;
    const auto fleet = test::generate_fleet(spec);
    for (const auto& sku : fleet.skus)
        for (const auto& run : fleet.runs_of(sku)) {
            CAPTURE(run.host);
            CHECK(model::report_schema_problem(run.report) == std::nullopt);
        }
}

TEST_CASE("the SKU's answer is the true best value within the tolerance") {
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
        test::FleetSpec spec;
        spec.seed = seed;
        spec.skus = 3;
        spec.hosts_per_sku = 12;  // 9 clean hosts once the 3 planted outliers are left out
        spec.fit_every_host = false;
        spec.report_resamples = 0;
        const auto fleet = test::generate_fleet(spec);
        for (const auto& sku : fleet.skus) {
            const SkuAnswer a = answer_sku(fleet.runs_of(sku), fast_options());
            CAPTURE(seed);
            CAPTURE(to_string(sku.key));
            CAPTURE(a.recommendation.hugepage_alloc_threads);
            CAPTURE(sku.best_hugepage_alloc_threads);
            CHECK(a.sku == sku.key);
            CHECK(a.hosts == spec.hosts_per_sku);
            CHECK(a.excluded.size() == sku.outliers.size());
            CHECK(a.recommendation.bootstrap_method == "hosts, then repetitions");
            const double best = sku.boot_seconds(sku.best_hugepage_alloc_threads);
            const double ours = sku.boot_seconds(a.recommendation.hugepage_alloc_threads);
            CHECK(ours <= best * (1 + 2 * a.recommendation.tolerance));
            REQUIRE(a.recommendation.confidence);
            CHECK(a.verified_boots > 0);
            // The odd-ratio host is left out with the other planted outliers; the clean
            // hosts' verified boots agree with the answer. A flat curve's confidence may stay
            // below the minimum: that, and only that, may keep it from being settled.
            MESSAGE(to_string(sku.key) << ": confidence " << *a.recommendation.confidence
                                       << ", status " << to_string(a.status));
            for (const auto& r : a.reasons)
                CHECK(r.code == SkuStatus::low_confidence);
        }
    }
}

TEST_CASE("planted outliers are found and clean hosts are left alone") {
    int planted_hosts = 0, found = 0, clean_hosts = 0, false_positives = 0;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
        test::FleetSpec spec;
        spec.seed = seed;
        spec.fit_every_host = false;
        spec.report_resamples = 0;
        const auto fleet = test::generate_fleet(spec);
        for (const auto& sku : fleet.skus)
            for (const auto& check : check_hosts(fleet.runs_of(sku), FleetOptions{})) {
                CAPTURE(seed);
                CAPTURE(check.host);
                if (planted(sku, check.host)) {
                    ++planted_hosts;
                    found += check.outlier ? 1 : 0;
                    CHECK(check.outlier);
                } else {
                    ++clean_hosts;
                    false_positives += check.outlier ? 1 : 0;
                }
            }
    }
    const double detection = static_cast<double>(found) / planted_hosts;
    const double false_positive_rate = static_cast<double>(false_positives) / clean_hosts;
    MESSAGE("over " << kSeeds << " seeds: detection " << found << "/" << planted_hosts << " ("
                    << detection * 100 << "%), false positives " << false_positives << "/"
                    << clean_hosts << " (" << false_positive_rate * 100 << "%)");
    CHECK(detection == 1.0);
    CHECK(false_positive_rate <= kMaxFalsePositiveRate);
}

TEST_CASE("each planted outlier is flagged for what was planted") {
    test::FleetSpec spec;
    spec.seed = 7;
    spec.skus = 1;
    spec.fit_every_host = false;
    spec.report_resamples = 0;
    const auto fleet = test::generate_fleet(spec);
    const auto& sku = fleet.skus.front();
    const auto checks = check_hosts(fleet.runs_of(sku), FleetOptions{});
    for (const auto& o : sku.outliers) {
        const auto c = std::find_if(checks.begin(), checks.end(),
                                    [&](const HostCheck& h) { return h.host == o.host; });
        REQUIRE(c != checks.end());
        REQUIRE(c->outlier);
        const std::string reason = c->reasons.front();
        CAPTURE(reason);
        if (o.planted == "slower_curve")
            CHECK(reason.find("curve is slower") != std::string::npos);
        else if (o.planted == "other_kernel")
            CHECK(reason.find("kernel 6.16.2 differs") != std::string::npos);
        else
            CHECK(reason.find("measured/predicted ratio") != std::string::npos);
    }
}
