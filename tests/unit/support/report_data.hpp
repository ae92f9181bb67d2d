// The report built from fixed data: the committed 2-node Zen 4 sweep and the model's fit with
// its seed. Shared by the golden tests and the schema test.
#pragma once

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/boot_breakdown.hpp"
#include "model/documents/breakdown.hpp"
#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"
#include "reports/report.hpp"
#include "tests/unit/support/fixtures.hpp"

namespace hugetune::test {

inline nlohmann::json fixed_sweep(const std::string& file = "sweep-zen4-2node.json") {
    std::ifstream in(source_dir() / "tests/data" / file);
    return nlohmann::json::parse(in);
}

// The kernel facts beside the fixed sweep for its breakdown: HVO on and switchable, 28 KiB of
// vmemmap freeable per 2 MiB page (the kernel's line for 64-byte struct pages), and per-node
// zeroable_hugepages.
inline model::KernelOptions fixed_kernel_options() {
    return {true, true, 28.0, true};
}

// With `breakdown`, the breakdown, what-if and first-touch (64 GiB) blocks too, from `kernel`
// (the fixed kernel options when not given; a sweep's own probe otherwise, as `run` takes it).
inline nlohmann::json report_of_sweep(const nlohmann::json& sweep, bool breakdown,
                                      bool kernel_from_probe) {
    const model::SweepData data = model::parse_sweep_json(sweep);
    auto recommendation = model::recommend_from_sweep(data, model::RecommendOptions{});
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
    if (breakdown) {
        const auto kernel = kernel_from_probe ? data.machine.kernel : fixed_kernel_options();
        const auto parts = model::boot_breakdown(recommendation, data, kernel).value();
        in.breakdown = model::to_json(parts);
        in.what_if = model::to_json(model::what_if_rows(recommendation, parts, kernel));
        in.first_touch = model::to_json(model::first_touch(data, 64, kernel).value());
    }
    return build_report(in);
}

inline nlohmann::json fixed_report(bool breakdown = false,
                                   const std::string& file = "sweep-zen4-2node.json",
                                   bool kernel_from_probe = false) {
    return report_of_sweep(fixed_sweep(file), breakdown, kernel_from_probe);
}

}  // namespace hugetune::test
