// The status and outlier rules at their edges, on copies of one report (docs/fleet.md).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "model/fleet/fleet.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;
using nlohmann::json;

namespace {

const json& base_report() {
    static const json report = test::fixed_report();
    return report;
}

FleetRun host_run(int i, const json& report) {
    const std::string host = "host" + std::to_string(i);
    json r = report;
    r = test::as_host(r, host);
    return {host, host + "-run", r};
}

// The report as host `i`'s of a pair of hosts whose samples, together, are the report's twice
// over: at each point, pair `pair`'s two neighbouring repetitions, the first host with both the
// second's value, the other host with both the first's. Hosts of other pairs swap other
// repetitions, so that no two hosts carry the same samples (those would be one machine).
FleetRun paired_host(int i, const json& report) {
    const std::string host = "host" + std::to_string(i);
    json r = report;
    r["host"]["hostname"] = host;
    for (auto& p : r["sweep"]["points"]) {
        auto& s = p["samples_seconds"];
        const std::size_t a = static_cast<std::size_t>(i / 2) % (s.size() - 1);
        if (i % 2 == 0)
            s[a] = s[a + 1];
        else
            s[a + 1] = s[a];
    }
    return {host, host + "-run", r};
}

// Hosts whose every point has the report's median: host i's largest repetition of each point
// moved up by (i + 1) parts in 1,000, its own samples, its curve (host_curve) the report's.
std::vector<FleetRun> same_median_copies(int hosts) {
    std::vector<FleetRun> runs;
    for (int i = 0; i < hosts; ++i) {
        const std::string host = "host" + std::to_string(i);
        json r = base_report();
        r["host"]["hostname"] = host;
        for (auto& p : r["sweep"]["points"]) {
            auto& s = p["samples_seconds"];
            auto largest = std::max_element(s.begin(), s.end());
            *largest = largest->get<double>() * (1 + 1e-3 * (i + 1));
        }
        runs.push_back({host, host + "-run", r});
    }
    return runs;
}

std::vector<FleetRun> copies(int hosts) {
    std::vector<FleetRun> runs;
    for (int i = 0; i < hosts; ++i)
        runs.push_back(host_run(i, base_report()));
    return runs;
}

// As verify writes it: the kernel's whole milliseconds, and the ratio they make.
json verified(int threads, double measured_ms, double ratio) {
    const auto whole_ms = std::llround(measured_ms);
    return {{"verified", true},
            {"measured_ms", whole_ms},
            {"threads", threads},
            {"pool_predicted_ms", static_cast<double>(whole_ms) / ratio},
            {"ratio", ratio},
            {"pool", {{"pages", 100000}, {"page_size_kb", 2048}, {"init_on_alloc", true}}},
            {"problems", json::array()}};
}

// Every alloc sample of the run's sweep times `factor`.
void scale_alloc(FleetRun& run, double factor) {
    for (auto& p : run.report["sweep"]["points"])
        if (p["phase"] == "alloc")
            for (auto& s : p["samples_seconds"])
                s = s.get<double>() * factor;
}

FleetOptions options() {
    FleetOptions o;
    o.recommend.resamples = 50;
    return o;
}

const HostCheck& check_of(const std::vector<HostCheck>& checks, const std::string& host) {
    for (const auto& c : checks)
        if (c.host == host)
            return c;
    FAIL("no check of " << host);
    return checks.front();
}

}  // namespace

TEST_CASE("fewer hosts than min_hosts need more hosts") {
    CHECK(answer_sku(copies(1), options()).status_reason.find("1 host in the fit") !=
          std::string::npos);
    const SkuAnswer two = answer_sku(copies(2), options());
    CHECK(two.status == SkuStatus::needs_more_hosts);
    CHECK(two.status_reason.find("2 hosts in the fit") != std::string::npos);
    const SkuAnswer three = answer_sku(copies(3), options());
    CHECK(three.status == SkuStatus::settled);
    CHECK(three.hosts == 3);
    CHECK(three.runs == 3);
    CHECK(three.verified_boots == 0);
    CHECK_FALSE(three.verification_ratio);
}

