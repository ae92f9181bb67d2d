// The host-name rule (docs/fleet.md): which names are stored, how two names are one host, one
// machine's samples under two names counted once, and two machines under one name two hosts.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "model/fleet/fleet.hpp"
#include "model/fleet/host_name.hpp"
#include "model/fleet/same_samples.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;
using nlohmann::json;

namespace {

const json& unwarned_report() {
    static const json report = test::bare_metal(test::fixed_report());
    return report;
}

// The same report stored under `host`: only the name differs, the samples are the same bits.
FleetRun renamed(const std::string& host) {
    json r = unwarned_report();
    r["host"]["hostname"] = host;
    return {host, host + "-run", r};
}

// A machine of its own: its samples differ from every other's.
FleetRun own_machine(const std::string& host) {
    return {host, host + "-run", test::as_host(unwarned_report(), host)};
}

// The same report stored under `host`, every sample times 1 + `share`: a copy, its numbers
// nudged.
FleetRun nudged(const std::string& host, double share) {
    json r = unwarned_report();
    r["host"]["hostname"] = host;
    for (auto& point : r["sweep"]["points"])
        for (auto& sample : point["samples_seconds"])
            sample = sample.get<double>() * (1 + share);
    return {host, host + "-run", r};
}

// A run of `host` at `time` measured on `machine` (its own samples), whose probe read the machine
// ID `machine_id` (none when empty).
FleetRun run_on(const std::string& host, const std::string& machine, const std::string& time,
                const std::string& machine_id) {
    json r = test::as_host(unwarned_report(), machine);
    r["host"]["hostname"] = host;
    r["generated_at"] = time;
    if (!machine_id.empty())
        r["host"]["hardware_identity"] = {
            {"source", "machine_id"},
            {"sha256", model::identity_hash(model::IdentitySource::machine_id, machine_id)}};
    return {host, host + "-" + time, r};
}

constexpr const char* kFirstId = "5f2c1e0b9a7d4c3e8b6a0f1d2e3c4b5a";
constexpr const char* kSecondId = "9e4d3c2b1a0f4e5d8c7b6a5f4e3d2c1b";

FleetOptions quick() {
    FleetOptions o;
    o.recommend.resamples = 50;
    return o;
}

}  // namespace

TEST_CASE("host names: DNS names are taken, compared without case and trailing dot") {
    for (const char* good :
         {"web-17", "WEB-17", "web-17.", "web-17.example.com", "10.0.0.1", "build_box", "a"})
        CHECK_MESSAGE(!host_name_problem(good), good);
    CHECK(canonical_host_name("WEB-17") == "web-17");
    CHECK(canonical_host_name("web-17.") == "web-17");
    CHECK(canonical_host_name("Web-17.Example.COM.") == "web-17.example.com");
    CHECK(first_label("web-17.example.com") == "web-17");
    CHECK(first_label("web-17") == "web-17");

    CHECK(host_name_problem("[list]")->find("'['") != std::string::npos);
    for (const char* bad : {"[list]", "web 17", "web:17", "a..b", ".a", "-web", "web-", "a.-b", ".",
                            "", "web/17", "wéb"})
        CHECK_MESSAGE(host_name_problem(bad), bad);
    const std::string label63(kMaxHostLabelChars, 'a');
    CHECK(!host_name_problem(label63));
    CHECK(host_name_problem(label63 + "a"));
    std::string name253;
    while (name253.size() + 2 <= kMaxHostNameChars)
        name253 += name253.empty() ? "a" : ".a";
    REQUIRE(name253.size() == kMaxHostNameChars);
    CHECK(!host_name_problem(name253));
    CHECK(!host_name_problem(name253 + "."));
    CHECK(host_name_problem(name253 + "c"));
}

// Ansible takes a pattern that is both a host's and a group's name for the host: a host named
// "all" would be the one target of a play for every host.
TEST_CASE("host names: the names of Ansible's groups and of the export's groups are refused") {
    for (const char* bad : {"all", "ALL", "all.", "ungrouped", "Ungrouped", "hugetune_",
                            "hugetune_zen4_2n_32t_64g_2048k_ioa1", "HUGETUNE_zen4"})
        CHECK_MESSAGE(host_name_problem(bad), bad);
    CHECK(host_name_problem("all")->find("Ansible's group 'all'") != std::string::npos);
    CHECK(host_name_problem("hugetune_x")->find("'hugetune_'") != std::string::npos);
    // No group name holds a dot or a '-'.
    for (const char* good : {"all.example.com", "all-1", "allhosts", "hugetune_x.example.com",
                             "hugetune-x", "web.hugetune_x"})
        CHECK_MESSAGE(!host_name_problem(good), good);
}

