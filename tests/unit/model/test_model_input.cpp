// Reading CSV tables and sweep documents into plain data, and every way they can be wrong.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

#include "model/documents/sweep.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"

using namespace hugetune::model;

namespace {

nlohmann::json sweep_fixture() {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/tests/data/sweep-zen4-2node.json");
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

// The line and message of the InputError a CSV raises.
std::pair<std::optional<int>, std::string> csv_error(std::string_view text) {
    try {
        parse_csv_table(text);
    } catch (const InputError& e) {
        return {e.line(), e.what()};
    }
    FAIL("no error for: " << text);
    return {};
}

std::string sweep_error(const nlohmann::json& doc) {
    try {
        parse_sweep_json(doc);
    } catch (const InputError& e) {
        CHECK_FALSE(e.line());
        return e.what();
    }
    FAIL("no error");
    return {};
}

}  // namespace

TEST_CASE("csv: a boot table with repetitions, extra columns, CRLF and blank lines") {
    const auto d = parse_csv_table(
        "host,threads_per_node,seconds,note\r\n"
        "a,2,44,x\r\n"
        "\r\n"
        "a, 4 ,22.5,\r\n"
        "b,4,21.5,y\r\n"
        "a,8,16e0,z\r\n");
    CHECK(d.source == "csv");
    REQUIRE(d.phases.size() == 1);
    const auto* boot = d.phase("boot");
    REQUIRE(boot != nullptr);
    CHECK(boot->pages_per_node == 0);
    REQUIRE(boot->points.size() == 4);
    CHECK(boot->points[1].threads_per_node == 4);
    CHECK(boot->points[1].seconds == 22.5);
    CHECK(boot->points[3].seconds == 16);
    CHECK(d.notes.empty());
}

TEST_CASE("csv: a phase column; without boot rows the alloc rows carry the prediction") {
    const auto d = parse_csv_table(
        "phase,threads_per_node,seconds\n"
        "alloc,1,4\nalloc,2,2.2\nalloc,4,1.3\nzero,1,3\nzero,2,1.6\nzero,4,0.9\n");
    CHECK(d.phases.size() == 2);
    CHECK(d.phase("alloc") != nullptr);
    CHECK(d.phase("zero") != nullptr);
    REQUIRE(d.notes.size() == 1);
    CHECK(d.notes[0].find("alloc rows") != std::string::npos);
}

TEST_CASE("csv: every bad input names its line and problem") {
    struct Case {
        const char* text;
        int line;
        const char* message;
    };
    const Case cases[] = {
        {"", 1, "empty file"},
        {"\n\n", 1, "empty file"},
        {"2,44\n4,22\n8,16\n", 1, "missing header"},
        {"threads,secs\n2,44\n", 1, "has no threads_per_node or seconds column"},
        {"threads_per_node,seconds,seconds\n2,44\n", 1, "appears twice"},
        {"threads_per_node,seconds\n", 1, "no data rows"},
        {"threads_per_node,seconds\n2,44\n4,abc\n8,16\n", 3, "seconds 'abc' is not a number"},
        {"threads_per_node,seconds\n2,44\nx,22\n8,16\n", 3, "threads_per_node 'x' is not a number"},
        {"threads_per_node,seconds\n2,44\n4.5,22\n8,16\n", 3, "not a whole number"},
        {"threads_per_node,seconds\n2,44\n0,22\n8,16\n", 3, "must be at least 1"},
        {"threads_per_node,seconds\n2,44\n-4,22\n8,16\n", 3, "must be at least 1"},
        {"threads_per_node,seconds\n2,44\n4,0\n8,16\n", 3, "must be above 0"},
        {"threads_per_node,seconds\n2,44\n4,-1\n8,16\n", 3, "must be above 0"},
        {"threads_per_node,seconds\n2,44\n4,nan\n8,16\n", 3, "not a number"},
        {"threads_per_node,seconds\n2,44\n4\n8,16\n", 3, "1 field(s) but the header has 2"},
        {"threads_per_node,seconds\n2,44\n4,22\n2,45\n", 4, "only 2 distinct"},
        {"phase,threads_per_node,seconds\nheat,1,3\n", 2, "not one of boot, alloc, zero, grow"},
    };
    for (const auto& c : cases) {
        const std::string text = c.text;
        CAPTURE(text);
        const auto [line, message] = csv_error(c.text);
        CHECK(line == c.line);
        CHECK(message.find(c.message) != std::string::npos);
    }
    // Only zero rows: nothing stands for a boot time.
    const auto [line, message] =
        csv_error("phase,threads_per_node,seconds\nzero,1,3\nzero,2,2\nzero,4,1\n");
    CHECK_FALSE(line);
    CHECK(message.find("no 'boot' or 'alloc' rows") != std::string::npos);
}

TEST_CASE("csv: rows that repeat an earlier row are kept and named in a note") {
    const auto d = parse_csv_table("threads_per_node,seconds\n2,44\n4,22\n8,16\n4, 22.0\n8,16\n");
    REQUIRE(d.phase(kPhaseBoot) != nullptr);
    CHECK(d.phase(kPhaseBoot)->points.size() == 5);
    REQUIRE(d.notes.size() == 1);
    CHECK(d.notes[0].find("2 row(s) repeat an earlier row exactly (the first: line 5 repeats "
                          "line 3)") != std::string::npos);
    // Another phase, or another value in a column the reader ignores, is another measurement.
    const auto apart = parse_csv_table(
        "phase,threads_per_node,seconds,repetition\nalloc,2,4,1\nzero,2,4,1\nalloc,4,2,1\n"
        "alloc,8,1,1\nalloc,2,4,2\n");
    for (const auto& note : apart.notes)
        CHECK(note.find("repeat") == std::string::npos);
}

TEST_CASE("sweep: the fixture reads into phases and machine facts") {
    const auto d = parse_sweep_json(sweep_fixture());
    CHECK(d.source == "sweep");
    CHECK(d.page_size_kb == 2048);
    CHECK(d.seed == 7);
    CHECK(d.machine.microarch == "zen4");
    CHECK(d.machine.nodes == 2);
    CHECK(d.machine.online_cpus == 32);
    CHECK(d.machine.hw_threads_per_node == 16);
    CHECK(d.machine.init_on_alloc == true);
    CHECK(d.machine.boot_pool_pages == 100000u);
    REQUIRE(d.machine.boot_requests.size() == 1);
    CHECK(d.machine.boot_requests[0].size_kb == 2048u);
    CHECK_FALSE(d.machine.boot_requests[0].node_format);
    CHECK(d.machine.kernel_release == "6.15.0");
    CHECK(d.machine.supports_alloc_threads == true);
    CHECK_FALSE(d.machine.hypervisor);
    REQUIRE(d.phase("alloc") != nullptr);
    CHECK(d.phase("alloc")->pages_per_node == 128);
    // 5 counts x 5 repetitions; the oversubscribed 32 per node is left out, with a note.
    CHECK(d.phase("alloc")->points.size() == 25);
    CHECK(d.phase("grow")->points.size() == 5);
    REQUIRE_FALSE(d.notes.empty());
    CHECK(d.notes[0].find("oversubscribed") != std::string::npos);
}

TEST_CASE("sweep: a point with a different amount of work is rescaled per page") {
    auto doc = sweep_fixture();
    auto& p = doc["points"][0];
    const double seconds = p["samples_seconds"][0].get<double>();
    p["pages_per_node"] = 256;  // twice the work in the same time: half the cost per page
    doc["points"].insert(doc["points"].begin(), doc["points"][1]);  // keep the series' 128 first
    const auto d = parse_sweep_json(doc);
    bool found = false;
    for (const auto& q : d.phase("alloc")->points)
        found = found || q.seconds == doctest::Approx(seconds / 2);
    CHECK(found);
}

TEST_CASE("sweep: every bad document names the JSON path and problem") {
    const auto base = sweep_fixture();
    struct Case {
        std::function<void(nlohmann::json&)> edit;
        const char* message;
    };
    const Case cases[] = {
        {[](nlohmann::json& d) { d = nlohmann::json::array(); }, "not a JSON object"},
        {[](nlohmann::json& d) { d["format"] = "other"; }, "format: not 'hugetune-sweep'"},
        {[](nlohmann::json& d) { d["format_version"] = 2; }, "format_version: 2 is not supported"},
        {[](nlohmann::json& d) { d.erase("parameters"); }, "parameters: missing"},
        {[](nlohmann::json& d) { d["parameters"]["page_size_kb"] = 0; },
         "page_size_kb: must be at least 1"},
        {[](nlohmann::json& d) { d["parameters"]["placement"] = "local"; },
         "parameters.placement: 'local' is not one of boot, node-local"},
        {[](nlohmann::json& d) { d["points"] = 3; }, "points: must be an array"},
        {[](nlohmann::json& d) { d["points"][2]["phase"] = "heat"; },
         "points[2].phase: 'heat' is not one"},
        {[](nlohmann::json& d) { d["points"][2]["threads_per_node"] = 0; },
         "points[2].threads_per_node: must be a whole number from 1 to 4096"},
        {[](nlohmann::json& d) { d["points"][2]["threads_per_node"] = 1000000000; },
         "points[2].threads_per_node: must be a whole number from 1 to 4096"},
        {[](nlohmann::json& d) { d["points"][1]["pages_per_node"] = 1.2e29; },
         "points[1].pages_per_node: is a pool above 1 PiB per node"},
        {[](nlohmann::json& d) { d["points"][1]["samples_seconds"][0] = 1e300; },
         "points[1].samples_seconds[0]: is above a day"},
        {[](nlohmann::json& d) { d["points"][2]["threads_per_node"] = "4"; },
         "points[2].threads_per_node: must be a whole number"},
        {[](nlohmann::json& d) { d["points"][1]["samples_seconds"][3] = -1; },
         "points[1].samples_seconds[3]: must be above 0"},
        {[](nlohmann::json& d) { d["points"][1]["samples_seconds"] = nlohmann::json::array(); },
         "points[1].samples_seconds: empty"},
        {[](nlohmann::json& d) { d["points"][1].erase("pages_per_node"); },
         "points[1].pages_per_node: missing"},
        {[](nlohmann::json& d) {
             nlohmann::json kept = nlohmann::json::array();
             for (const auto& p : d["points"])
                 if (p["phase"] != "alloc")
                     kept.push_back(p);
             d["points"] = kept;
         },
         "no alloc points"},
        {[](nlohmann::json& d) {
             nlohmann::json kept = nlohmann::json::array();
             for (const auto& p : d["points"])
                 if (p["phase"] != "alloc" || p["threads_per_node"].get<int>() <= 2)
                     kept.push_back(p);
             d["points"] = kept;
         },
         "only 2 distinct"},
    };
    for (const auto& c : cases) {
        auto doc = base;
        c.edit(doc);
        const auto message = sweep_error(doc);
        CAPTURE(message);
        CHECK(message.find(c.message) != std::string::npos);
    }
}

TEST_CASE("sweep: a missing probe leaves facts unknown and says so") {
    auto doc = sweep_fixture();
    doc.erase("probe");
    doc["complete"] = false;
    const auto d = parse_sweep_json(doc);
    CHECK_FALSE(d.machine.online_cpus);
    CHECK(d.machine.nodes == 2);  // parameters.nodes still says which nodes were measured
    CHECK_FALSE(d.machine.init_on_alloc);
    bool said_probe = false, said_incomplete = false;
    for (const auto& n : d.notes) {
        said_probe = said_probe || n.find("no probe block") != std::string::npos;
        said_incomplete = said_incomplete || n.find("incomplete") != std::string::npos;
    }
    CHECK(said_probe);
    CHECK(said_incomplete);
}

TEST_CASE("sweep: grow points the kernel serialised over the nodes count one node's share") {
    auto doc = sweep_fixture();
    const auto plain = parse_sweep_json(doc);
    for (auto& p : doc["points"])
        if (p["phase"] == "grow")
            p["nodes_serialised"] = true;
    const auto serialised = parse_sweep_json(doc);
    REQUIRE(plain.machine.nodes == 2);
    const auto& a = plain.phase("grow")->points;
    const auto& b = serialised.phase("grow")->points;
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        CHECK(b[i].seconds == doctest::Approx(a[i].seconds / 2));
    // The fault phases run the nodes in parallel and are untouched.
    CHECK(serialised.phase("alloc")->points[0].seconds == plain.phase("alloc")->points[0].seconds);
}

TEST_CASE("csv: repetitions that differ in any column are kept; an identical row is not") {
    // A repetition with the same printed value stays apart by a column the reader ignores.
    const auto d =
        parse_csv_table("threads_per_node,seconds,repetition\n2,44,1\n2,44,2\n4,22,1\n8,16,1\n");
    REQUIRE(d.phase("boot") != nullptr);
    CHECK(d.phase("boot")->points.size() == 4);
    // The same numbers in two phases are two measurements.
    const auto p = parse_csv_table(
        "phase,threads_per_node,seconds\nalloc,2,4\nzero,2,4\nalloc,4,2\nalloc,8,1\n");
    CHECK(p.phases.size() == 2);
}

TEST_CASE("sweep: the probe's HVO and pre-zeroing facts, for the sweep's page size only") {
    auto doc = sweep_fixture();
    auto& kernel = doc["probe"]["kernel"];
    // A probe written before these facts: HVO as the probe found it, nothing else.
    kernel.erase("hvo_sysctl");
    kernel.erase("vmemmap_freeable");
    const KernelOptions before = parse_sweep_json(doc).machine.kernel;
    CHECK(before.hvo == std::optional<bool>(true));
    CHECK_FALSE(before.hvo_sysctl);
    CHECK_FALSE(before.vmemmap_freeable_kib_per_page);
    CHECK_FALSE(before.zeroable_hugepages);

    kernel["hvo"] = nullptr;
    kernel["hvo_sysctl"] = true;
    // The 1 GiB line and a 1 GiB pool's zeroable_hugepages do not speak for 2 MiB pages.
    kernel["vmemmap_freeable"] = {{{"size_kb", 1048576}, {"kib_per_page", 16380}}};
    kernel["pools"] = {{{"size_kb", 1048576},
                        {"nr", 0},
                        {"nodes", {{{"node", 0}, {"nr", 0}, {"zeroable_hugepages", 0}}}}},
                       {{"size_kb", 2048}, {"nr", 0}, {"nodes", {{{"node", 0}, {"nr", 0}}}}}};
    const KernelOptions other_size = parse_sweep_json(doc).machine.kernel;
    CHECK_FALSE(other_size.hvo);
    CHECK(other_size.hvo_sysctl);
    CHECK_FALSE(other_size.vmemmap_freeable_kib_per_page);
    CHECK_FALSE(other_size.zeroable_hugepages);

    kernel["vmemmap_freeable"].push_back({{"size_kb", 2048}, {"kib_per_page", 28}});
    kernel["pools"][1]["nodes"].push_back({{"node", 1}, {"nr", 0}, {"zeroable_hugepages", 0}});
    const KernelOptions same_size = parse_sweep_json(doc).machine.kernel;
    CHECK(same_size.vmemmap_freeable_kib_per_page == std::optional<double>(28));
    // Present, even at 0 free pages not yet zeroed: the kernel has the file.
    CHECK(same_size.zeroable_hugepages);
}

// The measured block a report keeps under `sweep` is written from the typed sweep
// (model/documents/sweep_block.cpp), not carried as the file had it: read and written again, each
// committed sweep gives back every member of its block, value for value; each point's `spread`
// (which these files, written before it, lack) is its samples' fastest and slowest.
TEST_CASE("sweep: the measured block read and written again is the file's, member for member") {
    for (const char* name : {"sweep-zen4-2node.json", "sweep-zen4-2node-hvo-pass.json",
                             "sweep-zen4-2node-no-hvo-sysctl.json"}) {
        CAPTURE(name);
        std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/tests/data/" + name);
        REQUIRE(in);
        auto doc = nlohmann::json::parse(in);
        auto block = measured_block_json(read_measured_sweep(JsonField(doc)));
        // Written before `placement`, these were node-local, which the block now says.
        REQUIRE_FALSE(doc["parameters"].contains("placement"));
        doc["parameters"]["placement"] = "node-local";
        const auto spread_checked = [](nlohmann::json& points) {
            for (auto& point : points) {
                const auto samples = point["samples_seconds"].get<std::vector<double>>();
                CHECK(point["spread"]["min_seconds"] ==
                      *std::min_element(samples.begin(), samples.end()));
                CHECK(point["spread"]["max_seconds"] ==
                      *std::max_element(samples.begin(), samples.end()));
                point.erase("spread");
            }
        };
        spread_checked(block["points"]);
        if (block.contains("hvo_pass") && block["hvo_pass"].contains("points"))
            spread_checked(block["hvo_pass"]["points"]);
        for (const char* key : {"parameters", "complete", "points", "hvo_pass", "sampling"}) {
            CAPTURE(key);
            CHECK(block.contains(key) == doc.contains(key));
            if (doc.contains(key) && block.contains(key))
                CHECK(block[key].dump(1) == doc[key].dump(1));
        }
        CHECK(block.size() <= 5);
    }
}

TEST_CASE("sweep: the placement is read, and a sweep without one was node-local") {
    nlohmann::json doc = sweep_fixture();
    doc["parameters"].erase("placement");
    CHECK(read_measured_sweep(JsonField(doc)).placement == kPlacementNodeLocal);
    doc["parameters"]["placement"] = "boot";
    CHECK(read_measured_sweep(JsonField(doc)).placement == kPlacementBoot);
    doc["parameters"]["placement"] = "node-local";
    CHECK(read_measured_sweep(JsonField(doc)).placement == kPlacementNodeLocal);
}
