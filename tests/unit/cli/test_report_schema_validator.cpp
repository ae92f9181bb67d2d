// The built-in report schema validator (model/documents/json_schema.cpp), which `fleet ingest`
// uses, against python3-jsonschema on the same documents: a real report and broken copies of it,
// one keyword each. They must agree on every one.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "model/documents/json_schema.hpp"
#include "model/documents/report_schema.hpp"
#include "tests/unit/support/fixtures.hpp"
#include "tests/unit/support/schema_check.hpp"

using hugetune::model::report_schema_problem;
using nlohmann::json;

namespace {

json fleet_report() {
    std::ifstream in(hugetune::test::source_dir() / "tests/fixtures/fleet/report-1.json");
    return json::parse(in);
}

struct Case {
    const char* what;
    std::function<void(json&)> edit;
};

}  // namespace

TEST_CASE("report schema: the built-in validator agrees with python3-jsonschema") {
    const std::vector<Case> cases = {
        {"the real report", [](json&) {}},
        {"with a verification block",
         [](json& d) {
             d["verification"] = {{"verified", false},
                                  {"measured_ms", 706},
                                  {"threads", 32},
                                  {"problems", json::array()}};
         }},
        {"required: no warnings", [](json& d) { d.erase("warnings"); }},
        {"type: nodes as text", [](json& d) { d["sku"]["nodes"] = "two"; }},
        {"type: integer 2.0 is an integer", [](json& d) { d["sku"]["nodes"] = 1.0; }},
        {"const: schema_version 2", [](json& d) { d["schema_version"] = 2; }},
        {"enum: a decision of its own", [](json& d) { d["recommendation"]["decision"] = "maybe"; }},
        {"pattern: a cmdline with more",
         [](json& d) { d["recommendation"]["kernel_cmdline"] = "hugepage_alloc_threads=1 quiet"; }},
        {"pattern: a time without Z", [](json& d) { d["generated_at"] = "2026-12-01T10:23:51"; }},
        {"minimum: negative seconds",
         [](json& d) { d["recommendation"]["predicted_seconds"] = -1; }},
        {"maximum: 5000 threads",
         [](json& d) { d["recommendation"]["hugepage_alloc_threads"] = 5000; }},
        {"items: a sample as text",
         [](json& d) { d["sweep"]["points"][0]["samples_seconds"][0] = "fast"; }},
        {"oneOf: a verification ratio_refused of the wrong kind",
         [](json& d) {
             d["verification"] = {{"verified", false},
                                  {"measured_ms", 706},
                                  {"threads", 32},
                                  {"problems", json::array()},
                                  {"ratio_refused", 3}};
         }},
        {"type: the report is an array", [](json& d) { d = json::array({d}); }},
    };
    int refused = 0;
    for (const auto& c : cases) {
        json doc = fleet_report();
        c.edit(doc);
        const auto ours = report_schema_problem(doc);
        const auto theirs = hugetune::test::validate_json("report.schema.json", doc);
        REQUIRE_MESSAGE(theirs.exit_code != 2, "python3-jsonschema is a test dependency");
        INFO(c.what << ": ours " << ours.value_or("valid")
                    << "; python3-jsonschema: " << theirs.err);
        CHECK(ours.has_value() == (theirs.exit_code != 0));
        refused += ours.has_value();
    }
    CHECK(refused >= 10);  // the broken copies are broken, not all waved through
}

TEST_CASE("report schema: a problem names where it is") {
    json doc = fleet_report();
    doc["sku"]["nodes"] = "two";
    CHECK(report_schema_problem(doc).value() == "/sku/nodes: is string, the schema wants integer");
    doc = fleet_report();
    doc["recommendation"].erase("decision");
    CHECK(report_schema_problem(doc).value() == "/recommendation/decision: missing");
}

// The validator walks an object's members, its properties and its required names together, and
// passes over a oneOf option of another type without making its message: the messages stay
// those of one check after another.
TEST_CASE("schema: required, properties and oneOf give the same messages as checked one by one") {
    const hugetune::model::JsonSchema schema(json::parse(R"({
        "type": "object",
        "required": ["zeta", "alpha", "mid"],
        "properties": {
            "alpha": {"type": "integer"},
            "mid": {"oneOf": [{"type": "null"}, {"type": "object", "required": ["x"]}]},
            "zeta": {"oneOf": [{"type": "null"}, {"type": "string"}, {"type": "integer"}]}
        },
        "additionalProperties": {"type": "boolean"}
    })"));
    // The first missing name in `required`'s order, not the maps'.
    CHECK(schema.problem(json::parse(R"({"mid": null})")).value() == "/zeta: missing");
    CHECK(schema.problem(json::parse(R"({"zeta": 1, "mid": null})")).value() == "/alpha: missing");
    CHECK_FALSE(schema.problem(json::parse(R"({"alpha": 1, "mid": null, "zeta": "z"})")));
    // Members before, between and after the properties: the extra ones by additionalProperties.
    CHECK_FALSE(schema.problem(json::parse(R"({"a": true, "alpha": 1, "b": false, "mid": {"x": 1},
                                       "zeta": null, "zz": true})")));
    CHECK(schema.problem(json::parse(R"({"alpha": 1, "b": 2, "mid": null, "zeta": 1})")).value() ==
          "/b: is number, the schema wants boolean");
    CHECK(schema.problem(json::parse(R"({"alpha": "1", "mid": null, "zeta": 1})")).value() ==
          "/alpha: is string, the schema wants integer");
    // No option matches: the last option's message, whether its type or what follows failed.
    CHECK(schema.problem(json::parse(R"({"alpha": 1, "mid": null, "zeta": true})")).value() ==
          "/zeta: is boolean, the schema wants integer");
    CHECK(schema.problem(json::parse(R"({"alpha": 1, "mid": {}, "zeta": 1})")).value() ==
          "/mid/x: missing");
    CHECK(schema.problem(json::parse(R"({"alpha": 1, "mid": 3, "zeta": 1})")).value() ==
          "/mid: is number, the schema wants object");
}
