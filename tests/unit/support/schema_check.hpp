// JSON documents against the shipped schemas (model/documents/schema/), through the validator the
// binary tests use too (tests/support/validate-schema.py; python3-jsonschema is a test
// dependency).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/unit/support/fixtures.hpp"
#include "tuner/system/process.hpp"

namespace hugetune::test {

// Exit code 0 when `document_file` validates against model/documents/schema/`schema_name`; the
// problems, one per line, are on err otherwise.
inline ProcessResult validate_file(const std::string& schema_name,
                                   const std::filesystem::path& document_file) {
    return run_program(
        {"/usr/bin/python3", (source_dir() / "tests/support/validate-schema.py").string(),
         (source_dir() / "model/documents/schema" / schema_name).string(), document_file.string()});
}

inline ProcessResult validate_json(const std::string& schema_name, const nlohmann::json& document) {
    auto file = std::filesystem::temp_directory_path() /
                ("hugetune-schema-check-" + std::to_string(getpid()) + ".json");
    std::ofstream(file) << document.dump(2);
    auto result = validate_file(schema_name, file);
    std::filesystem::remove(file);
    return result;
}

}  // namespace hugetune::test
