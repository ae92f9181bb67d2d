#include "model/documents/report_schema.hpp"

#include <nlohmann/json.hpp>

#include "model/documents/json_schema.hpp"

namespace hugetune::model {

// model/documents/schema_text.cpp.in, filled in by CMake with report.schema.json.
extern const char kReportSchemaText[];

const nlohmann::json& report_schema() {
    static const nlohmann::json schema = nlohmann::json::parse(kReportSchemaText);
    return schema;
}

std::optional<std::string> report_schema_problem(const nlohmann::json& report) {
    static const JsonSchema validator(report_schema());
    return validator.problem(report);
}

}  // namespace hugetune::model
