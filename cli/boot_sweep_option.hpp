// --boot-sweep FILE of `fit` and `run`: a boot sweep's result to set beside the prediction.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>

#include "model/boot_comparison.hpp"
#include "model/input/fit_input.hpp"

namespace hugetune::cli {

inline constexpr const char* kBootSweepOptionHelp =
    "a result of 'hugetune boot-sweep': add a 'boot_sweep' block, the measured boot times "
    "beside the predicted ones";

// Reads and checks the file; UsageError or model::InputError "--boot-sweep FILE: problem; fix".
// The data names the file, so model::compare_with_boots's errors do too.
model::SweepData read_boot_sweep_option(const std::filesystem::path& file);

}  // namespace hugetune::cli
