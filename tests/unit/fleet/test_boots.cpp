// A SKU's recorded boots beside the sweeps' answer (model/fleet/boots.hpp): per value, each
// host's median first; the boots of the most common kernel family and HVO setting compared; a
// value decided only from two values or more with kMinBootHosts hosts each, the recommended one
// among them, faster beyond the tolerance.
#include <doctest/doctest.h>

#include <map>
#include <random>

#include "model/fit/resampling.hpp"
#include "model/fleet/boot_hosts.hpp"
#include "model/fleet/boots.hpp"
#include "model/fleet/fleet.hpp"
#include "model/fleet/host_runs.hpp"
#include "model/statistics.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune::model;
using namespace hugetune::model::fleet;

namespace {

// `hosts` hosts booting `threads` at `ms` (each host a little apart), twice each.
void add(std::vector<SkuBoot>& boots, int threads, double ms, int hosts,
         const std::string& kernel = "6.15.3", std::optional<bool> hvo = false) {
    for (int h = 0; h < hosts; ++h)
        for (int rep = 0; rep < 2; ++rep)
            boots.push_back(
                {"host-" + std::to_string(h), kernel, threads, ms + h + rep, 100000, hvo});
}

// A rule's answer (no curve: no prediction to calibrate or to check the boots against) on a
// SKU of 64 CPUs whose sweeps measured 1 to 32 threads on its one node.
Recommendation rule_decided() {
    Recommendation r;
    r.decided_by_rule = "flat";
    r.cpu_cap = 64;
    for (const int t : {1, 2, 4, 8, 16, 32})
        r.measured.push_back({static_cast<double>(t), t, 0, {}, {}});
    return r;
}

// The answer of three hosts' sweeps of the fixed report: a fitted curve with intervals.
Recommendation fitted() {
    std::vector<FleetRun> runs;
    for (int i = 0; i < 3; ++i)
        runs.push_back(
            {"host" + std::to_string(i), "run" + std::to_string(i),
             hugetune::test::as_host(hugetune::test::fixed_report(), "host" + std::to_string(i))});
    return answer_sku(runs, FleetOptions{}).recommendation;
}

// `hosts` hosts named PREFIX-0.. booting `threads` once each at `ms` for `pages` pages.
void add_named(std::vector<SkuBoot>& boots, const std::string& prefix, int threads, double ms,
               int hosts, std::uint64_t pages = 100000, const std::string& kernel = "6.15.3") {
    for (int h = 0; h < hosts; ++h)
        boots.push_back({prefix + "-" + std::to_string(h), kernel, threads, ms, pages, false});
}

}  // namespace

TEST_CASE("boots: none, nothing to say") {
    CHECK_FALSE(judge_boots(std::vector<SkuBoot>{}, rule_decided(), 8, 0.02).has_value());
}

TEST_CASE("boots: a faster value from enough hosts settles; the recommended value must be booted") {
    std::vector<SkuBoot> boots;
    add(boots, 8, 2000, 5);
    add(boots, 16, 1500, 5);
    const auto b = judge_boots(boots, rule_decided(), 8, 0.02);
    REQUIRE(b.has_value());
    CHECK(b->boots == 20);
    CHECK(b->hosts == 5);
    REQUIRE(b->values.size() == 2);
    CHECK(b->values[0].threads == 8);
    CHECK(b->values[0].boots == 10);
    CHECK(b->values[0].ms_per_1000_pages == doctest::Approx((2000 + 2 + 0.5) * 1000 / 100000.0));
    CHECK(b->decided == 16);
    CHECK(b->reason.find("settle on hugepage_alloc_threads=16") != std::string::npos);
    CHECK_FALSE(b->calibration.has_value());  // a rule decided: no curve to compare with
    // The recommended value booted by too few hosts: nothing decided, and said why.
    boots.clear();
    add(boots, 8, 2000, kMinBootHosts - 1);
    add(boots, 16, 1500, 5);
    add(boots, 32, 1700, 5);
    const auto few = judge_boots(boots, rule_decided(), 8, 0.02);
    CHECK_FALSE(few->decided.has_value());
    CHECK(few->reason.find("fewer than 5 hosts") != std::string::npos);
    // One value only.
    boots.clear();
    add(boots, 8, 2000, 9);
    CHECK_FALSE(judge_boots(boots, rule_decided(), 8, 0.02)->decided.has_value());
}

