// A `hugetune run` report given on the command line (--report FILE), read by its one reader
// (model/documents/report.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "model/documents/report.hpp"

namespace hugetune {

// Throws UsageError ("FILE: problem; fix") for a missing, unreadable or malformed file and
// model::InputError about FILE, setting "report", for a document the reader refuses.
model::Report read_report_file(const std::filesystem::path& path,
                               const model::ReportReading& reading = {});

// Validates a thread count given by the user or found in a report: 1..kMaxAllocThreads.
std::optional<std::uint64_t> parse_thread_count(std::string_view text);

}  // namespace hugetune
