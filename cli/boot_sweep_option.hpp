// --boot-sweep FILE of `fit` and `run`: a boot sweep's result to set beside the prediction.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "model/boot_comparison.hpp"
#include "model/input/fit_input.hpp"

namespace hugetune::cli {

inline constexpr const char* kBootSweepOptionHelp =
    "a result of 'hugetune boot-sweep': add a 'boot_sweep' block, the measured boot times "
    "beside the predicted ones";

// Reads and checks the file; UsageError "--boot-sweep FILE: problem; fix".
model::SweepData read_boot_sweep_option(const std::filesystem::path& file);

// The comparison for `recommendation`, with the option's name on an error.
model::BootComparison boot_sweep_comparison(const std::filesystem::path& file,
                                            const model::SweepData& boots,
                                            const model::Recommendation& recommendation);

}  // namespace hugetune::cli