TEST_CASE("boots: the group compared is the one most hosts booted, not most records") {
    std::vector<SkuBoot> boots;
    add_named(boots, "a", 8, 2000, 30);
    // One host booting another kernel family 31 times.
    for (int i = 0; i < 31; ++i)
        boots.push_back({"a-0", "6.16.1", 16, 100.0 + i, 100000, false});
    const auto t = tally_boots(boots);
    REQUIRE(t.families.size() == 2);
    CHECK(t.families[0].kernel_family == "6.15");
    CHECK(t.families[0].hosts == 30);
    CHECK(t.families[1].hosts == 1);
    const auto b = judge_boots(t, rule_decided(), 8, 0.02);
    CHECK(b->kernel_family == "6.15");
    CHECK(b->hosts == 30);
    CHECK(b->other_boots == 31);
    // A host counts once in its family however many of the family's releases it booted.
    boots.clear();
    add_named(boots, "a", 8, 2000, 3, 100000, "6.15.3");
    for (int i = 0; i < 9; ++i)
        boots.push_back({"b", "6.16." + std::to_string(i), 8, 2000, 100000, false});
    CHECK(tally_boots(boots).compared.kernel_family == "6.15");
}

TEST_CASE("boots: values the CPUs cannot run or nobody asked for count for nothing") {
    std::vector<SkuBoot> boots;
    add_named(boots, "h", 8, 2000, 5);
    add_named(boots, "h", 4096, 0, 5);  // above the SKU's 64 CPUs
    add_named(boots, "h", 48, 100, 5);  // neither measured nor planned
    auto t = tally_boots(boots);
    auto b = judge_boots(t, rule_decided(), 8, 0.02);
    CHECK_FALSE(b->decided.has_value());
    CHECK_FALSE(b->disputed.has_value());
    CHECK(b->boots == 5);
    CHECK(b->refused_boots == 10);
    REQUIRE(b->refused.size() == 2);
    CHECK(b->refused[0].threads == 48);
    CHECK(b->refused[0].why == BootRefusal::not_asked);
    CHECK(b->refused[1].threads == 4096);
    CHECK(b->refused[1].why == BootRefusal::above_cpus);
    CHECK(b->refused[1].reason.find("64 CPUs cannot run") != std::string::npos);
    REQUIRE(b->values.size() == 1);
    // A canary plan that tried 48 asked for it: the same hosts booted both, so it settles.
    t.plan_values = {48};
    b = judge_boots(t, rule_decided(), 8, 0.02);
    CHECK(b->decided == 48);
    CHECK(b->paired_hosts == 5);
}

TEST_CASE("boots: a time no boot of the SKU can take counts for nothing") {
    const Recommendation r = fitted();
    REQUIRE(r.decided_by_rule.empty());
    const int rec = r.hugepage_alloc_threads;
    const double pages = 100000;
    const double predicted_ms = predict_boot_seconds(r, rec, pages) * 1000;
    std::vector<SkuBoot> boots;
    add_named(boots, "h", rec, predicted_ms, 5);
    add_named(boots, "g", rec, predicted_ms / 1000, 5);  // a thousand times faster than the curve
    const auto b = judge_boots(tally_boots(boots), r, rec, 0.02);
    CHECK(b->hosts == 5);
    CHECK(b->refused_boots == 5);
    REQUIRE(b->refused.size() == 1);
    CHECK(b->refused[0].why == BootRefusal::implausible);
    CHECK(*b->calibration == doctest::Approx(1.0).epsilon(0.01));
}

