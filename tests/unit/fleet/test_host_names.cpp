// The host-name rule (docs/fleet.md): which names are stored, how two names are one host, and
// one machine's samples under two names counted once.
#include <doctest/doctest.h>

#include "model/fleet/fleet.hpp"
#include "model/fleet/host_name.hpp"
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
