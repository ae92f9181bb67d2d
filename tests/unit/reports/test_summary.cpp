// Golden output of the console summary and the report built from fixed data: a committed
// sweep of a 2-node Zen 4 machine and the model's fit with its seed.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "model/documents/report.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/recommend.hpp"
#include "model/text.hpp"
#include "reports/gnuplot_script.hpp"
#include "reports/plot_data.hpp"
#include "reports/summary.hpp"
#include "reports/sweep_tables.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using hugetune::test::fixed_report;
using hugetune::test::source_dir;
namespace fs = std::filesystem;

namespace {

// The one flag the summaries name, as the command line words it (cli/setting_flags.cpp).
const SettingWords kFlags([](std::string_view setting) {
    return setting == "placement" ? std::string("--placement") : std::string(setting);
});

// Compares with a committed golden file; HUGETUNE_UPDATE_GOLDEN=1 rewrites it instead.
void check_golden(const std::string& name, const std::string& actual) {
    auto path = source_dir() / "tests/golden" / name;
    if (std::getenv("HUGETUNE_UPDATE_GOLDEN")) {
        std::ofstream(path) << actual;
        MESSAGE("rewrote " << path.string());
    }
    REQUIRE_MESSAGE(fs::exists(path), path.string() << " is missing");
    CHECK(actual == test::read_text(path));
}

std::vector<model::MeasuredPoint> read_points(const nlohmann::json& points) {
    const nlohmann::json sweep = {{"parameters", {{"page_size_kb", 2048}}}, {"points", points}};
    return model::read_measured_sweep(model::JsonField(sweep)).points;
}

}  // namespace

TEST_CASE("summary: golden console output on fixed data, the answer first") {
    const auto report = test::read_whole_report(fixed_report(true));
    const std::string summary = format_report_summary(report, kFlags);
    check_golden("summary-zen4-2node.txt", summary);
    // The answer in its first lines, about 20 lines in all.
    CHECK(summary.find("\n\nanswer     ") == summary.find('\n'));
    CHECK(std::count(summary.begin(), summary.end(), '\n') <= 24);
    const std::string verbose = format_report_summary(report, kFlags, true);
    check_golden("summary-zen4-2node-verbose.txt", verbose);
    CHECK(verbose.find("\nphase alloc: ") != std::string::npos);
}

TEST_CASE("summary: phase tables on fixed points") {
    auto points = nlohmann::json::parse(R"([
        {"phase": "zero", "threads_per_node": 2, "median_seconds": 0.02, "gib_per_second": 25.0,
         "pages_per_node": 512,
         "samples_seconds": [0.019, 0.02, 0.023], "oversubscribed": false, "shortfall_pages": 0},
        {"phase": "zero", "threads_per_node": 1, "median_seconds": 0.03, "gib_per_second": 16.7,
         "pages_per_node": 512,
         "samples_seconds": [0.03, 0.03], "oversubscribed": false, "shortfall_pages": 3},
        {"phase": "alloc", "threads_per_node": 64, "median_seconds": 1.5, "gib_per_second": 0.3,
         "pages_per_node": 512,
         "samples_seconds": [1.5], "oversubscribed": true, "shortfall_pages": 0}])");
    check_golden("phase-tables.txt", format_phase_tables(read_points(points)));
}

TEST_CASE("sweep summary: the sample, one table per measured phase, the legend and notes") {
    auto sweep = nlohmann::json::parse(R"({
        "format": "hugetune-sweep", "parameters": {"nodes": [0, 1, 2, 3], "page_size_kb": 2048},
        "points": [
          {"phase": "alloc", "threads_per_node": 1, "page_size_kb": 2048, "pages_per_node": 512,
           "samples_seconds": [0.4, 0.1, 0.2], "median_seconds": 0.2, "gib_per_second": 20.0,
           "oversubscribed": false, "shortfall_pages": 0},
          {"phase": "alloc", "threads_per_node": 64, "page_size_kb": 2048, "pages_per_node": 512,
           "samples_seconds": [0.5], "median_seconds": 0.5, "gib_per_second": 8.0,
           "oversubscribed": true, "shortfall_pages": 3}],
        "warnings": ["alloc at 64 thread(s) per node: 3 page(s) not obtained on the intended node"]
    })");
    const model::MeasuredSweep measured = model::read_measured_sweep(model::JsonField(sweep));
    const std::string text = format_sweep_summary(measured, kFlags);
    check_golden("sweep-summary.txt", text);
    // A document without a placement was node-local, and on 4 nodes that is said.
    CHECK(text.starts_with("sample 512 x 2 MiB pages per node, 4 node(s)\nplacement: node-local"));
    CHECK(text.find("the prediction is likely optimistic") != std::string::npos);
    CHECK(text.find(format_phase_tables(measured.points)) != std::string::npos);
    CHECK(text.find("phase zero") == std::string::npos);  // nothing measured
    // The fastest and slowest repetitions, and the one that stands out named by its place.
    CHECK(text.find("             1    200.0 ms  100.0 ms..400.0 ms       20.00  repetition 1 of 3 "
                    "2.0x the median\n") != std::string::npos);
    CHECK(text.find("            64    500.0 ms  500.0 ms..500.0 ms        8.00  oversubscribed  "
                    "shortfall 3 pages\n") != std::string::npos);
    CHECK(
        text.ends_with("note: alloc at 64 thread(s) per node: 3 page(s) not obtained on the "
                       "intended node\n"));
}

