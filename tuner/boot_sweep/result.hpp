// The answer of a boot sweep: the kernel's own allocation times per thread count, their
// median and spread, and the fewest threads within the tolerance of the best median.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/input/fit_input.hpp"
#include "tuner/boot_sweep/state.hpp"

namespace hugetune::boot_sweep {

inline constexpr const char* kResultFormat = model::kBootSweepFormat;
inline constexpr int kResultFormatVersion = model::kBootSweepFormatVersion;

struct ThreadsResult {
    int threads = 1;
    std::vector<double> milliseconds;  // each recorded repetition, in step order
    double median_ms = 0;
    double spread = 0;  // (slowest - fastest) / median
};

// The boots of one setting of init_on_alloc and hugetlb_free_vmemmap.
struct SettingResult {
    BootSettings settings;
    std::vector<ThreadsResult> by_threads;  // ascending, only counts with a recording
    std::optional<int> best_threads;        // nothing without any recording
};

struct Result {
    State state;
    bool complete = false;  // every step recorded
    // One per setting of the plan, in its order (one when the plan sets nothing).
    std::vector<SettingResult> by_setting;
    // The first setting's, which is the whole sweep's when the plan has one setting.
    std::vector<ThreadsResult> by_threads;
    std::optional<int> best_threads;
    double tolerance = 0;
};

// `tolerance` as model::RecommendOptions has it by default.
Result summarize(const State& state);
Result summarize(const State& state, double tolerance);

nlohmann::json to_json(const Result& result);
std::string format_result(const Result& result);

// Where the sweep stands: its phase, each step's attempt and recording, and once it has ended
// the result.
std::string format_status(const State& state);

}  // namespace hugetune::boot_sweep
