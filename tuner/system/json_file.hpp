// Reading a JSON document a user points hugetune at (a report, a sweep), with one clear error.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

namespace hugetune {

// Throws UsageError "FILE: problem; fix" for a missing, unreadable, empty or malformed file
// (with the line and column of a syntax error).
nlohmann::json read_json_file(const std::filesystem::path& file);

}  // namespace hugetune