TEST_CASE(
    "boots: boots that overturn the sweeps beyond their interval settle only on paired hosts") {
    const Recommendation r = fitted();
    const int rec = r.hugepage_alloc_threads;
    // The value the sweeps predict slowest, beyond both intervals.
    const Prediction* slowest = nullptr;
    for (const auto& p : r.predictions)
        if (p.total_threads != rec && (!slowest || p.seconds > slowest->seconds))
            slowest = &p;
    REQUIRE(slowest != nullptr);
    const Prediction* at_rec = nullptr;
    for (const auto& p : r.predictions)
        if (p.total_threads == rec)
            at_rec = &p;
    REQUIRE(at_rec != nullptr);
    REQUIRE(slowest->seconds_low.value_or(slowest->seconds) >
            at_rec->seconds_high.value_or(at_rec->seconds));
    const int slow = slowest->total_threads;
    const double ms = predict_boot_seconds(r, rec, 100000) * 1000;
    // Five hosts at the recommended value, five others say the slow value is twice as fast.
    std::vector<SkuBoot> boots;
    add_named(boots, "a", rec, ms, 5);
    add_named(boots, "b", slow, ms / 2, 5);
    auto b = judge_boots(tally_boots(boots), r, rec, 0.02);
    CHECK_FALSE(b->decided.has_value());
    CHECK(b->disputed == slow);
    CHECK(b->paired_hosts == 0);
    CHECK(b->reason.find("the sweeps predict " + std::to_string(slow) + " slower") !=
          std::string::npos);
    // The same five hosts booting both values (a canary plan's): the boots settle.
    boots.clear();
    add_named(boots, "a", rec, ms, 5);
    add_named(boots, "a", slow, ms / 2, 5);
    b = judge_boots(tally_boots(boots), r, rec, 0.02);
    CHECK(b->decided == slow);
    CHECK_FALSE(b->disputed.has_value());
    CHECK(b->paired_hosts == 5);
    // Four paired hosts are not enough.
    boots.clear();
    add_named(boots, "a", rec, ms, 5);
    add_named(boots, "a", slow, ms / 2, 4);
    add_named(boots, "z", slow, ms / 2, 1);
    b = judge_boots(tally_boots(boots), r, rec, 0.02);
    CHECK(b->disputed == slow);
    CHECK(b->paired_hosts == 4);
}

TEST_CASE("boots: within the tolerance the recommended value stands") {
    std::vector<SkuBoot> boots;
    add(boots, 8, 2000, 6);
    add(boots, 16, 1980, 6);  // 1% faster, within 2%
    const auto b = judge_boots(boots, rule_decided(), 8, 0.02);
    CHECK_FALSE(b->decided.has_value());
    CHECK(b->reason.find("agree") != std::string::npos);
}

TEST_CASE("boots: one kernel family and HVO setting compared, the others counted apart") {
    std::vector<SkuBoot> boots;
    add(boots, 8, 2000, 5, "6.15.3");
    add(boots, 16, 1500, 5, "6.15.9-cloud");
    add(boots, 16, 900, 3, "6.16.1");        // another family: not compared
    add(boots, 16, 900, 2, "6.15.3", true);  // HVO on: not compared
    const auto b = judge_boots(boots, rule_decided(), 8, 0.02);
    CHECK(b->kernel_family == "6.15");
    CHECK(b->hvo == false);
    CHECK(b->boots == 20);
    CHECK(b->other_boots == 10);
    CHECK(b->decided == 16);
    CHECK(b->values[1].ms_per_1000_pages == doctest::Approx((1500 + 2 + 0.5) * 1000 / 100000.0));
}

TEST_CASE("boots: each host has one say, however often it booted") {
    std::vector<SkuBoot> boots;
    add(boots, 8, 2000, 5);
    add(boots, 16, 1500, 5);
    // One host boots 16 forty times, very slowly: its median is one of five.
    for (int i = 0; i < 40; ++i)
        boots.push_back({"host-0", "6.15.3", 16, 9000, 100000, false});
    const auto b = judge_boots(boots, rule_decided(), 8, 0.02);
    CHECK(b->values[1].hosts == 5);
    CHECK(b->decided == 16);
}

