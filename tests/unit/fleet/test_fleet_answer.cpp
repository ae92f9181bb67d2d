// A SKU's answer as its document: what the writer writes the reader reads back the same, and a
// kept answer that was damaged or edited is refused by the field at fault.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "model/documents/fleet_answer.hpp"
#include "model/fleet/fleet.hpp"
#include "model/fleet/host_runs.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using namespace hugetune::model::fleet;
using nlohmann::json;

namespace {

const FleetAnswer& computed_answer() {
    static const FleetAnswer answer = [] {
        std::vector<FleetRun> runs;
        for (int i = 0; i < 3; ++i) {
            json r = test::fixed_report();
            r = test::as_host(r, "host" + std::to_string(i));
            runs.push_back({"host" + std::to_string(i), "run" + std::to_string(i), r});
        }
        return fleet_answer(answer_sku(runs, FleetOptions{}));
    }();
    return answer;
}

// Three hosts' runs, and boots of kMinBootHosts hosts at the sweeps' answer and at a value
// faster than it by more than the tolerance: boots that settle the faster value.
struct SettlingFleet {
    std::vector<FleetRun> runs;
    std::vector<SkuBoot> boots;
    int faster = 0;
};

SettlingFleet settling_fleet() {
    SettlingFleet f;
    for (int i = 0; i < 3; ++i)
        f.runs.push_back({"host" + std::to_string(i), "run" + std::to_string(i),
                          test::as_host(test::fixed_report(), "host" + std::to_string(i))});
    const int recommended = static_cast<int>(computed_answer().hugepage_alloc_threads);
    f.faster = recommended > 1 ? recommended / 2 : 2;
    for (int h = 0; h < kMinBootHosts; ++h)
        for (const auto& [threads, ms] : {std::pair{recommended, 2000.0}, {f.faster, 1400.0}})
            f.boots.push_back({"b" + std::to_string(h), "6.15.3", threads, ms + h, 100000, false});
    return f;
}

std::string answer_refusal(const json& document) {
    try {
        read_fleet_answer(document, {"kept answer"});
    } catch (const model::InputError& e) {
        CHECK(e.source().name == "kept answer");
        return e.what();
    }
    return {};
}

}  // namespace

TEST_CASE("fleet answer: written and read back unchanged") {
    const FleetAnswer& a = computed_answer();
    const json written = to_json(a);
    const FleetAnswer back = read_fleet_answer(written);
    CHECK(to_json(back) == written);
    CHECK(back.sku == a.sku);
    CHECK(back.hosts == 3);
    CHECK(back.status == a.status);
    CHECK(back.decision == a.decision);
    CHECK(back.kernel_cmdline == a.kernel_cmdline);
    CHECK(written["sku"] == to_string(a.sku));
    // The fit is read as the value it was written from, not kept as text.
    REQUIRE(back.recommendation.has_value());
    CHECK(back.recommendation->hugepage_alloc_threads == a.recommendation->hugepage_alloc_threads);
    CHECK(back.recommendation->predictions.size() == a.recommendation->predictions.size());
    // A listing's answer, its fit not read: written as {} and read back as none.
    FleetAnswer listed = a;
    listed.recommendation.reset();
    const json listed_written = to_json(listed);
    CHECK(listed_written["recommendation"] == json::object());
    CHECK_FALSE(read_fleet_answer(listed_written).recommendation.has_value());
    CHECK(to_json(read_fleet_answer(listed_written)) == listed_written);
}

