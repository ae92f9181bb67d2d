// Golden output of the console summary and the report built from fixed data: a committed
// sweep of a 2-node Zen 4 machine and the model's fit with its seed.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"
#include "reports/report.hpp"
#include "reports/summary.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;
using hugetune::test::fixed_report;
using hugetune::test::source_dir;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Compares with a committed golden file; HUGETUNE_UPDATE_GOLDEN=1 rewrites it instead.
void check_golden(const std::string& name, const std::string& actual) {
    auto path = source_dir() / "tests/golden" / name;
    if (std::getenv("HUGETUNE_UPDATE_GOLDEN")) {
        std::ofstream(path) << actual;
        MESSAGE("rewrote " << path.string());
    }
    REQUIRE_MESSAGE(fs::exists(path), path.string() << " is missing");
    CHECK(actual == slurp(path));
}

}  // namespace

TEST_CASE("summary: golden console output on fixed data") {
    check_golden("summary-zen4-2node.txt", format_report_summary(fixed_report()));
}

TEST_CASE("summary: phase tables on fixed points") {
    auto points = nlohmann::json::parse(R"([
        {"phase": "zero", "threads_per_node": 2, "median_seconds": 0.02, "gib_per_second": 25.0,
         "samples_seconds": [0.019, 0.02, 0.023], "oversubscribed": false, "shortfall_pages": 0},
        {"phase": "zero", "threads_per_node": 1, "median_seconds": 0.03, "gib_per_second": 16.7,
         "samples_seconds": [0.03, 0.03], "oversubscribed": false, "shortfall_pages": 3},
        {"phase": "alloc", "threads_per_node": 64, "median_seconds": 1.5, "gib_per_second": 0.3,
         "samples_seconds": [1.5], "oversubscribed": true, "shortfall_pages": 0}])");
    check_golden("phase-tables.txt", format_phase_tables(points));
}

TEST_CASE("sweep summary: the sample, one table per measured phase, the legend and notes") {
    auto sweep = nlohmann::json::parse(R"({
        "format": "hugetune-sweep", "parameters": {"nodes": [0, 1, 2, 3]},
        "points": [
          {"phase": "alloc", "threads_per_node": 1, "page_size_kb": 2048, "pages_per_node": 512,
           "samples_seconds": [0.4, 0.1, 0.2], "median_seconds": 0.2, "gib_per_second": 20.0,
           "oversubscribed": false, "shortfall_pages": 0},
          {"phase": "alloc", "threads_per_node": 64, "page_size_kb": 2048, "pages_per_node": 512,
           "samples_seconds": [0.5], "median_seconds": 0.5, "gib_per_second": 8.0,
           "oversubscribed": true, "shortfall_pages": 3}],
        "warnings": ["alloc at 64 thread(s) per node: 3 page(s) not obtained on the intended node"]
    })");
    const std::string text = format_sweep_summary(sweep);
    check_golden("sweep-summary.txt", text);
    CHECK(text.starts_with("sample 512 x 2 MiB pages per node, 4 node(s)\n\n"));
    CHECK(text.find(format_phase_tables(sweep["points"])) != std::string::npos);
    CHECK(text.find("phase zero") == std::string::npos);  // nothing measured
    CHECK(text.find("             1    200.0 ms    150.0%     20.00\n") != std::string::npos);
    CHECK(text.find("            64    500.0 ms      0.0%      8.00  oversubscribed  shortfall 3 "
                    "pages\n") != std::string::npos);
    CHECK(
        text.ends_with("note: alloc at 64 thread(s) per node: 3 page(s) not obtained on the "
                       "intended node\n"));
}

TEST_CASE("sweep summary: without points only the notes remain") {
    CHECK(format_sweep_summary(nlohmann::json::object()).empty());
    CHECK(format_sweep_summary(nlohmann::json::parse(R"({"points": [], "warnings": ["w"]})")) ==
          "note: w\n");
}
