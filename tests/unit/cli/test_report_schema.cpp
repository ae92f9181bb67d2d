// The report against its shipped JSON Schema, and the warnings the report adds from a probe
// of fixture trees: tests that join the machine side with the reports.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "model/documents/report.hpp"
#include "model/documents/report_schema.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/recommend.hpp"
#include "model/report_version.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tests/unit/support/report_data.hpp"
#include "tests/unit/support/schema_check.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/system/process.hpp"

using namespace hugetune;
using hugetune::test::fixed_report;
using hugetune::test::fixture;
using hugetune::test::validate_json;

TEST_CASE("report: the breakdown, what-if and first-touch blocks validate and read back") {
    const auto report = fixed_report(true);
    REQUIRE(report.contains("breakdown"));
    REQUIRE(report["what_if"].size() == 2);
    REQUIRE(report["first_touch"]["rows"].size() == 5);
    auto r = validate_json("report.schema.json", report);
    REQUIRE_MESSAGE(r.exit_code != -1, "python3 with jsonschema is a test dependency");
    CHECK_MESSAGE(r.exit_code == 0, r.out << r.err);
    model::ReportReading whole;
    whole.need_run = true;
    const model::Report read = model::read_report(report, whole);
    REQUIRE(read.run->breakdown);
    CHECK(read.run->what_if.size() == 2);
    CHECK(read.run->first_touch->gib == 64);
    // The built-in validator refuses what the schema forbids.
    auto applied = report;
    applied["what_if"][0]["applied"] = true;
    CHECK(model::report_schema_problem(applied).has_value());
    auto unknown = report;
    unknown["breakdown"]["at"][0]["at"] = "somewhere";
    CHECK(model::report_schema_problem(unknown).has_value());
}

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
    // One decision, one text: the setting to add, or nothing when the default is kept.
    const auto& rec = report["recommendation"];
    CHECK(rec["kernel_cmdline"] ==
          (rec["decision"] == "keep_default"
               ? std::string()
               : "hugepage_alloc_threads=" +
                     std::to_string(rec["hugepage_alloc_threads"].get<int>())));
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
model::Recommendation fit_on(const nlohmann::json& probe) {
    auto sweep = hugetune::test::fixed_sweep();
    sweep["probe"] = probe;
    model::RecommendOptions options;
    options.resamples = 50;
    return model::recommend_from_sweep(model::parse_sweep_json(sweep), options);
}

// init_on_alloc as the fit's input reads it from the probe.
std::optional<bool> init_on_alloc_of(const nlohmann::json& probe) {
    return model::JsonField(probe)["kernel"]["init_on_alloc"].hint<bool>();
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
    const auto codes = codes_of(
        model::collect_warnings(init_on_alloc_of(probe), model::MeasuredSweep{}, fit_on(probe)));
    REQUIRE(codes.size() >= 2);
    CHECK(std::vector(codes.begin(), codes.begin() + 2) ==
          std::vector<std::string>{"kernel_too_old", "node_format_hugepages"});
    // The probe alone adds neither: the model judges them, once.
    CHECK(model::collect_warnings(init_on_alloc_of(probe), model::MeasuredSweep{},
                                  model::Recommendation{})
              .empty());
}