TEST_CASE("sweep summary: without points only the notes remain") {
    CHECK(format_sweep_summary(model::MeasuredSweep{}).empty());
    model::MeasuredSweep only_notes;
    only_notes.warnings = {"w"};
    CHECK(format_sweep_summary(only_notes) == "note: w\n");
}

namespace {

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The fixed report with the recommendation moved onto the kernel default, as a kept default is.
nlohmann::json report_keeping_default() {
    auto report = fixed_report();
    auto& rec = report["recommendation"];
    rec["decision"] = "keep_default";
    rec["hugepage_alloc_threads"] = rec["default_threads"];
    rec["threads_per_node"] = rec["default_threads_per_node"];
    rec["predicted_seconds"] = rec["predicted_default_seconds"];
    rec["saving_seconds"] = 0;
    return report;
}

}  // namespace

TEST_CASE("report summary: the decision, and the chart of predicted boot time it rests on") {
    const auto report = fixed_report();
    const auto& rec = report["recommendation"];
    const std::string summary = format_report_summary(test::read_whole_report(report), {}, true);
    const std::string decision = rec["decision"].get<std::string>();
    CHECK(has(summary, decision == "set" ? "answer     set hugepage_alloc_threads="
                                         : "answer     keep the kernel default"));
    CHECK(has(summary, "predicted boot allocation of the pool"));
    // Both markers, each with its predicted time and unit, in the legend under the chart.
    CHECK(has(summary, "R recommended hugepage_alloc_threads=" +
                           std::to_string(rec["hugepage_alloc_threads"].get<int>()) + ": " +
                           seconds_text(rec["predicted_seconds"].get<double>())));
    CHECK(has(summary, "D kernel default hugepage_alloc_threads=" +
                           std::to_string(rec["default_threads"].get<int>()) + ": " +
                           seconds_text(rec["predicted_default_seconds"].get<double>())));
    CHECK(has(summary, "hugepage_alloc_threads (log2)"));
}

TEST_CASE("report summary: coinciding markers stay visible") {
    const std::string summary =
        format_report_summary(test::read_whole_report(report_keeping_default()), {}, true);
    CHECK(has(summary, "answer     keep the kernel default"));
    CHECK(has(summary, "R=D"));
    CHECK(has(summary, "R recommended hugepage_alloc_threads="));
    CHECK(has(summary, "D kernel default hugepage_alloc_threads="));
}

TEST_CASE("plot: predicted boot time with its band, measured points and both markers") {
    const auto report = fixed_report();
    const auto& rec = report["recommendation"];
    const std::string script = gnuplot_script(
        plot_data_from_report(test::read_whole_report(report)), PlotFormat::svg, "/tmp/x.svg");
    CHECK(has(script, "set multiplot"));
    CHECK(has(script, "predicted boot allocation"));
    CHECK(has(script, "set xlabel 'hugepage_alloc_threads (total)'"));
    // The band: one row per prediction with its 5% and 95% values, drawn filled.
    const auto& first = report["fit"]["predictions"][0];
    CHECK(has(script,
              "$boot << EOD\n" + std::to_string(first["hugepage_alloc_threads"].get<int>()) + " "));
    CHECK(has(script, "with filledcurves"));
    CHECK(has(script, "$boot_measured << EOD\n"));
    CHECK(has(script, "recommended hugepage_alloc_threads=" +
                          std::to_string(rec["hugepage_alloc_threads"].get<int>()) + ": " +
                          seconds_text(rec["predicted_seconds"].get<double>())));
    CHECK(has(script, "kernel default hugepage_alloc_threads=" +
                          std::to_string(rec["default_threads"].get<int>()) + ": " +
                          seconds_text(rec["predicted_default_seconds"].get<double>())));
    // The measured phases stay, in their own panel.
    CHECK(has(script, "$measured0 << EOD\n"));
}

