// The sweep file's shape (docs/sweep-format.md), from made-up samples, and its schema.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

#include "model/documents/sweep.hpp"
#include "model/input/json_fields.hpp"
#include "tests/unit/support/schema_check.hpp"
#include "tests/unit/support/sweep_data.hpp"
#include "tuner/system/build_info.hpp"

using namespace hugetune;
using hugetune::test::made_up_sweep;
using hugetune::test::source_dir;
using hugetune::test::validate_file;
using hugetune::test::validate_json;

namespace {

// made_up_sweep() with its grow point measured too: every member the writer can write is in.
SweepResult made_up_with_grow() {
    SweepResult r = made_up_sweep();
    for (auto& p : r.points)
        if (p.phase == Phase::grow) {
            p.samples_seconds = {0.3};
            p.thread_seconds = {{0.3, 0.2, 0.2, 0.1}};
        }
    return r;
}

nlohmann::json sweep_schema() {
    std::ifstream in(source_dir() / "model/documents/schema/sweep.schema.json");
    return nlohmann::json::parse(in);
}

std::set<std::string> keys(const nlohmann::json& object) {
    std::set<std::string> out;
    for (const auto& [key, value] : object.items())
        out.insert(key);
    return out;
}

void check_validates(const hugetune::ProcessResult& r) {
    REQUIRE_MESSAGE(r.exit_code != -1, "python3 with jsonschema is a test dependency");
    CHECK_MESSAGE(r.exit_code == 0, r.out << r.err);
}

}  // namespace

TEST_CASE("the sweep file has the agreed fields; unmeasured points are left out") {
    SweepResult r = made_up_sweep();
    auto j = to_json(r);
    CHECK(j["format"] == "hugetune-sweep");
    CHECK(j["format_version"] == 1);
    CHECK(j["complete"] == false);
    CHECK(j["tool"]["version"] == std::string(tool_version()));
    CHECK(j["tool"]["commit"] == std::string(tool_commit()));
    CHECK(j["probe"]["topology"]["nodes"].size() == 4);
    auto params = j["parameters"];
    CHECK(params["threads_per_node"] == nlohmann::json::array({1, 64}));
    CHECK(params["repetitions"] == 5);
    CHECK(params["page_size_kb"] == 2048);
    CHECK(params["sample_mib_per_node"] == 1024);
    CHECK(params["nodes"] == nlohmann::json::array({0, 1, 2, 3}));
    CHECK(params["seed"] == 1);
    CHECK(params["max_memory_fraction"] == 0.5);
    // Boot placement, the default: the pages come from all four memory nodes.
    CHECK(params["placement"] == "boot");
    CHECK(params["memory_nodes"] == nlohmann::json::array({0, 1, 2, 3}));
    CHECK(params["boot_node"] == 0);
    REQUIRE(j["points"].size() == 2);
    // 2048 pages by 4 threads: 4 chunks of 512, each 128 from every node.
    CHECK(j["points"][0]["expected_node_pages"] == nlohmann::json::array({512, 512, 512, 512}));
    auto p0 = j["points"][0];
    CHECK(p0["phase"] == "alloc");
    CHECK(p0["threads_per_node"] == 1);
    CHECK(p0["total_threads"] == 4);
    CHECK(p0["pages_per_node"] == 512);
    CHECK(p0["median_seconds"] == doctest::Approx(0.2));
    CHECK(p0["gib_per_second"] == doctest::Approx(20.0));
    CHECK(p0["oversubscribed"] == false);
    CHECK(p0["shortfall_pages"] == 0);
    CHECK(p0["samples_seconds"].size() == 3);
    auto p1 = j["points"][1];
    CHECK(p1["threads_per_node"] == 64);
    CHECK(p1["oversubscribed"] == true);
    CHECK(p1["shortfall_pages"] == 3);
}

TEST_CASE("the sweep file from made-up samples validates against the shipped schema") {
    check_validates(validate_json("sweep.schema.json", to_json(made_up_sweep())));
    check_validates(validate_json("sweep.schema.json", to_json(made_up_with_grow())));
}

TEST_CASE("the committed example sweeps validate against the shipped schema") {
    // The plain one, one with an HVO pass, one whose kernel had no hugetlb_optimize_vmemmap.
    for (const char* file : {"sweep-zen4-2node.json", "sweep-zen4-2node-hvo-pass.json",
                             "sweep-zen4-2node-no-hvo-sysctl.json"}) {
        CAPTURE(file);
        check_validates(validate_file("sweep.schema.json", source_dir() / "tests/data" / file));
    }
}

TEST_CASE("the schema describes exactly the members the writer writes") {
    auto schema = sweep_schema();
    auto j = to_json(made_up_with_grow());
    CHECK(keys(j) == keys(schema["properties"]));
    CHECK(keys(j["parameters"]) == keys(schema["properties"]["parameters"]["properties"]));
    auto point_members = keys(schema["$defs"]["point"]["properties"]);
    std::set<std::string> written;
    for (const auto& point : j["points"]) {
        auto k = keys(point);
        written.insert(k.begin(), k.end());
        CHECK(point.contains("nodes_serialised") == (point["phase"] == "grow"));
    }
    CHECK(written == point_members);
}

// A report keeps the sweep's measured block by writing it again from the sweep as read
// (model::measured_block_json): every member the sweep's writer writes comes back, value for
// value, with boot placement's node pages, the grow point's and the HVO pass's, and the sampling.
TEST_CASE("the sweep file read and written again gives back its measured block exactly") {
    SweepResult r = made_up_with_grow();
    r.rounds = 2;
    r.stopped = StopReason::settled;
    const auto j = to_json(r);
    const auto block = model::measured_block_json(model::read_measured_sweep(model::JsonField(j)));
    for (const char* key : {"parameters", "complete", "points", "hvo_pass", "sampling"}) {
        CAPTURE(key);
        REQUIRE(j.contains(key));
        CHECK(block[key].dump(1) == j[key].dump(1));
    }
    CHECK(block.size() == 5);
    CHECK(j["sampling"]["rounds"] == 2);
    CHECK(j["sampling"]["stopped"] == "settled");
}

TEST_CASE("the schema refuses what hugetune fit refuses") {
    auto j = to_json(made_up_sweep());
    auto refused = [](const nlohmann::json& doc) {
        return validate_json("sweep.schema.json", doc).exit_code;
    };
    auto other_version = j;
    other_version["format_version"] = 2;
    CHECK(refused(other_version) == 1);
    auto no_time = j;
    no_time["points"][0].erase("samples_seconds");
    no_time["points"][0].erase("median_seconds");
    CHECK(refused(no_time) == 1);
    auto bad_phase = j;
    bad_phase["points"][0]["phase"] = "boot";
    CHECK(refused(bad_phase) == 1);
    auto no_page_size = j;
    no_page_size["parameters"].erase("page_size_kb");
    CHECK(refused(no_page_size) == 1);
}
