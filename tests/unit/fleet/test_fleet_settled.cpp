// What keeps a SKU's answer from being settled, and what one host may not do to it
// (docs/fleet.md "How a SKU's answer is made" and "Status").
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "model/fleet/fleet.hpp"
#include "tests/support/fleet_generator.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;
using nlohmann::json;

namespace {

FleetOptions settle_options() {
    FleetOptions o;
    o.recommend.resamples = 50;
    o.recommend.seed = 1;
    return o;
}

// The fixed report as host `i`'s, measured on bare metal (the fixed sweep was measured in a VM):
// its facts and its list without vm.
FleetRun unwarned_run(int i) {
    static const json base = test::bare_metal(test::fixed_report());
    const std::string host = "host" + std::to_string(i);
    json r = base;
    r = test::as_host(r, host);
    return {host, host + "-run", r};
}

std::vector<FleetRun> unwarned_runs(int hosts) {
    std::vector<FleetRun> runs;
    for (int i = 0; i < hosts; ++i)
        runs.push_back(unwarned_run(i));
    return runs;
}

// Every alloc sample of the run times `factor(threads per node)`.
template <class F>
void scale_alloc_by(FleetRun& run, F factor) {
    for (auto& p : run.report["sweep"]["points"])
        if (p["phase"] == "alloc")
            for (auto& s : p["samples_seconds"])
                s = s.get<double>() * factor(p["threads_per_node"].get<double>());
}

bool has_reason(const SkuAnswer& a, SkuStatus code) {
    return std::any_of(a.reasons.begin(), a.reasons.end(),
                       [&](const StatusReason& r) { return r.code == code; });
}

// One generated SKU of eight clean hosts, one report each.
std::vector<FleetRun> seeded_sku(std::uint64_t seed) {
    const auto fleet = test::generate_fleet(test::clean_spec(seed, 1, 8));
    return fleet.runs_of(fleet.skus.front());
}

// `runs` copies of `run` as one host's runs, an hour apart.
std::vector<FleetRun> repeated(const FleetRun& run, const std::string& host, int runs) {
    std::vector<FleetRun> out;
    for (int k = 0; k < runs; ++k) {
        FleetRun r = run;
        r.host = host;
        r.report = test::as_host(r.report, host);
        char at[32];
        std::snprintf(at, sizeof at, "2026-07-%02dT%02d:00:00Z", 1 + k / 24 % 28, k % 24);
        r.report["generated_at"] = std::string(at);
        r.run_key = host + "-" + std::to_string(k);
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace

TEST_CASE("one host's many runs have one host's say in the answer" *
          doctest::test_suite("trials")) {
    // A ninth host with a curve of its own: its one run, or the same run 1,000 times.
    const auto sku = seeded_sku(11);
    FleetRun contrary = sku.front();
    scale_alloc_by(contrary, [](double n) { return n / 4; });
    auto with_one = sku;
    auto with_many = sku;
    const auto one = repeated(contrary, "flooder", 1);
    const auto many = repeated(contrary, "flooder", 1000);
    with_one.insert(with_one.end(), one.begin(), one.end());
    with_many.insert(with_many.end(), many.begin(), many.end());
    FleetOptions o = settle_options();
    o.include_outliers = true;
    const SkuAnswer a1 = answer_sku(with_one, o);
    const SkuAnswer a1000 = answer_sku(with_many, o);
    CHECK(a1000.hosts == 9);
    CHECK(a1000.runs == 1008);
    CHECK(a1000.recommendation.hugepage_alloc_threads == a1.recommendation.hugepage_alloc_threads);
    CHECK(a1000.recommendation.predicted_seconds ==
          doctest::Approx(a1.recommendation.predicted_seconds).epsilon(1e-9));
}

TEST_CASE("a flooding outlier host is left out and the answer does not move" *
          doctest::test_suite("trials")) {
    const auto sku = seeded_sku(11);
    const SkuAnswer before = answer_sku(sku, settle_options());
    FleetRun contrary = sku.front();
    scale_alloc_by(contrary, [](double n) { return n / 4; });
    auto flooded = sku;
    const auto many = repeated(contrary, "flooder", 1000);
    flooded.insert(flooded.end(), many.begin(), many.end());
    const SkuAnswer after = answer_sku(flooded, settle_options());
    CHECK(after.hosts == 9);
    REQUIRE(after.excluded.size() == 1);
    CHECK(after.excluded.front().host == "flooder");
    CHECK(after.excluded.front().reasons.front().find("curve is") != std::string::npos);
    CHECK(after.runs == 1008);
    CHECK(after.recommendation.hugepage_alloc_threads ==
          before.recommendation.hugepage_alloc_threads);
    CHECK(after.recommendation.predicted_seconds ==
          doctest::Approx(before.recommendation.predicted_seconds).epsilon(1e-9));
    CHECK(after.status == before.status);
    if (after.status == SkuStatus::settled)
        CHECK(after.status_reason.find("1 outlier left out") != std::string::npos);
    // Kept in on request, it has one host's say, and the hosts no longer agree.
    FleetOptions keep = settle_options();
    keep.include_outliers = true;
    const SkuAnswer kept = answer_sku(flooded, keep);
    CHECK(kept.excluded.empty());
    CHECK(kept.runs == 1008);
    CHECK(has_reason(kept, SkuStatus::hosts_disagree));
}

TEST_CASE("a host 500 times slower is left out, and kept in it stops the answer") {
    auto runs = unwarned_runs(5);
    scale_alloc_by(runs[4], [](double) { return 500.0; });
    const SkuAnswer a = answer_sku(runs, settle_options());
    REQUIRE(a.excluded.size() == 1);
    CHECK(a.excluded.front().host == "host4");
    CHECK(a.status == SkuStatus::settled);
    REQUIRE(a.recommendation.predicted_seconds_high);
    CHECK(*a.recommendation.predicted_seconds_high < 1e6);
    FleetOptions keep = settle_options();
    keep.include_outliers = true;
    const SkuAnswer kept = answer_sku(runs, keep);
    CHECK(kept.status != SkuStatus::settled);
    CHECK(has_reason(kept, SkuStatus::hosts_disagree));
}

TEST_CASE("hosts in two camps are no outliers, but they do not agree") {
    auto runs = unwarned_runs(6);
    for (int i = 3; i < 6; ++i)
        scale_alloc_by(runs[static_cast<std::size_t>(i)], [](double) { return 3.0; });
    const auto checks = check_hosts(runs, settle_options());
    CHECK(std::none_of(checks.begin(), checks.end(), [](const HostCheck& c) { return c.outlier; }));
    const SkuAnswer a = answer_sku(runs, settle_options());
    CHECK(a.excluded.empty());
    CHECK(has_reason(a, SkuStatus::hosts_disagree));
    CHECK(a.status_reason.find("do not agree") != std::string::npos);
    // Within the bound they agree: 20% apart.
    auto close = unwarned_runs(6);
    for (int i = 3; i < 6; ++i)
        scale_alloc_by(close[static_cast<std::size_t>(i)], [](double) { return 1.2; });
    CHECK_FALSE(has_reason(answer_sku(close, settle_options()), SkuStatus::hosts_disagree));
}

TEST_CASE("a warning apply refuses keeps the answer unsettled unless it is accepted") {
    auto runs = unwarned_runs(3);
    runs[1].report = test::with_vm_and_poor_fit(runs[1].report);
    const SkuAnswer a = answer_sku(runs, settle_options());
    CHECK(a.status == SkuStatus::host_warnings);
    CHECK(a.status_reason.find("vm (host1)") != std::string::npos);
    CHECK(a.status_reason.find("poor_fit (host1)") != std::string::npos);
    CHECK(a.status_reason.find("accept with accepted_warnings poor_fit,vm") != std::string::npos);
    FleetOptions o = settle_options();
    o.accepted_warnings = {"vm"};
    CHECK(answer_sku(runs, o).status == SkuStatus::host_warnings);
    o.accepted_warnings = {"vm", "poor_fit"};
    CHECK(answer_sku(runs, o).status == SkuStatus::settled);
    // On many hosts the reason names five and counts the rest.
    auto many = unwarned_runs(9);
    for (auto& r : many)
        r.report["virtualization"]["hypervisor"] = true;
    const SkuAnswer b = answer_sku(many, settle_options());
    CHECK(b.status_reason.find("vm (host0, host1, host2, host3, host4 and 4 more)") !=
          std::string::npos);
    // A warning apply does not refuse does not count.
    runs[1] = unwarned_run(1);
    runs[1].report["warnings"] =
        json::array({{{"code", "oversubscribed"}, {"message", "Points time-share CPUs."}}});
    CHECK(answer_sku(runs, settle_options()).status == SkuStatus::settled);
}

TEST_CASE("below the minimum confidence the answer is not settled, and every reason is named") {
    auto runs = unwarned_runs(2);
    FleetOptions o = settle_options();
    o.min_confidence = 1.0;
    const SkuAnswer a = answer_sku(runs, o);
    REQUIRE(a.recommendation.confidence);
    if (*a.recommendation.confidence < 1.0) {
        CHECK(has_reason(a, SkuStatus::low_confidence));
        CHECK(a.status_reason.find("(min_confidence)") != std::string::npos);
    }
    CHECK(a.status == SkuStatus::needs_more_hosts);  // the first of the reasons
    CHECK(a.reasons.front().code == SkuStatus::needs_more_hosts);
    o.min_hosts = 2;
    o.min_confidence = 0;
    CHECK(answer_sku(runs, o).status == SkuStatus::settled);
    // No confidence estimated at all is never enough, but with a minimum of 0.
    const auto fleet_json = to_json(answer_sku(unwarned_runs(3), settle_options()));
    CHECK(fleet_json["status_reasons"].is_array());
    const auto back = read_fleet_answer(fleet_json);
    CHECK(back.status == SkuStatus::settled);
    CHECK(back.status_reasons.empty());
}

TEST_CASE("the answer is for the pool the hosts' reports were made for, and says so") {
    auto runs = unwarned_runs(3);
    for (auto& r : runs)
        r.report["boot_pool"] = {
            {"pages", 4096}, {"page_size_kb", 2048}, {"source", "--boot-pages"}};
    const SkuAnswer a = answer_sku(runs, settle_options());
    CHECK(a.pool.pages == 4096);
    CHECK(a.pool.source == "hosts' reports (--boot-pages)");
    CHECK(a.pool.hosts == 3);
    CHECK(a.pool.other_hosts == 0);
    CHECK(a.recommendation.pool_pages == 4096);
    const SkuAnswer reference = answer_sku(unwarned_runs(3), settle_options());
    CHECK(reference.pool.pages == 100000);  // the fixed sweep's command line
    CHECK(a.recommendation.predicted_seconds < reference.recommendation.predicted_seconds / 20);
    // One host of another pool: the most hosts' pool, the other one counted.
    runs[2].report["boot_pool"]["pages"] = 8192;
    const SkuAnswer mixed = answer_sku(runs, settle_options());
    CHECK(mixed.pool.pages == 4096);
    CHECK(mixed.pool.other_hosts == 1);
    // The operator's pool wins and is named as the caller names the option.
    FleetOptions o = settle_options();
    o.boot_pages = 65536;
    o.words = hugetune::SettingWords([](std::string_view s) { return "<" + std::string(s) + ">"; });
    const SkuAnswer asked = answer_sku(runs, o);
    CHECK(asked.pool.pages == 65536);
    CHECK(asked.pool.source == "<boot_pages>");
    CHECK(asked.recommendation.pool_pages == 65536);
    const auto back = read_fleet_answer(to_json(fleet_answer(asked)));
    CHECK(back.pool.pages == 65536);
    CHECK(back.pool.source == "<boot_pages>");
}

TEST_CASE("a SKU whose decision a rule made is not settled, and the reason says which rule") {
    // Allocation alone lost in the zeroing (alloc no slower than zero at any count) with
    // init_on_alloc off: the grow phase's 1-thread time held flat, no curve decides.
    auto runs = unwarned_runs(3);
    for (auto& run : runs) {
        run.report["kernel"]["init_on_alloc"] = run.report["sku"]["init_on_alloc"] = false;
        std::map<double, json> zero;
        for (const auto& p : run.report["sweep"]["points"])
            if (p["phase"] == "zero")
                zero[p["threads_per_node"].get<double>()] = p["samples_seconds"];
        for (auto& p : run.report["sweep"]["points"])
            if (p["phase"] == "alloc")
                p["samples_seconds"] = zero.at(p["threads_per_node"].get<double>());
    }
    FleetOptions o = settle_options();
    o.min_hosts = 3;
    const SkuAnswer a = answer_sku(runs, o);
    INFO(a.status_reason);
    CHECK_FALSE(a.recommendation.decided_by_rule.empty());
    CHECK_FALSE(a.recommendation.confidence);
    REQUIRE(has_reason(a, SkuStatus::low_confidence));
    CHECK(a.status_reason.find("decided by rule, not by data") != std::string::npos);
}

TEST_CASE("a minority camp is not outliers: the answer is hosts_disagree, never settled") {
    // 9 hosts, and 7 whose alloc time is twice as long at 16 or more threads per node.
    for (const int campers : {7, 6, 3}) {
        CAPTURE(campers);
        auto runs = unwarned_runs(9 + campers);
        for (int i = 9; i < 9 + campers; ++i)
            scale_alloc_by(runs[static_cast<std::size_t>(i)],
                           [](double n) { return n >= 16 ? 2.0 : 1.0; });
        FleetOptions o = settle_options();
        o.min_confidence = 0;
        const SkuAnswer a = answer_sku(runs, o);
        INFO(a.status_reason);
        CHECK(a.status != SkuStatus::settled);
        REQUIRE(a.excluded.size() == static_cast<std::size_t>(campers));
        CHECK(has_reason(a, SkuStatus::hosts_disagree));
        CHECK(a.status_reason.find("a camp, not outliers") != std::string::npos);
    }
    // Hosts standing alone are outliers: left out, and the rest settle.
    auto runs = unwarned_runs(16);
    scale_alloc_by(runs[14], [](double) { return 3.0; });
    scale_alloc_by(runs[15], [](double) { return 1.0 / 3.0; });
    FleetOptions o = settle_options();
    o.min_confidence = 0;
    const SkuAnswer alone = answer_sku(runs, o);
    INFO(alone.status_reason);
    CHECK(alone.excluded.size() == 2);
    CHECK_FALSE(has_reason(alone, SkuStatus::hosts_disagree));
}

TEST_CASE("a camp split slower and faster is still a camp") {
    // 16 hosts, 2 three times slower and 2 three times faster: 4 hosts stand out, more than
    // kMaxOutliers, whichever way each does.
    auto runs = unwarned_runs(16);
    for (int i = 12; i < 14; ++i)
        scale_alloc_by(runs[static_cast<std::size_t>(i)], [](double) { return 3.0; });
    for (int i = 14; i < 16; ++i)
        scale_alloc_by(runs[static_cast<std::size_t>(i)], [](double) { return 1.0 / 3.0; });
    FleetOptions o = settle_options();
    o.min_confidence = 0;
    const SkuAnswer a = answer_sku(runs, o);
    INFO(a.status_reason);
    CHECK(a.excluded.size() == 4);
    CHECK(a.status != SkuStatus::settled);
    CHECK(has_reason(a, SkuStatus::hosts_disagree));
    CHECK(a.status_reason.find("4 of 16 hosts") != std::string::npos);
    CHECK(a.status_reason.find("a camp, not outliers") != std::string::npos);
}

TEST_CASE("camps of 3 to 8 of 16 hosts stay unsettled, whichever way they stand") {
    // The hostile camps of docs/fleet.md "Status": a camp that takes twice as long at 16 or
    // more threads per node, and one split three times slower and three times faster. Up to 7
    // the camp rule or the agreement factor names them. 8 of 16 slower at 16 and more agree with
    // the rest where the answer compares (4 per node): both halves pooled fit no curve well
    // (poor_fit), which keeps that one unsettled.
    for (const int campers : {3, 4, 5, 6, 7, 8}) {
        CAPTURE(campers);
        auto slower = unwarned_runs(16);
        auto split = unwarned_runs(16);
        for (int i = 16 - campers; i < 16; ++i) {
            scale_alloc_by(slower[static_cast<std::size_t>(i)],
                           [](double n) { return n >= 16 ? 2.0 : 1.0; });
            const double factor = i % 2 == 0 ? 3.0 : 1.0 / 3.0;
            scale_alloc_by(split[static_cast<std::size_t>(i)], [&](double) { return factor; });
        }
        FleetOptions o = settle_options();
        o.min_confidence = 0;
        for (const auto* runs : {&slower, &split}) {
            const SkuAnswer a = answer_sku(*runs, o);
            INFO(a.status_reason);
            CHECK(a.status != SkuStatus::settled);
            if (campers < 8 || runs == &split)
                CHECK(has_reason(a, SkuStatus::hosts_disagree));
            else
                CHECK(has_reason(a, SkuStatus::fit_warnings));
        }
    }
}

TEST_CASE("runs apply would refuse never enter the fit, however many a host has") {
    // 8 hosts: each one clean newest run, and 3 older runs on an older kernel carrying vm and
    // poor_fit whose alloc takes twice as long from 4 threads per node up.
    std::vector<FleetRun> clean, all;
    for (int i = 0; i < 8; ++i) {
        FleetRun newest_run = unwarned_run(i);
        newest_run.report["generated_at"] = "2026-08-01T00:00:00Z";
        newest_run.run_key = newest_run.host + "-clean";
        FleetRun stale = newest_run;
        stale.report = test::with_vm_and_poor_fit(stale.report);
        scale_alloc_by(stale, [](double n) { return n >= 4 ? 2.0 : 1.0; });
        stale.report["kernel"]["release"] = "6.1.0-older";
        for (auto& r : repeated(stale, newest_run.host, 3))
            all.push_back(std::move(r));
        all.push_back(newest_run);
        clean.push_back(newest_run);
    }
    FleetOptions o = settle_options();
    o.min_confidence = 0;
    const SkuAnswer from_clean = answer_sku(clean, o);
    const SkuAnswer a = answer_sku(all, o);
    INFO(a.status_reason);
    CHECK(a.runs == 32);
    CHECK(a.refused_runs == 24);
    CHECK(a.recommendation.hugepage_alloc_threads ==
          from_clean.recommendation.hugepage_alloc_threads);
    CHECK(a.recommendation.predicted_seconds ==
          doctest::Approx(from_clean.recommendation.predicted_seconds));
    REQUIRE(a.status == SkuStatus::settled);
    CHECK(from_clean.status == SkuStatus::settled);
    CHECK(a.status_reason.find("24 runs that apply would refuse left out of the fit") !=
          std::string::npos);
    // Accepted, they count again (each host's newest of the older kernel) and move the answer.
    o.accepted_warnings = {"vm", "poor_fit"};
    const SkuAnswer accepted = answer_sku(all, o);
    CHECK(accepted.refused_runs == 0);
    CHECK(accepted.superseded_runs == 16);
    CHECK(accepted.recommendation.predicted_seconds !=
          doctest::Approx(from_clean.recommendation.predicted_seconds));
}
