// The proxy against the truth: the model's predicted boot allocation time beside the kernel's
// own measured time at each thread count a boot sweep booted, for the pool the sweep booted.
// A fleet keeps the ratio per SKU as the proxy's error there.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"

namespace hugetune::model {

struct BootComparisonRow {
    int threads = 1;  // total, as booted
    std::size_t boots = 0;
    double measured_seconds = 0;  // median of the boots
    double predicted_seconds = 0;
    double ratio = 0;  // measured / predicted
};

struct BootComparison {
    std::uint64_t pages = 0;
    std::uint64_t page_size_kb = 0;
    std::optional<std::string> kernel_release;
    std::vector<BootComparisonRow> rows;  // ascending threads
};

// `boots` is a boot sweep's result (parse_boot_sweep_json). Throws InputError when it measured
// another page size than the recommendation's sweep.
BootComparison compare_with_boots(const Recommendation& r, const SweepData& boots);

nlohmann::json to_json(const BootComparison& comparison);

}  // namespace hugetune::model