TEST_CASE("one report under a short name and its FQDN is one host: not enough for min hosts") {
    // Stored as ingest stores them: web-17 and WEB-17 are one name; the FQDN is the other.
    const std::vector<FleetRun> runs = {renamed("web-17"), renamed("web-17.example.com")};
    const SkuAnswer a = answer_sku(runs, quick());
    CHECK(a.hosts == 1);
    CHECK(a.runs == 1);
    CHECK(a.status == SkuStatus::needs_more_hosts);
    const auto checks = check_hosts(runs, quick());
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].host == "web-17.example.com");
    REQUIRE(checks[0].same_machine.size() == 1);
    CHECK(checks[0].same_machine[0].host == "web-17");
}

TEST_CASE("identical samples under unrelated names are one machine, counted once") {
    std::vector<FleetRun> runs = {renamed("alpha"), renamed("omega"), own_machine("beta")};
    const SkuAnswer a = answer_sku(runs, quick());
    CHECK(a.hosts == 2);
    CHECK(a.status == SkuStatus::needs_more_hosts);
    const auto checks = check_hosts(runs, quick());
    REQUIRE(checks.size() == 2);
    CHECK(checks[0].host == "alpha");
    REQUIRE(checks[0].same_machine.size() == 1);
    CHECK(checks[0].same_machine[0].host == "omega");
    CHECK(checks[0].same_machine[0].reason.find("same samples") != std::string::npos);
    CHECK(checks[1].host == "beta");
    CHECK(checks[1].same_machine.empty());
    const json j = to_json(checks[0]);
    CHECK(j["same_machine"][0]["host"] == "omega");

    // Three machines of their own settle where the three names of one machine do not.
    runs.push_back(own_machine("gamma"));
    CHECK(answer_sku(runs, quick()).hosts == 3);
}

TEST_CASE("a short name of two stored names is judged apart and left out of the fit") {
    const std::vector<FleetRun> runs = {own_machine("web-17"), own_machine("web-17.a.example"),
                                        own_machine("web-17.b.example"), own_machine("web-18")};
    const auto checks = check_hosts(runs, quick());
    REQUIRE(checks.size() == 4);
    const auto& short_name = checks[0];
    CHECK(short_name.host == "web-17");
    CHECK(short_name.outlier);
    REQUIRE(!short_name.reasons.empty());
    CHECK(short_name.reasons[0].find("web-17.a.example, web-17.b.example") != std::string::npos);
    const SkuAnswer a = answer_sku(runs, quick());
    REQUIRE(a.excluded.size() == 1);
    CHECK(a.excluded[0].host == "web-17");
}

TEST_CASE("one report nudged by a part in 10^12 or 10^9 under three names is one machine") {
    for (const double share : {1e-12, 1e-9}) {
        CAPTURE(share);
        std::vector<FleetRun> runs = {renamed("alpha"), nudged("beta", share),
                                      nudged("gamma", -share)};
        FleetOptions o = quick();
        o.min_hosts = 3;
        const SkuAnswer a = answer_sku(runs, o);
        CHECK(a.hosts == 1);
        CHECK(a.runs == 1);
        CHECK(a.status == SkuStatus::needs_more_hosts);
        const auto checks = check_hosts(runs, o);
        REQUIRE(checks.size() == 1);
        CHECK(checks[0].host == "alpha");
        REQUIRE(checks[0].same_machine.size() == 2);
        CHECK(checks[0].same_machine[0].host == "beta");
        CHECK(checks[0].same_machine[1].host == "gamma");
        CHECK(checks[0].same_machine[0].reason.find("each within a part in a million") !=
              std::string::npos);

        // Two machines of their own (as_host: samples apart by parts in 1,000) are two more.
        runs.push_back(own_machine("delta"));
        runs.push_back(own_machine("epsilon"));
        CHECK(answer_sku(runs, o).hosts == 3);
    }
}

