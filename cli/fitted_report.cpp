#include "cli/fitted_report.hpp"

#include <chrono>
#include <string>
#include <utility>

#include "tuner/system/build_info.hpp"

namespace hugetune::cli {

ReportInputs fitted_report_inputs(nlohmann::json probe, nlohmann::json sweep,
                                  const model::Recommendation& recommendation,
                                  std::uint64_t page_size_kb) {
    ReportInputs in;
    in.probe = std::move(probe);
    in.sweep = std::move(sweep);
    in.fit = model::to_json(recommendation);
    in.boot_pool = {{"pages", static_cast<std::uint64_t>(recommendation.pool_pages)},
                    {"page_size_kb", page_size_kb},
                    {"source", recommendation.pool_source}};
    in.tool_version = std::string(tool_version());
    in.tool_commit = tool_commit();
    in.generated_at = std::chrono::system_clock::now();
    return in;
}

}  // namespace hugetune::cli
