// The console output of `hugetune fit` and the table of measured boots beside a prediction.
#pragma once

#include <string>

#include "model/boot_comparison.hpp"
#include "model/recommend.hpp"

namespace hugetune {

// The verdict, the curve and its model (and each other phase's), the decision, the predicted
// time with its interval, the kernel default, the confidence, every prediction and warning.
std::string format_fit_summary(const model::Recommendation& recommendation);

// Measured boots (a boot sweep) against the prediction for their pool, one row per value.
std::string format_boot_comparison(const model::BootComparison& comparison);

}  // namespace hugetune
