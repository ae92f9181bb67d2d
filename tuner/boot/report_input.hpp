// A `hugetune run` report given on the command line (--report FILE), read by its one reader
// (model/documents/report.hpp).
#pragma once

#include <filesystem>

#include "model/documents/report.hpp"

namespace hugetune {

// Throws UsageError ("FILE: problem; fix") for a missing, unreadable or malformed file and
// model::InputError about FILE, setting "report", for a document the reader refuses.
model::Report read_report_file(const std::filesystem::path& path,
                               const model::ReportReading& reading = {});

}  // namespace hugetune
