// The proxy against the truth: the model's predicted boot allocation time beside the kernel's
// own measured time at each thread count a boot sweep booted, for the pool the sweep booted.
// A fleet keeps the ratio per SKU as the proxy's error there. Boots at the other setting of
// init_on_alloc or HVO than the sweep's are set beside the what-if prediction for that setting
// (model/boot_breakdown.hpp), the ground truth for the what-if rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/boot_breakdown.hpp"
#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"

namespace hugetune::model {

// Times in milliseconds, the unit the report's boot_sweep block gives them in, so that a report
// read back is written again the same (model/documents/boot_comparison.hpp).
struct BootComparisonRow {
    int threads = 1;  // total, as booted
    std::size_t boots = 0;
    double measured_ms = 0;  // median of the boots
    double predicted_ms = 0;
    double ratio = 0;  // measured / predicted
};

// A what-if prediction in milliseconds, with its interval where one was estimated.
struct PredictedMs {
    double ms = 0;
    std::optional<double> low_ms, high_ms;
};

// Boots at one setting the other way, beside the what-if row's prediction at their count.
struct BootWhatIfRow {
    std::string parameter;  // as WhatIf has it: "init_on_alloc", "hugetlb_free_vmemmap"
    std::string value;      // "0", "1", "on", "off"; "" when both differ from the sweep's
    int threads = 1;
    bool recommended = false;  // the count the report's what-if row is at
    std::size_t boots = 0;
    double measured_ms = 0;                // median of the boots
    std::optional<PredictedMs> predicted;  // nothing: not predicted, see `note`
    std::optional<double> ratio;           // measured / predicted
    std::string note;                      // how it was predicted, or why not
};

struct BootComparison {
    std::uint64_t pages = 0;
    std::uint64_t page_size_kb = 0;
    std::optional<std::string> kernel_release;
    // The prediction's settings, which the boots in `rows` share; nothing: unknown.
    std::optional<bool> init_on_alloc, hvo;
    std::vector<BootComparisonRow> rows;  // ascending threads
    std::vector<BootWhatIfRow> what_if;   // by setting in boot order, then ascending threads
    std::vector<std::string> unmatched;   // settings no prediction covers, one line each
};

// What the what-if rows need beyond the recommendation: the sweep it was fitted from and the
// kernel's options (model/boot_breakdown.hpp).
struct WhatIfBasis {
    const SweepData* sweep = nullptr;
    KernelOptions kernel;
};

// `boots` is a boot sweep's result (parse_boot_sweep_json). Its boots at the prediction's
// settings (or whose settings are unknown) go in `rows`; with `basis`, those at init_on_alloc or
// HVO the other way go in `what_if`. Throws InputError when it measured another page size than
// the recommendation's sweep.
BootComparison compare_with_boots(const Recommendation& r, const SweepData& boots,
                                  const WhatIfBasis& basis = {});

}  // namespace hugetune::model
