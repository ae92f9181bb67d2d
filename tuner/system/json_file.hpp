// Every JSON file hugetune reads (a report or a boot sweep the user names, its own ledger and
// state files) comes through read_json_file: read no further than the bound of every document
// and parsed by the one parser, which holds every document to one size and depth
// (model/input/json_text.hpp), with one clear error line. What is read from elsewhere too (fit's
// input, which may be CSV; fleet ingest's, which may be standard input) is read with
// read_document_bytes and parsed by the same parser.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/errors.hpp"
#include "tuner/system/root_dir.hpp"

namespace hugetune {

// Whose file it is, for its errors: a document the user gave is a usage error (UsageError)
// whose fix says where a good one comes from; a file hugetune keeps itself (`stored`) is a
// failure (RuntimeError) whose fix says how to recover from its damage.
struct JsonFileErrors {
    bool stored = false;
    Message fix = "give a file written by hugetune";
};

// Throws UsageError or RuntimeError (JsonFileErrors) "FILE: problem; fix" for a missing,
// unreadable, empty, malformed (with the line and column of a syntax error), too large or too
// deeply nested file.
nlohmann::json read_json_file(const std::filesystem::path& file, const JsonFileErrors& errors = {});

// The same for a file hugetune keeps, which need not exist and which a user without root may not
// read: nothing then.
std::optional<nlohmann::json> read_json_file_if_readable(const std::filesystem::path& file,
                                                         const JsonFileErrors& errors);

// The document at `target_path` in the tree `root`, opened through it (RootDir) and named in
// errors as root.shown() names it: nothing when no file is there, the errors of read_json_file
// otherwise (also for a file that cannot be read, or is not a regular file).
std::optional<nlohmann::json> read_json_file(const RootDir& root, std::string_view target_path,
                                             const JsonFileErrors& errors = {});
// The same, with nothing too for a file this user may not read (a ledger without root).
std::optional<nlohmann::json> read_json_file_if_readable(const RootDir& root,
                                                         std::string_view target_path,
                                                         const JsonFileErrors& errors);

// A file's bytes, read straight into the string a reader takes (open, fstat, read: no stream,
// no copy through a buffer), at most one byte past the most a document may hold
// (model::kMaxInputBytes), so that a larger one is refused by its size without being held
// whole; nothing when it cannot be opened or read.
std::optional<std::string> read_document_file(const std::filesystem::path& file);
// The same from a descriptor the caller opened.
std::optional<std::string> read_document_fd(int fd);

// At most 64 kB more than a document may hold (model::kMaxInputBytes), so a larger one is
// refused by its size without being held whole; nothing when `in` fails. `size_hint`, a file's
// size, spares the copies of a growing string.
std::optional<std::string> read_document_bytes(std::istream& in, std::uintmax_t size_hint = 0);

// Parses `text` read from the file called `name` in messages; a syntax error is an error
// "NAME:LINE:COLUMN: not valid JSON (what the parser saw); fix", a text beyond the bounds
// "NAME: larger than 64 MiB, the most hugetune reads; fix".
nlohmann::json parse_json_text(const std::string& name, const std::string& text,
                               const nlohmann::json::parser_callback_t& callback = nullptr,
                               const JsonFileErrors& errors = {});

}  // namespace hugetune
