// Every verification the database stored for a run is read, and each verified boot counts once
// (docs/fleet.md "Verified boots").
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "model/fleet/fleet.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;
using nlohmann::json;

namespace {

std::vector<FleetRun> host_copies(int hosts) {
    static const json report = test::fixed_report();
    std::vector<FleetRun> runs;
    for (int i = 0; i < hosts; ++i) {
        const std::string host = "host" + std::to_string(i);
        json r = report;
        r = test::as_host(r, host);
        runs.push_back({host, host + "-run", r});
    }
    return runs;
}

// As verify writes it, at one boot.
json verified_boot(const std::string& boot_id, double ratio) {
    const long long measured_ms = 10000;
    return {{"verified", true},
            {"measured_ms", measured_ms},
            {"threads", 8},
            {"pool_predicted_ms", static_cast<double>(measured_ms) / ratio},
            {"ratio", ratio},
            {"pool", {{"pages", 100000}, {"page_size_kb", 2048}, {"init_on_alloc", true}}},
            {"boot_id", boot_id},
            {"problems", json::array()}};
}

// As the database hands it back: read under its key.
FleetVerification stored(const std::string& key, json block) {
    return {key, read_stored_verification(std::move(block), key, "host0", {})};
}

FleetOptions quick_options() {
    FleetOptions o;
    o.recommend.resamples = 50;
    return o;
}

}  // namespace

TEST_CASE("a run's stored verifications are read after the report's own block") {
    auto runs = host_copies(1);
    runs[0].report["verification"] = verified_boot("boot-0", 1.0);
    runs[0].verifications = {stored("k:1", verified_boot("boot-1", 1.1)),
                             stored("k:2", verified_boot("boot-2", 1.2))};
    const RunFacts facts = read_stored_run(runs[0], {});
    REQUIRE(facts.verifications.size() == 3);
    CHECK(facts.verifications[0].boot_id == "boot-0");
    CHECK(facts.verifications[2].ratio == doctest::Approx(1.2));
}

TEST_CASE("each verified boot counts once, however often it was stored") {
    auto runs = host_copies(4);
    runs[0].verifications = {stored("a:1", verified_boot("boot-1", 1.4)),
                             stored("a:2", verified_boot("boot-2", 1.4))};
    CHECK(answer_sku(runs, quick_options()).verified_boots == 2);
    // The same boot again: in the report and stored, and stored against another run of the host.
    runs[0].report["verification"] = verified_boot("boot-1", 1.4);
    auto again = runs[0];
    again.run_key = "host0-rerun";
    again.report["generated_at"] = "2099-01-01T00:00:00Z";
    again.verifications = {stored("b:1", verified_boot("boot-2", 1.4))};
    runs.push_back(again);
    const SkuAnswer a = answer_sku(runs, quick_options());
    CHECK(a.verified_boots == 2);
    CHECK(a.verification_ratio == doctest::Approx(1.4));
    // A boot verified again is its last verification: the host's ratio is that one's.
    runs.back().verifications = {stored("b:1", verified_boot("boot-2", 3.0))};
    const auto checks = check_hosts(runs, quick_options());
    REQUIRE(checks.front().host == "host0");
    CHECK(checks.front().verification_ratio == doctest::Approx((1.4 + 3.0) / 2));
    CHECK(answer_sku(runs, quick_options()).verified_boots == 2);
}

TEST_CASE("a stored block the reader refuses names its key and how to forget it") {
    json bad = verified_boot("boot-1", 1.0);
    bad["ratio"] = 2.0;  // not measured_ms / pool_predicted_ms
    try {
        read_stored_verification(bad, "0123456789abcdef:fedcba9876543210", "host1",
                                 {"SKU s", "", true});
        FAIL("a refused block was read");
    } catch (const model::InputError& e) {
        CHECK(e.source().stored);
        CHECK(e.source().name ==
              "SKU s: verification 0123456789abcdef:fedcba9876543210 of host host1");
        const std::string what = e.what();
        CHECK(what.rfind("verification.ratio: is not measured_ms / pool_predicted_ms", 0) == 0);
        CHECK(what.find("hugetune fleet forget verification "
                        "0123456789abcdef:fedcba9876543210") != std::string::npos);
    }
}
