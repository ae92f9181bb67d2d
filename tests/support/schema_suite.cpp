// The built-in JSON Schema validator (model/documents/json_schema.hpp) against the official JSON
// Schema test suite (Debian's json-schema-test-suite, draft 7: the newest draft it ships), for
// every keyword the validator reads (JsonSchema::keywords(), the subset the shipped schemas use).
// Prints each case the validator does not support and fails on any case it decides wrongly.
//
//   schema-suite <suite tests directory, e.g. /usr/share/json-schema-test-suite/tests/draft7>
// Exit 0 when every supported case agrees, 1 when one does not, 77 when the suite is missing.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>

#include "model/documents/json_schema.hpp"

namespace {

using nlohmann::json;

// Keywords that say nothing about a document, and so have no cases of their own.
const std::set<std::string> kAnnotations = {"format", "description", "title",
                                            "$id",    "$schema",     "$defs"};

// Draft 7 keeps a schema's reusable parts in `definitions`, 2020-12 in `$defs`; the same parts
// under the new name, and every $ref into them renamed too.
json as_2020_12(const json& schema) {
    if (schema.is_array()) {
        json out = json::array();
        for (const auto& item : schema)
            out.push_back(as_2020_12(item));
        return out;
    }
    if (!schema.is_object())
        return schema;
    json out = json::object();
    for (const auto& [key, value] : schema.items()) {
        if (key == "$ref" && value.is_string() &&
            value.get<std::string>().rfind("#/definitions/", 0) == 0)
            out[key] = "#/$defs/" + value.get<std::string>().substr(14);
        else
            out[key == "definitions" ? "$defs" : key] = as_2020_12(value);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: schema-suite <suite tests directory>\n";
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    if (!std::filesystem::is_directory(dir)) {
        std::cout << "SKIP: the JSON Schema test suite is not at " << dir.string()
                  << "; install json-schema-test-suite\n";
        return 77;
    }
    int agreed = 0, unsupported = 0, wrong = 0;
    for (const std::string& keyword : hugetune::model::JsonSchema::keywords()) {
        if (kAnnotations.count(keyword))
            continue;
        const std::string file = (keyword == "$ref" ? "ref" : keyword) + ".json";
        std::ifstream in(dir / file);
        if (!in) {
            std::cout << "FAIL: " << file << " is missing from the suite\n";
            ++wrong;
            continue;
        }
        const json groups = json::parse(in);
        for (const auto& group : groups) {
            const std::string where = file + ": " + group["description"].get<std::string>();
            for (const auto& test : group["tests"]) {
                const std::string name = where + " / " + test["description"].get<std::string>();
                const bool expected = test["valid"].get<bool>();
                bool got = false;
                try {
                    got = !hugetune::model::JsonSchema(as_2020_12(group["schema"]))
                               .problem(test["data"]);
                } catch (const std::logic_error& e) {
                    std::cout << "not supported: " << name << " (" << e.what() << ")\n";
                    ++unsupported;
                    continue;
                }
                if (got == expected) {
                    ++agreed;
                } else {
                    std::cout << "FAIL: " << name << ": the validator says "
                              << (got ? "valid" : "invalid") << ", the suite "
                              << (expected ? "valid" : "invalid") << "\n";
                    ++wrong;
                }
            }
        }
    }
    std::printf("schema suite: %d agree, %d not supported, %d wrong\n", agreed, unsupported, wrong);
    std::printf("%d passed, %d failed\n", agreed, wrong);
    return wrong == 0 ? 0 : 1;
}
