// Fits both candidate curves to one series and picks one by small-sample AICc.
#pragma once

#include <span>
#include <string>

#include "model/fit/scaling_fit.hpp"

namespace hugetune::model {

struct ModelSelection {
    ScalingFit usl;
    ScalingFit amdahl;
    bool chose_usl = false;
    bool any_converged = false;  // false: neither fit is usable; callers fall back to the data
    std::string reason;          // why this one (AICc values, or why AICc could not decide)

    const ScalingFit& chosen() const { return chose_usl ? usl : amdahl; }
};

ModelSelection fit_and_select(std::span<const Point> points, const FitOptions& options = {});

// Chooses between two finished fits (exposed for tests).
ModelSelection select_model(ScalingFit usl, ScalingFit amdahl);

}  // namespace hugetune::model
