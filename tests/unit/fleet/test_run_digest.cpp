// A run's digest gives back the facts read_run makes of its report, and a SKU's answer from
// digests is the answer from reports, byte for byte (docs/fleet.md "Run digests").
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "model/fleet/fleet.hpp"
#include "model/fleet/run_digest.hpp"
#include "tests/support/fleet_generator.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;
using nlohmann::json;

namespace {

void check_series(const std::vector<model::PhaseSeries>& got,
                  const std::vector<model::PhaseSeries>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t s = 0; s < got.size(); ++s) {
        CHECK(got[s].phase == want[s].phase);
        CHECK(got[s].pages_per_node == want[s].pages_per_node);
        CHECK(got[s].host_ends == want[s].host_ends);
        REQUIRE(got[s].points.size() == want[s].points.size());
        for (std::size_t i = 0; i < got[s].points.size(); ++i) {
            // Bit for bit: an answer sums them in this order.
            CHECK(got[s].points[i].threads_per_node == want[s].points[i].threads_per_node);
            CHECK(got[s].points[i].seconds == want[s].points[i].seconds);
            CHECK(got[s].points[i].weight == want[s].points[i].weight);
        }
    }
}

void check_same_facts(const RunFacts& got, const RunFacts& want) {
    CHECK(got.host == want.host);
    CHECK(got.sku == want.sku);
    CHECK(got.generated_at == want.generated_at);
    CHECK(got.tool_version == want.tool_version);
    CHECK(got.kernel_release == want.kernel_release);
    CHECK(got.firmware == want.firmware);
    CHECK(got.hardware == want.hardware);
    CHECK(got.decision == want.decision);
    CHECK(got.hugepage_alloc_threads == want.hugepage_alloc_threads);
    CHECK(got.predicted_seconds == want.predicted_seconds);
    CHECK(got.saving_seconds == want.saving_seconds);
    CHECK(got.confidence == want.confidence);
    CHECK(got.warning_codes == want.warning_codes);
    CHECK(got.samples_digest == want.samples_digest);
    CHECK(got.boot_pool.has_value() == want.boot_pool.has_value());
    if (got.boot_pool && want.boot_pool) {
        CHECK(got.boot_pool->pages == want.boot_pool->pages);
        CHECK(got.boot_pool->page_size_kb == want.boot_pool->page_size_kb);
        CHECK(got.boot_pool->source == want.boot_pool->source);
    }
    CHECK(got.verifications.empty());  // the database keeps them apart
    const model::SweepData &a = got.sweep, &b = want.sweep;
    CHECK(a.source == b.source);
    CHECK(a.page_size_kb == b.page_size_kb);
    CHECK(a.seed == b.seed);
    CHECK(a.complete == b.complete);
    CHECK(a.notes == b.notes);
    CHECK(a.machine == b.machine);
    CHECK(a.boot_settings.empty());
    check_series(a.phases, b.phases);
    REQUIRE(a.hvo_pass.has_value() == b.hvo_pass.has_value());
    if (a.hvo_pass) {
        CHECK(a.hvo_pass->as_is == b.hvo_pass->as_is);
        CHECK(a.hvo_pass->flipped == b.hvo_pass->flipped);
        check_series(a.hvo_pass->phases, b.hvo_pass->phases);
    }
}

RunFacts round_trip(const RunFacts& facts) {
    const auto digest = run_digest(facts);
    REQUIRE(digest.has_value());
    const auto back = read_run_digest(*digest, {"digest"});
    REQUIRE(back.has_value());
    // Written again, the same text: nothing was lost or rounded on the way.
    CHECK(run_digest(*back) == digest);
    return *back;
}

}  // namespace