TEST_CASE("fleet answer: each damaged field is refused by its path") {
    const json good = to_json(computed_answer());
    REQUIRE(answer_refusal(good).empty());
    const auto refused = [&](const char* key, const json& value, const std::string& message) {
        json doc = good;
        if (value.is_discarded())
            doc.erase(key);
        else
            doc[key] = value;
        CAPTURE(key);
        CHECK(answer_refusal(doc).rfind(message, 0) == 0);
    };
    const json gone = json(json::value_t::discarded);
    refused("hosts", gone, "hosts: missing");
    refused("hosts", -1, "hosts: must be a whole number from 0");
    refused("sku", "zen4/9n/1t/1g/2048k", "sku: 'zen4/9n/1t/1g/2048k' is not");
    refused("status", "fine", "status: 'fine' is not one of settled");
    refused("decision", "maybe", "decision: 'maybe' is not one of set, keep_default");
    refused("hugepage_alloc_threads", 5000,
            "hugepage_alloc_threads: must be a whole number from 1");
    refused("kernel_cmdline", "hugepage_alloc_threads=7 init=/bin/sh", "kernel_cmdline: '");
    refused("confidence", 1.5, "confidence: must be from 0 to 1");
    refused("predicted_seconds", -1, "predicted_seconds: must be at least 0");
    refused("recommendation", gone, "recommendation: missing");
    // The fit is read by the fit's reader, which names the field by its path.
    json damaged_fit = good["recommendation"];
    damaged_fit["warnings"] = json::array({{{"message", "a warning without its code"}}});
    refused("recommendation", damaged_fit, "recommendation.warnings[0].code: missing");
    CHECK(answer_refusal(json::array()).rfind("document: must be an object", 0) == 0);
}

TEST_CASE("fleet answer: boots that settle a value are written, read back and held to the status") {
    const auto [runs, boots, faster] = settling_fleet();
    const FleetAnswer a = fleet_answer(answer_sku(runs, FleetOptions{}, {}, tally_boots(boots)));
    REQUIRE(a.boots.has_value());
    CHECK(a.status == SkuStatus::settled_by_boots);
    CHECK(a.hugepage_alloc_threads == static_cast<std::uint64_t>(faster));
    CHECK(a.kernel_cmdline == "hugepage_alloc_threads=" + std::to_string(faster));
    CHECK(a.status_reasons.empty());
    CHECK(a.boots->calibration.has_value());  // the sweeps' curve predicts every value booted
    const json written = to_json(a);
    CHECK(to_json(read_fleet_answer(written)) == written);
    // An edited kept answer whose status and boots disagree is refused.
    json edited = written;
    edited["status"] = "settled";
    CHECK(answer_refusal(edited).rfind("status: 'settled' is not what boots say", 0) == 0);
    edited = written;
    edited["boots"]["decided"] = nullptr;
    CHECK(answer_refusal(edited).rfind("status: 'settled_by_boots' is not what boots say", 0) == 0);
    edited = written;
    edited["boots"]["values"][0]["threads"] = 0;
    CHECK(answer_refusal(edited).rfind("boots.values[0].threads: must be a whole number from 1",
                                       0) == 0);
}

TEST_CASE("fleet answer: boots asked for once, after the fit, give the answer the tally gives") {
    // The database tallies a SKU's boots while the answer fits its runs (cli's answer_of_sku):
    // the answer asks for them once, and gives what it gives with the tally handed over whole.
    const SettlingFleet fleet = settling_fleet();
    const std::vector<FleetRun>& runs = fleet.runs;
    const BootTally tally = tally_boots(fleet.boots);
    FleetOptions quick;  // the boots need the calibration's bootstrap, not many of the fit's
    quick.recommend.resamples = 50;
    const json whole = to_json(fleet_answer(answer_sku(runs, quick, {}, tally)));
    int asked = 0;
    const SkuAnswer later = answer_sku(read_host_runs(runs, {}), quick, {}, [&]() -> BootTally {
        ++asked;
        return tally;
    });
    CHECK(asked == 1);
    CHECK(later.status == SkuStatus::settled_by_boots);
    CHECK(to_json(fleet_answer(later)) == whole);
    // A tally that fails fails the answer with its own error.
    CHECK_THROWS_WITH(answer_sku(read_host_runs(runs, {}), quick, {},
                                 []() -> BootTally { throw std::runtime_error("tally failed"); }),
                      "tally failed");
}