TEST_CASE("one report with only its first sample nudged, under two names, is one machine") {
    FleetRun copy = renamed("beta");
    auto& first = copy.report["sweep"]["points"][0]["samples_seconds"][0];
    first = first.get<double>() * (1 + 1e-12);
    const SkuAnswer a = answer_sku({renamed("alpha"), copy}, quick());
    CHECK(a.hosts == 1);
}

namespace {

// A run of one alloc series, its samples at 1, 2 and 4 threads per node.
RunFacts run_of(const std::vector<std::pair<double, double>>& samples) {
    RunFacts run;
    model::PhaseSeries alloc;
    alloc.phase = "alloc";
    alloc.pages_per_node = 512;
    for (const auto& [threads, seconds] : samples)
        alloc.points.push_back({threads, seconds});
    run.sweep.phases.push_back(alloc);
    return run;
}

}  // namespace

TEST_CASE("same samples: every sample within a part in a million, the same counts, any order") {
    const RunFacts a = run_of({{1, 0.4}, {1, 0.41}, {2, 0.25}, {4, 0.2}});
    CHECK(same_samples(a, a));
    CHECK(same_samples(a, run_of({{1, 0.4 * (1 + 9e-7)}, {1, 0.41}, {2, 0.25}, {4, 0.2}})));
    // One sample moved by 2 parts in a million: two measurements.
    CHECK_FALSE(same_samples(a, run_of({{1, 0.4 * (1 + 2e-6)}, {1, 0.41}, {2, 0.25}, {4, 0.2}})));
    // A count's repetitions in another order are the same samples.
    CHECK(same_samples(a, run_of({{1, 0.41}, {2, 0.25}, {1, 0.4}, {4, 0.2}})));
    // A sample left out, or counted at another thread count, is another sweep.
    CHECK_FALSE(same_samples(a, run_of({{1, 0.4}, {2, 0.25}, {4, 0.2}})));
    CHECK_FALSE(same_samples(a, run_of({{1, 0.4}, {1, 0.41}, {2, 0.25}, {8, 0.2}})));
    RunFacts other_pages = a;
    other_pages.sweep.phases[0].pages_per_node = 1024;
    CHECK_FALSE(same_samples(a, other_pages));
}

TEST_CASE("the samples index finds a copy whose sum lies in the neighbouring cell") {
    // Sums just below a cell's edge (cells 2e-6 wide in log of the sum), the copy's just above
    // and the reverse: a lookup reads the neighbouring cells too.
    for (const double side : {-1.0, 1.0}) {
        const double edge = std::floor(std::log(1.05) / 2e-6) * 2e-6;
        const double sum = std::exp(edge - side * 2e-7);
        const RunFacts a = run_of({{1, sum * 0.5}, {2, sum * 0.3}, {4, sum * 0.2}});
        const double move = 1 + side * 4e-7;
        const RunFacts copy =
            run_of({{1, sum * 0.5 * move}, {2, sum * 0.3 * move}, {4, sum * 0.2 * move}});
        std::vector<HostRuns> hosts(1);
        hosts[0].runs.push_back(a);
        SameSamplesIndex index;
        index.add(a, {0, 0});
        const auto found = index.find(copy, hosts);
        REQUIRE(found);
        CHECK(found->host == 0);
        CHECK_FALSE(index.find(run_of({{1, sum * 0.5}, {2, sum * 0.31}, {4, sum * 0.19}}), hosts));
    }
}

