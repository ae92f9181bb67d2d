// The shipped report schema (model/documents/schema/report.schema.json), built into the binary so a
// report is checked against the very file that documents it.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace hugetune::model {

const nlohmann::json& report_schema();
// The first way `report` breaks the schema, as "PATH: what", or nothing.
std::optional<std::string> report_schema_problem(const nlohmann::json& report);

}  // namespace hugetune::model