TEST_CASE("the pooled answer of hosts whose samples are the report's four times over is its own") {
    // Identical hosts would be one machine (docs/fleet.md "The host-name rule"): these four
    // differ, and their samples pooled are the report's, each four times.
    const auto single =
        model::recommend_from_sweep(read_run(base_report()).sweep, options().recommend);
    std::vector<FleetRun> runs;
    for (int i = 0; i < 4; ++i)
        runs.push_back(paired_host(i, base_report()));
    const SkuAnswer a = answer_sku(runs, options());
    CHECK(a.hosts == 4);
    CHECK(a.recommendation.hugepage_alloc_threads == single.hugepage_alloc_threads);
    CHECK(a.recommendation.predicted_seconds == doctest::Approx(single.predicted_seconds));
    CHECK(a.kernel_cmdline ==
          (a.recommendation.decision == model::Decision::set
               ? "hugepage_alloc_threads=" + std::to_string(a.recommendation.hugepage_alloc_threads)
               : std::string()));
    const json j = to_json(a);
    CHECK(j["sku"] == to_string(a.sku));
    CHECK(j["sku_fields"]["nodes"] == a.sku.nodes);
    CHECK(j["status"] == "settled");
    CHECK(j["recommendation"]["bootstrap"]["method"] == "hosts, then repetitions");
}

TEST_CASE("verified boots' median ratio decides against the band's edges") {
    const auto status_at = [](double ratio) {
        auto runs = copies(4);
        for (auto& run : runs)
            run.report["verification"] = verified(8, 10000, ratio);
        return answer_sku(runs, options());
    };
    CHECK(status_at(1.49).status == SkuStatus::settled);
    CHECK(status_at(1.51).status == SkuStatus::disagrees_with_verification);
    CHECK(status_at(0.67).status == SkuStatus::settled);
    CHECK(status_at(0.66).status == SkuStatus::disagrees_with_verification);
    const SkuAnswer a = status_at(1.2);
    CHECK(a.verified_boots == 4);
    CHECK(a.verification_ratio == doctest::Approx(1.2));
    // An unverified boot does not count.
    auto runs = copies(4);
    json v = verified(8, 10000, 3.0);
    v["verified"] = false;
    runs[0].report["verification"] = v;
    CHECK(answer_sku(runs, options()).verified_boots == 0);
    CHECK(answer_sku(runs, options()).status == SkuStatus::settled);
}

TEST_CASE("verified boots that found a faster value than the recommended one disagree") {
    auto runs = copies(4);
    const int recommended = answer_sku(runs, options()).recommendation.hugepage_alloc_threads;
    const int other = recommended == 2 ? 4 : 2;
    runs[0].report["verification"] = verified(recommended, 10000, 1.0);
    for (const std::size_t h : {1, 2})
        runs[h].report["verification"] = verified(other, 10000 * 0.99, 1.0);
    CHECK(answer_sku(runs, options()).status == SkuStatus::settled);  // within the tolerance
    for (const std::size_t h : {1, 2})
        runs[h].report["verification"] = verified(other, 10000 * 0.9, 1.0);
    const SkuAnswer a = answer_sku(runs, options());
    CHECK(a.status == SkuStatus::disagrees_with_verification);
    CHECK(a.status_reason.find("hugepage_alloc_threads=" + std::to_string(other)) !=
          std::string::npos);
}

TEST_CASE("verified boots unsettle an answer only from kMinVerifiedHosts hosts") {
    // 16 hosts; one host's two verified boots took three times the prediction.
    auto runs = copies(16);
    FleetRun second = runs[0];
    second.run_key = "host0-again";
    second.report["generated_at"] = "2027-01-01T00:00:00Z";
    runs[0].report["verification"] = verified(8, 30000, 3.0);
    runs[0].report["verification"]["boot_id"] = "00000000-0000-4000-8000-000000000001";
    second.report["verification"] = verified(8, 30000, 3.0);
    second.report["verification"]["boot_id"] = "00000000-0000-4000-8000-000000000002";
    runs.push_back(second);
    const SkuAnswer one_host = answer_sku(runs, options());
    INFO(one_host.status_reason);
    CHECK(one_host.verified_boots == 2);
    CHECK(one_host.status == SkuStatus::settled);
    // Boots of kMinVerifiedHosts hosts do.
    for (int h = 1; h < kMinVerifiedHosts; ++h)
        runs[static_cast<std::size_t>(h)].report["verification"] = verified(8, 30000, 3.0);
    const SkuAnswer enough = answer_sku(runs, options());
    CHECK(enough.status == SkuStatus::disagrees_with_verification);
    // Each host has one say: one host's many boots do not outvote the others'.
    for (int h = 1; h < 4; ++h)
        runs[static_cast<std::size_t>(h)].report["verification"] = verified(8, 10000, 1.0);
    const SkuAnswer many = answer_sku(runs, options());
    CHECK(many.verification_ratio == doctest::Approx(1.0));
    CHECK(many.status == SkuStatus::settled);
}