TEST_CASE("a name whose runs carry two hardware identities is two hosts, the later named apart") {
    // web-17's machine was replaced between its first and second runs; its third run, from a
    // hugetune of before the identity, joins the name. Given in no order of time.
    const std::vector<FleetRun> runs = {
        run_on("web-17", "new-board", "2026-12-02T10:00:00Z", kSecondId),
        run_on("web-17", "old-board", "2026-12-01T10:00:00Z", kFirstId),
        run_on("web-17", "unknown", "2026-12-03T10:00:00Z", ""), own_machine("beta")};
    const auto checks = check_hosts(runs, quick());
    REQUIRE(checks.size() == 3);
    CHECK(checks[0].host == "beta");
    CHECK_FALSE(checks[0].new_hardware);
    CHECK(checks[1].host == "web-17");
    CHECK(checks[1].runs == 2);
    CHECK_FALSE(checks[1].new_hardware);
    const HostCheck& later = checks[2];
    CHECK(later.host == "web-17 (hardware 2)");
    CHECK(later.runs == 1);
    CHECK_FALSE(later.outlier);
    REQUIRE(later.new_hardware);
    CHECK(later.new_hardware->host == "web-17");
    CHECK(later.new_hardware->since == "2026-12-02T10:00:00Z");
    CHECK(new_hardware_text(*later.new_hardware) ==
          "hardware identity changed at the run of 2026-12-02T10:00:00Z (another machine_id than "
          "web-17's first runs): counted as a new host, apart from web-17");
    const json j = to_json(later);
    CHECK(j["new_hardware"]["host"] == "web-17");
    CHECK(j["new_hardware"]["since"] == "2026-12-02T10:00:00Z");
    CHECK(j["new_hardware"]["source"] == "machine_id");
    CHECK(to_json(checks[1])["new_hardware"].is_null());
    // The answer counts three hosts: web-17's two machines and beta.
    CHECK(answer_sku(runs, quick()).hosts == 3);
}

TEST_CASE("one identity under a name keeps one host; another source is another identity") {
    const std::vector<FleetRun> same = {
        run_on("web-17", "board", "2026-12-01T10:00:00Z", kFirstId),
        run_on("web-17", "board-again", "2026-12-02T10:00:00Z", kFirstId)};
    const auto one = check_hosts(same, quick());
    REQUIRE(one.size() == 1);
    CHECK(one[0].runs == 2);
    // The DMI table read where the machine ID was before: the fleet cannot tell it from
    // another machine, and says which sources it compared.
    std::vector<FleetRun> runs = same;
    runs[1].report["host"]["hardware_identity"] = {
        {"source", "dmi_product_uuid"},
        {"sha256", model::identity_hash(model::IdentitySource::dmi_product_uuid,
                                        "4c4c4544-0051-3010-8052-b4c04f4b4e32")}};
    const auto two = check_hosts(runs, quick());
    REQUIRE(two.size() == 2);
    REQUIRE(two[1].new_hardware);
    CHECK(new_hardware_text(*two[1].new_hardware)
              .starts_with("hardware identity changed at the run of 2026-12-02T10:00:00Z "
                           "(dmi_product_uuid, where web-17's first runs had machine_id): "));
}

TEST_CASE("a report renamed to another host's name is that machine's, not the name's") {
    // beta's report saved again as web-17: its identity is beta's, not web-17's, so it leaves
    // web-17's host, and its samples make it beta's run, counted once.
    FleetRun renamed_beta = run_on("beta", "beta", "2026-12-02T10:00:00Z", kSecondId);
    renamed_beta.host = "web-17";
    renamed_beta.report["host"]["hostname"] = "web-17";
    const std::vector<FleetRun> runs = {
        run_on("web-17", "web-17", "2026-12-01T10:00:00Z", kFirstId),
        run_on("beta", "beta", "2026-12-02T10:00:00Z", kSecondId), renamed_beta};
    const auto checks = check_hosts(runs, quick());
    REQUIRE(checks.size() == 2);
    CHECK(checks[0].host == "beta");
    CHECK(checks[0].runs == 1);
    REQUIRE(checks[0].same_machine.size() == 1);
    CHECK(checks[0].same_machine[0].host == "web-17 (hardware 2)");
    CHECK(checks[1].host == "web-17");
    CHECK(checks[1].runs == 1);
    CHECK(answer_sku(runs, quick()).hosts == 2);
}

TEST_CASE("one identity under two names stays two hosts: a clone or a placeholder is no rename") {
    const std::vector<FleetRun> runs = {run_on("alpha", "alpha", "2026-12-01T10:00:00Z", kFirstId),
                                        run_on("omega", "omega", "2026-12-02T10:00:00Z", kFirstId)};
    const auto checks = check_hosts(runs, quick());
    REQUIRE(checks.size() == 2);
    CHECK(checks[0].same_machine.empty());
    CHECK(checks[1].same_machine.empty());
    CHECK(answer_sku(runs, quick()).hosts == 2);
}