TEST_CASE("a run's digest gives back the facts of its report") {
    SUBCASE("the fixed report, with and without an HVO pass and a firmware block") {
        for (const bool breakdown : {false, true}) {
            json report = test::fixed_report(breakdown);
            report.erase("verification");
            const RunFacts facts = read_run(report);
            check_same_facts(round_trip(facts), facts);
        }
    }
    SUBCASE("a report with a hardware identity, and one whose probe found none") {
        json report = test::fixed_report();
        report.erase("verification");
        report["host"]["hardware_identity"] = {
            {"source", "dmi_product_uuid"},
            {"sha256", model::identity_hash(model::IdentitySource::dmi_product_uuid,
                                            "4c4c4544-0051-3010-8052-b4c04f4b4e32")}};
        const RunFacts facts = read_run(report);
        REQUIRE(facts.hardware);
        check_same_facts(round_trip(facts), facts);
        report["host"]["hardware_identity"] = {{"source", "none"}, {"reason", "no DMI table"}};
        check_same_facts(round_trip(read_run(report)), read_run(report));
    }
    SUBCASE("generated hosts, warned and not, with verification blocks left out") {
        test::FleetSpec spec;
        spec.hosts_per_sku = 4;
        spec.report_resamples = 20;
        for (const auto& [host, report] : test::generate_fleet(spec).reports) {
            CAPTURE(host);
            json stored = report;
            stored.erase("verification");
            const RunFacts facts = read_run(stored);
            check_same_facts(round_trip(facts), facts);
        }
    }
}

TEST_CASE("a digest of another version, or damaged, is not read") {
    json report = test::fixed_report();
    report.erase("verification");
    const std::string digest = *run_digest(read_run(report));
    json other = json::parse(digest);
    other["v"] = kRunDigestVersion + 1;
    CHECK_FALSE(read_run_digest(other.dump(), {}).has_value());
    CHECK_FALSE(read_run_digest(digest.substr(0, digest.size() / 2), {}).has_value());
    CHECK_FALSE(read_run_digest("[]", {}).has_value());
    json missing = json::parse(digest);
    missing["sweep"].erase("machine");
    CHECK_FALSE(read_run_digest(missing.dump(), {}).has_value());
    json short_series = json::parse(digest);
    short_series["sweep"]["phases"][0]["s"].erase(0);
    CHECK_FALSE(read_run_digest(short_series.dump(), {}).has_value());
}

TEST_CASE("digests read together, on several CPUs, are each one read alone, in order") {
    json report = test::fixed_report();
    report.erase("verification");
    const std::string digest = *run_digest(read_run(report));
    std::vector<std::string> texts;
    for (int i = 0; i < 1500; ++i) {  // enough for every CPU to take a share
        json changed = json::parse(digest);
        changed["host"] = "host" + std::to_string(i);
        texts.push_back(i % 7 == 3 ? std::string("[]") : changed.dump());
    }
    const auto all = read_run_digests(texts, {"digests"});
    REQUIRE(all.size() == texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const auto one = read_run_digest(texts[i], {"digests"});
        REQUIRE(all[i].has_value() == one.has_value());
        if (one)
            check_same_facts(*all[i], *one);
    }
    CHECK(read_run_digests({}, {}).empty());
}

TEST_CASE("a SKU's answer from digests is its answer from reports, byte for byte") {
    test::FleetSpec spec;
    spec.skus = 2;
    spec.hosts_per_sku = 10;
    spec.report_resamples = 20;
    const auto fleet = test::generate_fleet(spec);
    FleetOptions options;
    options.recommend.resamples = 200;
    for (const auto& sku : fleet.skus) {
        const std::vector<FleetRun> runs = fleet.runs_of(sku);
        std::vector<FleetRun> digested;
        for (const FleetRun& run : runs) {
            json stored = run.report;
            FleetRun d{run.host, run.run_key, nullptr, run.verifications, {}};
            // As the database holds a run: the report's verification apart, as a stored block.
            if (stored.contains("verification")) {
                const std::string key = run.run_key + ":v";
                d.verifications.push_back(
                    {key, read_stored_verification(stored["verification"], key, run.host, {})});
                stored.erase("verification");
            }
            auto facts = read_run_digest(*run_digest(read_run(stored)), {});
            REQUIRE(facts.has_value());
            d.facts = std::make_shared<RunFacts>(std::move(*facts));
            digested.push_back(std::move(d));
        }
        CAPTURE(to_string(sku.key));
        CHECK(to_json(answer_sku(digested, options)).dump() ==
              to_json(answer_sku(runs, options)).dump());
        const auto checks = check_hosts(digested, options), want = check_hosts(runs, options);
        REQUIRE(checks.size() == want.size());
        for (std::size_t h = 0; h < checks.size(); ++h)
            CHECK(to_json(checks[h]).dump() == to_json(want[h]).dump());
    }
}