TEST_CASE("boots: the calibration's interval is the bootstrap of hosts, resample by resample") {
    const Recommendation r = fitted();
    REQUIRE(r.decided_by_rule.empty());
    // 301 hosts (an odd count), booting one to three times at two values of three, some twice at
    // one value: resamples of odd and even sizes.
    std::vector<SkuBoot> boots;
    std::mt19937_64 rng(5);
    for (int h = 0; h < 301; ++h)
        for (int b = 0; b < 1 + h % 3; ++b)
            boots.push_back({"h" + std::to_string(h), "6.15.3", 2 << (rng() % 3),
                             1000.0 + static_cast<double>(rng() % 500), 100000, false});
    const auto tally = tally_boots(boots);
    const auto judged = judge_boots(tally, r, 8, 0.02);
    REQUIRE(judged->calibration.has_value());
    // The bootstrap written out: each host's ratios (its median at each value over the
    // prediction there), hosts drawn with replacement, the median of each resample.
    std::map<std::string, std::vector<double>> by_host;
    std::map<int, double> pages(tally.pool_pages.begin(), tally.pool_pages.end());
    for (const auto& m : tally.host_medians)
        by_host[m.host].push_back(
            m.ms_per_1000_pages /
            (predict_boot_seconds(r, m.threads, pages[m.threads]) * 1e6 / pages[m.threads]));
    std::vector<const std::vector<double>*> hosts;
    std::vector<double> all;
    for (const auto& [host, ratios] : by_host) {
        hosts.push_back(&ratios);
        all.insert(all.end(), ratios.begin(), ratios.end());
    }
    Resampler draw(1);
    std::vector<double> medians;
    for (int i = 0; i < kCalibrationResamples; ++i) {
        std::vector<double> sample;
        for (std::size_t h = 0; h < hosts.size(); ++h) {
            const auto& ratios = *hosts[draw.index(hosts.size())];
            sample.insert(sample.end(), ratios.begin(), ratios.end());
        }
        medians.push_back(median(sample));
    }
    CHECK(*judged->calibration == median(all));
    CHECK(*judged->calibration_low == quantile(medians, 0.05));
    CHECK(*judged->calibration_high == quantile(medians, 0.95));
    CHECK(*judged->calibration_low < *judged->calibration_high);
}

TEST_CASE("boots: boots recorded in virtual machines count for nothing, unknown ones count") {
    // Five hosts at the recommended value, five more 25% faster at 16: settled by the boots,
    // unless the faster ones were recorded in virtual machines.
    std::vector<SkuBoot> boots;
    add_named(boots, "h", 8, 2000, 5);
    add_named(boots, "h", 16, 1500, 5);
    for (auto& b : boots)
        b.in_vm = b.threads == 16;
    auto b = judge_boots(boots, rule_decided(), 8, 0.02);
    REQUIRE(b.has_value());
    CHECK_FALSE(b->decided.has_value());
    CHECK(b->boots == 5);
    CHECK(b->hosts == 5);
    CHECK(b->refused_boots == 5);
    REQUIRE(b->refused.size() == 1);
    CHECK(b->refused[0].threads == 16);
    CHECK(b->refused[0].why == BootRefusal::virtual_machine);
    CHECK(b->refused[0].hosts == 5);
    CHECK(b->refused[0].boots == 5);
    CHECK(b->refused[0].reason.find("virtual machines") != std::string::npos);
    REQUIRE(b->values.size() == 1);
    CHECK(b->values[0].threads == 8);
    // Not in a group either: a flood of VM boots on another kernel moves nothing.
    for (int i = 0; i < 40; ++i)
        boots.push_back({"guest-x" + std::to_string(i), "6.16.1", 8, 100, 100000, false, {}, true});
    const auto t = tally_boots(boots);
    CHECK(t.compared.kernel_family == "6.15");
    CHECK(t.families.size() == 1);
    // Boots whose records do not say (before records said it) count as they did.
    for (auto& boot : boots)
        boot.in_vm = false;
    boots.resize(10);
    b = judge_boots(boots, rule_decided(), 8, 0.02);
    CHECK(b->decided == 16);
    CHECK(b->refused.empty());
}

TEST_CASE("boot hosts: a short name is its one FQDN's host, an FQDN its short report's") {
    const BootHosts hosts(std::vector<std::string>{"web-17.example.com", "db-1", "app-3.a.example",
                                                   "app-3.b.example"});
    const auto host_of = [&](const std::string& name) {
        const BootHost h = hosts.of(name);
        return h.kind == BootHost::Kind::host ? h.host : std::string();
    };
    CHECK(host_of("web-17.example.com") == "web-17.example.com");
    CHECK(host_of("web-17") == "web-17.example.com");
    CHECK(host_of("db-1") == "db-1");
    CHECK(host_of("db-1.example.com") == "db-1");
    CHECK(host_of("app-3.a.example") == "app-3.a.example");
    CHECK(hosts.of("app-3").kind == BootHost::Kind::ambiguous);
    // Another FQDN of a label an FQDN report has is another machine; names no report knows.
    CHECK(hosts.of("web-17.other.example").kind == BootHost::Kind::unknown);
    CHECK(hosts.of("app-3.c.example").kind == BootHost::Kind::unknown);
    CHECK(hosts.of("ghost").kind == BootHost::Kind::unknown);
    CHECK(hosts.of("web").kind == BootHost::Kind::unknown);
    CHECK(hosts.joined().empty());  // every report's name is its own host's
}