TEST_CASE("runs of two SKUs or none are refused") {
    auto runs = copies(3);
    runs[2].report["sku"]["init_on_alloc"] = runs[2].report["kernel"]["init_on_alloc"] = false;
    CHECK_THROWS_WITH_AS(answer_sku(runs, options()),
                         doctest::Contains("is of SKU zen4/2n/16t/64g/2048k/ioa0, not"),
                         model::InputError);
    CHECK_THROWS_AS(check_hosts({}, options()), model::InputError);
    runs = copies(3);
    runs[1].report["recommendation"]["decision"] = "maybe";
    try {
        answer_sku(runs, options(), {"SKU k", "", true});
        FAIL("accepted");
    } catch (const model::InputError& e) {
        CHECK(e.source().name == "SKU k: run host1-run of host host1");
        CHECK(e.source().stored);
        CHECK(std::string(e.what()).starts_with("recommendation.decision: "));
    }
}

TEST_CASE("robust deviations use the floor when hosts agree exactly") {
    CHECK(robust_deviations({1, 2}, 0.02) == std::vector<double>{0, 0});
    const auto z = robust_deviations({0, 0, 0, 0, 0.07}, 0.02);
    CHECK(z[4] == doctest::Approx(3.5));
    const auto spread = robust_deviations({-1, 0, 1, 2, 10}, 0.02);
    CHECK(spread[4] == doctest::Approx(9 / kMadToSigma));
}

TEST_CASE("a host's curve is flagged just past the threshold") {
    const auto curve_check = [](double log_shift) {
        auto runs = same_median_copies(5);
        scale_alloc(runs[4], std::exp(log_shift));
        return check_of(check_hosts(runs, options()), "host4");
    };
    // Hosts of one curve spread by nothing: deviations are in units of the 2% floor.
    const HostCheck below = curve_check(kMinLogSpread * (kOutlierDeviations - 0.05));
    CHECK_FALSE(below.outlier);
    REQUIRE(below.curve_deviation);
    CHECK(*below.curve_deviation == doctest::Approx(kOutlierDeviations - 0.05));
    const HostCheck above = curve_check(kMinLogSpread * (kOutlierDeviations + 0.05));
    CHECK(above.outlier);
    REQUIRE(above.reasons.size() == 1);
    CHECK(above.reasons[0].find("curve is slower") != std::string::npos);
    const HostCheck faster = curve_check(-kMinLogSpread * 4);
    CHECK(faster.outlier);
    CHECK(faster.reasons[0].find("curve is faster") != std::string::npos);
    for (const auto& c : check_hosts(same_median_copies(5), options()))
        CHECK_FALSE(c.outlier);
    for (const auto& c : check_hosts(copies(5), options()))
        CHECK_FALSE(c.outlier);
}

TEST_CASE("a host's verification ratio is flagged just past the threshold") {
    const auto ratio_check = [](double log_shift) {
        auto runs = copies(4);
        for (int i = 0; i < 4; ++i)
            runs[i].report["verification"] = verified(8, 10000, i == 3 ? std::exp(log_shift) : 1.0);
        return check_of(check_hosts(runs, options()), "host3");
    };
    CHECK_FALSE(ratio_check(kMinLogSpread * (kOutlierDeviations - 0.05)).outlier);
    const HostCheck odd = ratio_check(kMinLogSpread * (kOutlierDeviations + 0.05));
    CHECK(odd.outlier);
    CHECK(odd.reasons[0].find("measured/predicted ratio") != std::string::npos);
}

TEST_CASE("a kernel or firmware other than the SKU's most common is flagged, a tie is not") {
    auto runs = copies(4);
    runs[3].report["kernel"]["release"] = "6.16.0";
    runs[2].report["firmware"] = {{"bios_version", "9"}, {"microcode", "0x1"}};
    const auto checks = check_hosts(runs, options());
    CHECK(check_of(checks, "host3").outlier);
    CHECK(check_of(checks, "host3").reasons[0] ==
          "its kernel 6.16.0 differs from the SKU's most common 6.15.0");
    // One host with firmware facts: nothing to compare it with.
    CHECK_FALSE(check_of(checks, "host2").outlier);
    CHECK_FALSE(check_of(checks, "host0").outlier);
    runs[2].report["kernel"]["release"] = "6.16.0";
    for (const auto& c : check_hosts(runs, options()))
        CHECK_FALSE(c.outlier);
    const json j = to_json(check_of(checks, "host3"));
    CHECK(j["outlier"] == true);
    CHECK(j["kernel_release"] == "6.16.0");
}