TEST_CASE("plot: coinciding recommended and default values are both labelled") {
    const auto report = report_keeping_default();
    const std::string script = gnuplot_script(
        plot_data_from_report(test::read_whole_report(report)), PlotFormat::svg, "/tmp/x.svg");
    CHECK(has(script, "recommended hugepage_alloc_threads="));
    CHECK(has(script, "kernel default hugepage_alloc_threads="));
    CHECK(has(script, "(the same value)"));
}

namespace {

std::string plot_script(const nlohmann::json& report) {
    return gnuplot_script(plot_data_from_report(test::read_whole_report(report)), PlotFormat::svg,
                          "/tmp/x.svg");
}

// A number as the script writes it.
std::string g6(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// The inline data block NAME of a script, its rows only; empty when the script has none.
std::string data_block(const std::string& script, const std::string& name) {
    const auto begin = script.find(name + " << EOD\n");
    if (begin == std::string::npos)
        return "";
    const auto rows = begin + name.size() + 8;
    return script.substr(rows, script.find("EOD\n", rows) - rows);
}

double seconds_of(const nlohmann::json& estimate) {
    return estimate["seconds"].get<double>();
}

}  // namespace

TEST_CASE("plot: the breakdown panel stacks the parts at the decision and the default") {
    // HVO off, known: allocation is allocation proper, with no vmemmap part to draw.
    const auto report = fixed_report(true, "sweep-zen4-2node-no-hvo-sysctl.json", true);
    const auto& at = report["breakdown"]["at"];
    REQUIRE(at.size() == 2);
    const std::string script = plot_script(report);
    CHECK(has(script, "set multiplot layout 3,1"));
    CHECK(has(script, "where the predicted boot allocation goes"));
    // Bar 1 the decision, bar 2 the default: allocation from 0, zeroing on top of it, the
    // whole's interval over the stack.
    std::string allocation, zeroing, intervals;
    for (std::size_t i = 0; i < at.size(); ++i) {
        REQUIRE(at[i]["separable"].get<bool>());
        const double a = seconds_of(at[i]["allocation"]);
        const double z = seconds_of(at[i]["zeroing"]);
        const std::string x = std::to_string(i + 1);
        allocation += x + " 0 " + g6(a) + "\n";
        zeroing += x + " " + g6(a) + " " + g6(a + z) + "\n";
        intervals += x + " " + g6(a + z) + " " + g6(at[i]["total"]["seconds_low"].get<double>()) +
                     " " + g6(at[i]["total"]["seconds_high"].get<double>()) + "\n";
    }
    CHECK(data_block(script, "$bar_allocation") == allocation);
    CHECK(data_block(script, "$bar_zeroing") == zeroing);
    CHECK(has(data_block(script, "$bar_intervals"), intervals));
    CHECK(data_block(script, "$bar_vmemmap").empty());
    CHECK(has(script, "title 'allocation proper'"));
    CHECK(has(script, "title 'zeroing (init_on_alloc)'"));
    CHECK(has(script, "\"decision\\n" + std::to_string(at[0]["hugepage_alloc_threads"].get<int>()) +
                          " threads\" 1"));
    CHECK(has(script, "\"kernel default\\n" +
                          std::to_string(at[1]["hugepage_alloc_threads"].get<int>()) +
                          " threads\" 2"));
}

TEST_CASE("plot: the what-if rows are bars with their intervals, or say they are not predicted") {
    const auto report = fixed_report(true, "sweep-zen4-2node-no-hvo-sysctl.json", true);
    const auto& rows = report["what_if"];
    REQUIRE(rows.size() == 2);
    REQUIRE(rows[0]["parameter"] == "init_on_alloc");
    REQUIRE(rows[1]["predicted"].is_null());  // HVO: no sysctl, no pass
    const std::string script = plot_script(report);
    const auto& p = rows[0]["predicted"];
    CHECK(data_block(script, "$bar_what_if") == "3 0 " + g6(seconds_of(p)) + "\n");
    CHECK(has(data_block(script, "$bar_intervals"),
              "3 " + g6(seconds_of(p)) + " " + g6(p["seconds_low"].get<double>()) + " " +
                  g6(p["seconds_high"].get<double>()) + "\n"));
    const std::string threads = std::to_string(rows[0]["hugepage_alloc_threads"].get<int>());
    CHECK(has(script, "\"init_on_alloc=0\\n" + threads + " threads\" 3"));
    CHECK(has(script, "\"hugetlb_free_vmemmap=on\\n" + threads + " threads\" 4"));
    CHECK(has(script, "set label \"not predicted\\n(see the summary)\" at 4, graph 0.06"));
}

TEST_CASE("plot: HVO on without a pass keeps its work inside allocation, and says so") {
    auto sweep = hugetune::test::fixed_sweep("sweep-zen4-2node-hvo-pass.json");
    sweep.erase("hvo_pass");
    const auto report = hugetune::test::report_of_sweep(sweep, true, true);
    REQUIRE(report["breakdown"]["at"][0]["separable"].get<bool>());
    const std::string script = plot_script(report);
    CHECK(data_block(script, "$bar_vmemmap").empty());
    CHECK(has(script, "title 'allocation (with HVO''s vmemmap work if on, not measured apart)'"));
}

TEST_CASE("plot: with the HVO pass the vmemmap part is drawn and the HVO what-if predicted") {
    const auto report = fixed_report(true, "sweep-zen4-2node-hvo-pass.json", true);
    const auto& at = report["breakdown"]["at"];
    REQUIRE(at.size() == 2);
    REQUIRE(!at[0]["vmemmap"].is_null());
    const std::string script = plot_script(report);
    std::string allocation, vmemmap;
    for (std::size_t i = 0; i < at.size(); ++i) {
        const double a = seconds_of(at[i]["allocation"]);
        const double v = seconds_of(at[i]["vmemmap"]);
        REQUIRE(v > 0);
        REQUIRE(v < a);
        const std::string x = std::to_string(i + 1);
        allocation += x + " 0 " + g6(a - v) + "\n";
        vmemmap += x + " " + g6(a - v) + " " + g6(a) + "\n";
    }
    CHECK(data_block(script, "$bar_allocation") == allocation);
    CHECK(data_block(script, "$bar_vmemmap") == vmemmap);
    CHECK(has(script, "title 'allocation proper'"));
    CHECK(has(script, "title 'vmemmap optimisation (HVO), measured by the HVO pass'"));
    const auto& hvo = report["what_if"][1];
    REQUIRE(hvo["parameter"] == "hugetlb_free_vmemmap");
    REQUIRE(!hvo["predicted"].is_null());
    CHECK(
        has(data_block(script, "$bar_what_if"), "4 0 " + g6(seconds_of(hvo["predicted"])) + "\n"));
    CHECK_FALSE(has(script, "not predicted"));
}

TEST_CASE("plot: a breakdown the phases do not split is one bar, never its parts") {
    // The fixed sweep's zero phase alone takes longer than its predicted boot.
    const auto report = fixed_report(true);
    REQUIRE_FALSE(report["breakdown"]["at"][0]["separable"].get<bool>());
    const std::string script = plot_script(report);
    const double total = seconds_of(report["breakdown"]["at"][0]["total"]);
    CHECK(data_block(script, "$bar_unsplit") == "1 0 " + g6(total) + "\n");
    CHECK_FALSE(has(data_block(script, "$bar_allocation"), "1 0 "));
    CHECK_FALSE(has(data_block(script, "$bar_zeroing"), "1 "));
    CHECK(has(script, "set label \"not split:\\nzero phase > boot\" at 1"));
}

TEST_CASE("plot: a report without a breakdown draws no breakdown panel") {
    const std::string script = plot_script(fixed_report());
    CHECK(has(script, "set multiplot layout 2,1"));
    CHECK_FALSE(has(script, "where the predicted boot allocation goes"));
    CHECK_FALSE(has(script, "$bar_"));
}

TEST_CASE("summary: golden console output with the HVO pass, and without the sysctl") {
    check_golden("summary-zen4-2node-hvo-pass.txt",
                 format_report_summary(test::read_whole_report(fixed_report(
                                           true, "sweep-zen4-2node-hvo-pass.json", true)),
                                       kFlags, true));
    check_golden("summary-zen4-2node-no-hvo-sysctl.txt",
                 format_report_summary(test::read_whole_report(fixed_report(
                                           true, "sweep-zen4-2node-no-hvo-sysctl.json", true)),
                                       kFlags, true));
}

TEST_CASE("plot: a vmemmap part larger than the allocation it is part of is not drawn") {
    auto report = fixed_report(true, "sweep-zen4-2node-hvo-pass.json", true);
    auto& at = report["breakdown"]["at"][0];
    const double allocation = seconds_of(at["allocation"]);
    at["vmemmap"]["seconds"] = 2 * allocation;
    const std::string script = plot_script(report);
    CHECK(has(data_block(script, "$bar_allocation"), "1 0 " + g6(allocation) + "\n"));
    CHECK_FALSE(has(data_block(script, "$bar_vmemmap"), "1 "));
    CHECK(has(script, "set label \"vmemmap part larger\\nthan allocation: not drawn\" at 1"));
}