TEST_CASE("report: warnings from the probe and the sweep, around the fit's") {
    auto probe = to_json(probe_machine(KernelFs(fixture("vm-1node"))));
    const auto sweep = model::read_measured_sweep(model::JsonField(nlohmann::json::parse(R"({
        "parameters": {"page_size_kb": 2048}, "points": [
        {"phase": "zero", "threads_per_node": 4, "median_seconds": 1.0, "pages_per_node": 512,
         "samples_seconds": [0.7, 1.0, 1.1], "oversubscribed": true, "shortfall_pages": 2}]})")));
    // The fit's machine warnings come first, whatever their place in the fit.
    model::Recommendation fit;
    fit.confidence = 0.5;
    fit.warnings = {{"low_confidence", "only 50% agree"},
                    {"vm", "measured in a virtual machine"},
                    {"extrapolated", "beyond"}};
    CHECK(codes_of(model::collect_warnings(init_on_alloc_of(probe), sweep, fit)) ==
          std::vector<std::string>{"vm", "oversubscribed", "shortfall", "noisy", "low_confidence",
                                   "extrapolated"});
    probe["kernel"]["init_on_alloc"] = nullptr;
    probe["kernel"]["boot_pool"] =
        nlohmann::json::parse(R"([{"size_kb": 1048576, "pages": 4, "node_format": false}])");
    probe["kernel"]["supports_hugepage_alloc_threads"] = false;
    const auto codes = codes_of(
        model::collect_warnings(init_on_alloc_of(probe), model::MeasuredSweep{}, fit_on(probe)));
    REQUIRE(codes.size() >= 4);
    CHECK(
        std::vector(codes.begin(), codes.begin() + 4) ==
        std::vector<std::string>{"vm", "kernel_too_old", "gigantic_only", "init_on_alloc_unknown"});
    // The model assumes init_on_alloc on when it is unknown (boot zeroes every page): the
    // warning says what the model does.
    for (const auto& w :
         model::collect_warnings(init_on_alloc_of(probe), model::MeasuredSweep{}, fit_on(probe)))
        if (w.code == "init_on_alloc_unknown") {
            CHECK(w.message.find("assumes it is on") != std::string::npos);
            CHECK(w.message.find("assumes it is off") == std::string::npos);
        }
}

TEST_CASE("report: the verification block verify adds validates, problems and all") {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("hugetune-verify-schema-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto report = fixed_report();
    const auto threads = report["recommendation"]["hugepage_alloc_threads"].get<int>();
    const auto pages = report["boot_pool"]["pages"].get<std::uint64_t>();
    const std::string path = (dir / "report.json").string();
    const std::string log = (dir / "boot.log").string();
    const std::string cmdline = (dir / "cmdline").string();
    auto write = [](const std::string& p, const std::string& text) { std::ofstream(p) << text; };
    auto verify_and_validate = [&](int expected_exit) {
        write(path, report.dump(2));
        int code = 0;
        try {
            code = cli::run_verify({"--report", path, "--log", log, "--cmdline", cmdline});
        } catch (const std::exception&) {
            code = 1;
        }
        CHECK(code == expected_exit);
        auto r = validate_json("report.schema.json", nlohmann::json::parse(std::ifstream(path)));
        CHECK_MESSAGE(r.exit_code == 0, r.out << r.err);
        return nlohmann::json::parse(std::ifstream(path))["verification"];
    };
    write(log,
          "Linux version 6.15.0 #1\n"
          "smp: Brought up 2 nodes, 32 CPUs\n"
          "HugeTLB: allocation took 706ms with hugepage_allocation_threads=" +
              std::to_string(threads) + "\n" +
              "HugeTLB: registered 2.00 MiB page size, pre-allocated " + std::to_string(pages / 2) +
              " pages\n");
    write(cmdline, "hugepages=" + std::to_string(pages) +
                       " hugepage_alloc_threads=" + std::to_string(threads));
    auto v = verify_and_validate(0);
    CHECK(v["pool"]["pages"] == pages / 2);
    CHECK(v["pool_predicted_ms"].get<double>() ==
          doctest::Approx(v["predicted_ms"].get<double>() / 2));
    // Not verified: the problems and the refused ratio carry their codes.
    write(log, "HugeTLB: allocation took 706ms with hugepage_allocation_threads=" +
                   std::to_string(threads + 1) + "\n");
    write(cmdline, "hugepages=" + std::to_string(pages) +
                       " hugepage_alloc_threads=" + std::to_string(threads + 1));
    v = verify_and_validate(1);
    CHECK(v["problems"][0]["code"] == "not_applied");
    CHECK(v["ratio_refused"]["code"] == "threads_differ");
    CHECK(v["ratio"].is_null());
    fs::remove_all(dir);
}

TEST_CASE("report: a boot_sweep block validates, and a malformed one is refused") {
    auto report = fixed_report();
    report["boot_sweep"] = {{"pages", 1024},
                            {"page_size_kb", 2048},
                            {"kernel_release", "6.15.3"},
                            {"rows",
                             {{{"threads", 2},
                               {"boots", 3},
                               {"measured_ms", 410.0},
                               {"predicted_ms", 380.5},
                               {"ratio", 1.078}}}}};
    auto r = validate_json("report.schema.json", report);
    REQUIRE_MESSAGE(r.exit_code != -1, "python3 with jsonschema is a test dependency");
    CHECK_MESSAGE(r.exit_code == 0, r.out << r.err);
    report["boot_sweep"]["rows"][0].erase("predicted_ms");
    CHECK(validate_json("report.schema.json", report).exit_code != 0);
}