TEST_CASE("boot hosts: one machine booting under its short name and its FQDN has one vote") {
    // web-17.example.com boots as web-17 and under its FQDN (three boots, its median one vote);
    // app-3, which two FQDN reports begin with, is set aside as ambiguous, at no value.
    const BootHosts hosts(std::vector<std::string>{"web-17.example.com", "app-3.a.example",
                                                   "app-3.b.example", "db-1"});
    std::vector<SkuBoot> boots;
    boots.push_back({"web-17", "6.15.3", 8, 2000, 100000, false});
    boots.push_back({"web-17.example.com", "6.15.3", 8, 2100, 100000, false});
    boots.push_back({"web-17.example.com", "6.15.3", 8, 2600, 100000, false});
    boots.push_back({"db-1.example.com", "6.15.3", 8, 2000, 100000, false});
    boots.push_back({"app-3", "6.15.3", 8, 1000, 100000, false});
    boots.push_back({"app-3", "6.15.3", 16, 1000, 100000, false});
    boots.push_back({"ghost", "6.15.3", 8, 1000, 100000, false});
    const auto t = tally_boots(boots_of_hosts(boots, hosts));
    REQUIRE(t.host_medians.size() == 2);
    CHECK(t.host_medians[0].host == "db-1");
    CHECK(t.host_medians[1].host == "web-17.example.com");
    CHECK(t.host_medians[1].boots == 3);
    CHECK(t.host_medians[1].ms_per_1000_pages == 21.0);  // the median of its three boots
    REQUIRE(t.families.size() == 1);
    CHECK(t.families[0].hosts == 2);
    REQUIRE(t.groups.size() == 1);
    CHECK(t.groups[0].boots == 4);
    REQUIRE(t.ambiguous_boots.size() == 2);
    CHECK(t.ambiguous_boots[0].threads == 8);
    CHECK(t.ambiguous_boots[0].hosts == 1);
    CHECK(t.ambiguous_boots[0].boots == 1);
    const auto b = judge_boots(t, rule_decided(), 8, 0.02);
    REQUIRE(b.has_value());
    CHECK(b->hosts == 2);
    CHECK(b->boots == 4);
    CHECK(b->refused_boots == 2);
    REQUIRE(b->refused.size() == 2);
    CHECK(b->refused[0].why == BootRefusal::ambiguous_host);
    CHECK(b->refused[0].reason.find("short name") != std::string::npos);
}

TEST_CASE("boot hosts: hosts joined by their samples, or by a short report name, are one host") {
    // x and y carry the same samples (one machine reported under two names); web-17 is the
    // short name of web-17.example.com's report; app-3 that of two FQDN reports.
    const auto report = [](const std::string& host, const std::string& samples_of) {
        auto r = hugetune::test::as_host(hugetune::test::fixed_report(), samples_of);
        r["host"]["hostname"] = host;
        return FleetRun{host, host + "-run", r};
    };
    std::vector<FleetRun> runs = {report("x", "x"),
                                  report("y", "x"),
                                  report("web-17", "web-17"),
                                  report("web-17.example.com", "web-17.example.com"),
                                  report("app-3", "app-3"),
                                  report("app-3.a.example", "app-3.a.example"),
                                  report("app-3.b.example", "app-3.b.example")};
    const BootHosts hosts(read_host_runs(runs, InputSource("runs")));
    CHECK(hosts.of("y").host == "x");
    CHECK(hosts.of("web-17").host == "web-17.example.com");
    CHECK(hosts.of("app-3").kind == BootHost::Kind::ambiguous);
    CHECK(hosts.of("app-3.a.example").host == "app-3.a.example");
    using Joined = std::pair<std::string, std::optional<std::string>>;
    CHECK(hosts.joined() == std::vector<Joined>{{"app-3", std::nullopt},
                                                {"web-17", "web-17.example.com"},
                                                {"y", "x"}});
    std::vector<SkuBoot> boots;
    boots.push_back({"x", "6.15.3", 8, 2000, 100000, false});
    boots.push_back({"y", "6.15.3", 8, 3000, 100000, false});
    const auto t = tally_boots(boots_of_hosts(boots, hosts));
    REQUIRE(t.host_medians.size() == 1);
    CHECK(t.host_medians[0].host == "x");
    CHECK(t.host_medians[0].boots == 2);
}
