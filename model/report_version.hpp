// The version of the fleet report's schema (model/documents/schema/report.schema.json): written by
// reports/report.cpp and checked by every command that reads a report back, which both depend
// on model and so share this one definition.
#pragma once

namespace hugetune {

// Bumped when a field changes meaning or disappears; independent of the tool version.
inline constexpr int kReportSchemaVersion = 1;

}  // namespace hugetune
