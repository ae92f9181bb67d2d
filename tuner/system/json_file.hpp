// Reading a JSON document a user points hugetune at (a report, a sweep), with one clear error.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace hugetune {

// Throws UsageError "FILE: problem; fix" for a missing, unreadable, empty or malformed file
// (with the line and column of a syntax error).
nlohmann::json read_json_file(const std::filesystem::path& file);

// Parses `text` read from the file called `name` in messages; a syntax error is a UsageError
// "NAME:LINE:COLUMN: not valid JSON (what the parser saw); give a file written by hugetune".
nlohmann::json parse_json_text(const std::string& name, const std::string& text,
                               const nlohmann::json::parser_callback_t& callback = nullptr);

}  // namespace hugetune
