// A boot sweep's result read as a measured boot table, and what fit makes of it.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "model/boot_comparison.hpp"
#include "model/documents/boot_comparison.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
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
    CHECK(c.rows[0].measured_ms == doctest::Approx(40500));
    CHECK(c.rows[3].boots == 1);
    for (const auto& row : c.rows) {
        // At the recommendation's own pool, the prediction is the one it made for that count.
        for (const Prediction& p : r.predictions)
            if (p.total_threads == row.threads)
                CHECK(row.predicted_ms == doctest::Approx(p.seconds * 1000));
        CHECK(row.ratio == doctest::Approx(row.measured_ms / row.predicted_ms));
    }
    // The boot work grows with the pool: twice the pages, twice the predicted time.
    doc["pages"] = 2 * static_cast<std::uint64_t>(r.pool_pages);
    const BootComparison twice = compare_with_boots(r, parse_boot_sweep_json(doc));
    CHECK(twice.rows[1].predicted_ms == doctest::Approx(2 * c.rows[1].predicted_ms));
    CHECK(to_json(c)["rows"][0]["measured_ms"] == doctest::Approx(40500));
    // The report's block read back is the comparison again, written the same.
    const BootComparison back = read_boot_comparison(JsonField(to_json(c)));
    CHECK(to_json(back).dump() == to_json(c).dump());
    REQUIRE(back.rows.size() == c.rows.size());
    CHECK(back.rows[3].boots == 1);
    // A damaged block is refused by the member at fault.
    json damaged = to_json(c);
    damaged["rows"][1]["measured_ms"] = -1;
    CHECK_THROWS_WITH_AS(read_boot_comparison(JsonField(damaged)),
                         doctest::Contains("rows[1].measured_ms"), InputError);

    doc["page_size_kb"] = 1048576;
    CHECK_THROWS_AS(compare_with_boots(r, parse_boot_sweep_json(doc)), InputError);
}

TEST_CASE("boot comparison: the report's block read back holds every row, written the same") {
    BootComparison c;
    c.pages = 4096;
    c.page_size_kb = 2048;
    c.kernel_release = "6.15.0";
    c.init_on_alloc = true;
    c.rows.push_back({4, 3, 812.25, 790.5, 812.25 / 790.5});
    BootWhatIfRow predicted;
    predicted.parameter = "init_on_alloc";
    predicted.value = "0";
    predicted.threads = 4;
    predicted.recommended = true;
    predicted.boots = 2;
    predicted.measured_ms = 401.125;
    predicted.predicted = PredictedMs{380.0625, 350.5, std::nullopt};
    predicted.ratio = 401.125 / 380.0625;
    predicted.note = "from the zero phase";
    BootWhatIfRow both = predicted;
    both.parameter = "";
    both.value = "";
    both.recommended = false;
    both.predicted.reset();
    both.ratio.reset();
    both.note = "init_on_alloc and HVO both differ from the sweep's; each what-if row changes one";
    c.what_if = {predicted, both};
    c.unmatched.push_back(
        "init_on_alloc 0, HVO on: not compared (no sweep to predict the setting "
        "from)");
    const json written = to_json(c);
    const BootComparison back = read_boot_comparison(JsonField(written));
    CHECK(to_json(back).dump() == written.dump());
    REQUIRE(back.what_if.size() == 2);
    REQUIRE(back.what_if[0].predicted.has_value());
    CHECK(back.what_if[0].predicted->low_ms == 350.5);
    CHECK_FALSE(back.what_if[0].predicted->high_ms);
    CHECK_FALSE(back.what_if[1].predicted);
    CHECK(back.init_on_alloc == true);
    CHECK_FALSE(back.hvo);
    CHECK(back.unmatched == c.unmatched);
}
