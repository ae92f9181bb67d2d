// The report against its shipped JSON Schema, and the warnings the report adds from a probe
// of fixture trees: tests that join the machine side with the reports.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"
#include "reports/report.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tests/unit/support/report_data.hpp"
#include "tests/unit/support/schema_check.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/system/process.hpp"

using namespace hugetune;
using hugetune::test::fixed_report;
using hugetune::test::fixture;
using hugetune::test::validate_json;

TEST_CASE("report: fixed data validate against the shipped schema") {
    auto report = fixed_report();
    CHECK(report["schema_version"] == kReportSchemaVersion);
    CHECK(report["generated_at"] == "2026-05-28T20:26:40Z");
    CHECK(report["sku"]["microarch"] == "zen4");
    CHECK(report["sku"]["nodes"] == 2);
    CHECK(report["sku"]["hardware_threads_per_node"] == 16);
    CHECK(report["sku"]["memory_per_node_gib"] == 64);
    CHECK(report["boot_pool"]["source"] == "cmdline");
    CHECK(report["boot_pool"]["pages"] == 100000);
    CHECK(report["model"]["alloc"]["name"] == "usl");
    CHECK(report["recommendation"]["kernel_cmdline"] ==
          "hugepage_alloc_threads=" +
              std::to_string(report["recommendation"]["hugepage_alloc_threads"].get<int>()));
    std::set<std::string> codes;
    for (const auto& w : report["warnings"])
        codes.insert(w["code"].get<std::string>());
    // The allocation is short at the default (4.47 s), so the default is kept, and every
    // resample agrees with that.
    CHECK(codes == std::set<std::string>{"oversubscribed"});
    CHECK(report["recommendation"]["decision"] == "keep_default");
    CHECK(report["recommendation"]["hugepage_alloc_threads"] ==
          report["recommendation"]["default_threads"]);

    auto r = validate_json("report.schema.json", report);
    REQUIRE_MESSAGE(r.exit_code != -1, "python3 with jsonschema is a test dependency");
    CHECK_MESSAGE(r.exit_code == 0, r.out << r.err);
}

namespace {

// The fit of the fixed sweep as measured on the machine `probe` describes: how the machine's
// facts reach a report (the model judges them).
nlohmann::json fit_on(const nlohmann::json& probe) {
    auto sweep = hugetune::test::fixed_sweep();
    sweep["probe"] = probe;
    model::RecommendOptions options;
    options.resamples = 50;
    return model::to_json(model::recommend_from_sweep(model::parse_sweep_json(sweep), options));
}

std::vector<std::string> codes_of(const std::vector<model::Warning>& warnings) {
    std::vector<std::string> codes;
    for (const auto& w : warnings)
        codes.push_back(w.code);
    return codes;
}

}  // namespace

TEST_CASE("report: a kernel before 6.15 and node-format hugepages= are warned about") {
    auto probe = to_json(probe_machine(KernelFs(fixture("zen4-2node"))));
    const auto codes = codes_of(collect_warnings(probe, nlohmann::json::object(), fit_on(probe)));
    REQUIRE(codes.size() >= 2);
    CHECK(std::vector(codes.begin(), codes.begin() + 2) ==
          std::vector<std::string>{"kernel_too_old", "node_format_hugepages"});
    // The probe alone adds neither: the model judges them, once.
    CHECK(collect_warnings(probe, nlohmann::json::object(), nlohmann::json::object()).empty());
}

TEST_CASE("report: warnings from the probe and the sweep, around the fit's") {
    auto probe = to_json(probe_machine(KernelFs(fixture("vm-1node"))));
    auto sweep = nlohmann::json::parse(R"({"points": [
        {"phase": "zero", "threads_per_node": 4, "median_seconds": 1.0,
         "samples_seconds": [0.7, 1.0, 1.1], "oversubscribed": true, "shortfall_pages": 2}]})");
    // The fit's machine warnings come first, whatever their place in the fit.
    auto fit = nlohmann::json::parse(R"({"recommendation": {"confidence": 0.5},
        "warnings": [{"code": "low_confidence", "message": "only 50% agree"},
                     {"code": "vm", "message": "measured in a virtual machine"},
                     {"code": "extrapolated", "message": "beyond"}]})");
    CHECK(codes_of(collect_warnings(probe, sweep, fit)) ==
          std::vector<std::string>{"vm", "oversubscribed", "shortfall", "noisy", "low_confidence",
                                   "extrapolated"});
    probe["kernel"]["init_on_alloc"] = nullptr;
    probe["kernel"]["boot_pool"] =
        nlohmann::json::parse(R"([{"size_kb": 1048576, "pages": 4, "node_format": false}])");
    probe["kernel"]["supports_hugepage_alloc_threads"] = false;
    const auto codes = codes_of(collect_warnings(probe, nlohmann::json::object(), fit_on(probe)));
    REQUIRE(codes.size() >= 4);
    CHECK(
        std::vector(codes.begin(), codes.begin() + 4) ==
        std::vector<std::string>{"vm", "kernel_too_old", "gigantic_only", "init_on_alloc_unknown"});
    // The model assumes init_on_alloc on when it is unknown (boot zeroes every page): the
    // warning says what the model does.
    for (const auto& w : collect_warnings(probe, nlohmann::json::object(), fit_on(probe)))
        if (w.code == "init_on_alloc_unknown") {
            CHECK(w.message.find("assumes it is on") != std::string::npos);
            CHECK(w.message.find("assumes it is off") == std::string::npos);
        }
}
