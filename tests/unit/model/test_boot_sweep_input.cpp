// A boot sweep's result read as a measured boot table, and what fit makes of it.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "model/boot_comparison.hpp"
#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"

using namespace hugetune::model;
using nlohmann::json;

namespace {

// Two nodes, 16 CPUs; the kernel's times at 2, 4, 8 and 16 threads in total, two boots each
// but the last unrecorded.
json boot_sweep_result() {
    json steps = json::array();
    const std::vector<std::pair<int, json>> ms = {{2, 41000},  {4, 21500},   {8, 12000},
                                                  {16, 11900}, {2, 40000},   {4, 21000},
                                                  {8, 12100},  {16, nullptr}};
    for (std::size_t i = 0; i < ms.size(); ++i)
        steps.push_back({{"threads", ms[i].first},
                         {"repetition", i < 4 ? 1 : 2},
                         {"milliseconds", ms[i].second}});
    return {{"format", "hugetune-boot-sweep"},
            {"format_version", 1},
            {"complete", false},
            {"kernel", {{"release", "6.15.3"}, {"online_cpus", 16}}},
            {"nodes", 2},
            {"page_size_kb", 2048},
            {"pages", 262144},
            {"init_on_alloc", nullptr},
            {"steps", steps}};
}

std::string error_of(const json& doc) {
    try {
        parse_boot_sweep_json(doc);
    } catch (const InputError& e) {
        return e.what();
    }
    FAIL("accepted: " << doc.dump());
    return {};
}

}  // namespace

TEST_CASE("boot sweep result: a boot table with threads per node over the result's nodes") {
    const SweepData data = parse_boot_sweep_json(boot_sweep_result());
    CHECK(data.source == "boot-sweep");
    CHECK_FALSE(data.complete);
    REQUIRE(data.phases.size() == 1);
    const PhaseSeries& boot = data.phases.front();
    CHECK(boot.phase == kPhaseBoot);
    REQUIRE(boot.points.size() == 7);  // the unrecorded step is left out
    CHECK(boot.points[0].threads_per_node == 1);
    CHECK(boot.points[0].seconds == doctest::Approx(41));
    CHECK(boot.points[3].threads_per_node == 8);
    CHECK(data.machine.nodes == 2);
    CHECK(data.machine.online_cpus == 16);
    CHECK(data.machine.boot_pool_pages == 262144);
    CHECK(data.page_size_kb == 2048);

    const Recommendation r = recommend_from_sweep(data, {});
    CHECK(r.basis == CostBasis::boot_table);
    CHECK(r.nodes == 2);
    CHECK(r.decision == Decision::set);
    CHECK(r.hugepage_alloc_threads >= 8);
}

TEST_CASE("boot sweep result: bad inputs name their field") {
    auto changed = [](const std::string& pointer, const json& value) {
        json doc = boot_sweep_result();
        doc[json::json_pointer(pointer)] = value;
        return doc;
    };
    CHECK(error_of(changed("/format_version", 2)).starts_with("format_version: 2 is not"));
    CHECK(error_of(changed("/nodes", 0)).starts_with("nodes: "));
    CHECK(error_of(changed("/steps/1/milliseconds", "fast")).starts_with("steps[1].milliseconds"));
    CHECK(error_of(changed("/steps/1/milliseconds", 0)).find("0 ms measures nothing") !=
          std::string::npos);
    CHECK(error_of(changed("/kernel/online_cpus", 1)).starts_with("kernel.online_cpus"));
    json two_counts = boot_sweep_result();
    two_counts["steps"] = json::array(
        {{{"threads", 2}, {"milliseconds", 10}}, {{"threads", 4}, {"milliseconds", 8}}});
    const SweepData two = parse_boot_sweep_json(two_counts);  // enough to compare, not to fit
    CHECK_THROWS_AS(check_enough_thread_counts(two.phases.front(), std::nullopt, {}), InputError);
}

namespace {

Recommendation zen4_recommendation() {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/tests/data/sweep-zen4-2node.json");
    REQUIRE(in);
    RecommendOptions o;
    o.resamples = 0;
    return recommend_from_sweep(parse_sweep_json(json::parse(in)), o);
}

}  // namespace

TEST_CASE("boot comparison: the recommendation's own predictions beside the measured boots") {
    const Recommendation r = zen4_recommendation();
    json doc = boot_sweep_result();
    doc["pages"] = static_cast<std::uint64_t>(r.pool_pages);
    const BootComparison c = compare_with_boots(r, parse_boot_sweep_json(doc));
    REQUIRE(c.rows.size() == 4);
    CHECK(c.rows[0].threads == 2);
    CHECK(c.rows[0].boots == 2);
    CHECK(c.rows[0].measured_seconds == doctest::Approx(40.5));
    CHECK(c.rows[3].boots == 1);
    for (const auto& row : c.rows) {
        // At the recommendation's own pool, the prediction is the one it made for that count.
        for (const Prediction& p : r.predictions)
            if (p.total_threads == row.threads)
                CHECK(row.predicted_seconds == doctest::Approx(p.seconds));
        CHECK(row.ratio == doctest::Approx(row.measured_seconds / row.predicted_seconds));
    }
    // The boot work grows with the pool: twice the pages, twice the predicted time.
    doc["pages"] = 2 * static_cast<std::uint64_t>(r.pool_pages);
    const BootComparison twice = compare_with_boots(r, parse_boot_sweep_json(doc));
    CHECK(twice.rows[1].predicted_seconds == doctest::Approx(2 * c.rows[1].predicted_seconds));
    CHECK(to_json(c)["rows"][0]["measured_ms"] == doctest::Approx(40500));

    doc["page_size_kb"] = 1048576;
    CHECK_THROWS_AS(compare_with_boots(r, parse_boot_sweep_json(doc)), InputError);
}
