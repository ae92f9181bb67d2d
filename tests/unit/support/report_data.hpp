// The report built from fixed data: the committed 2-node Zen 4 sweep and the model's fit with
// its seed. Shared by the golden tests and the schema test.
#pragma once

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"
#include "reports/report.hpp"
#include "tests/unit/support/fixtures.hpp"

namespace hugetune::test {

inline nlohmann::json fixed_sweep() {
    std::ifstream in(source_dir() / "tests/data/sweep-zen4-2node.json");
    return nlohmann::json::parse(in);
}

inline nlohmann::json fixed_report() {
    auto sweep = fixed_sweep();
    auto recommendation =
        model::recommend_from_sweep(model::parse_sweep_json(sweep), model::RecommendOptions{});
    ReportInputs in;
    in.probe = sweep["probe"];
    in.sweep = sweep;
    in.fit = model::to_json(recommendation);
    in.boot_pool = {{"pages", static_cast<std::uint64_t>(recommendation.pool_pages)},
                    {"page_size_kb", 2048},
                    {"source", recommendation.pool_source}};
    in.tool_version = "0.1.0";
    in.tool_commit = "abc1234";
    in.generated_at = std::chrono::system_clock::from_time_t(1'780'000'000);
    return build_report(in);
}

}  // namespace hugetune::test
