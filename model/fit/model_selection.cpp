#include "model/fit/model_selection.hpp"

#include <sstream>
#include <string>

namespace hugetune::model {
namespace {

std::string aicc_text(const ScalingFit& f) {
    std::ostringstream s;
    s.precision(3);
    s << std::fixed << *f.aicc;
    return s.str();
}

}  // namespace

ModelSelection select_model(ScalingFit usl, ScalingFit amdahl) {
    ModelSelection m{std::move(usl), std::move(amdahl), false, false, {}};
    const bool usl_ok = m.usl.ok(), amdahl_ok = m.amdahl.ok();
    m.any_converged = usl_ok || amdahl_ok;
    if (!m.any_converged) {
        m.reason =
            "neither fit converged (usl: " + m.usl.message + "; amdahl: " + m.amdahl.message + ")";
        return m;
    }
    if (usl_ok != amdahl_ok) {
        m.chose_usl = usl_ok;
        m.reason = std::string("only the ") + (usl_ok ? "usl" : "amdahl") + " fit converged";
        return m;
    }
    // Amdahl is the USL with kappa = 0, so the USL never fits worse; AICc asks whether its
    // third parameter buys enough to be worth estimating from this few points.
    if (m.usl.aicc && m.amdahl.aicc) {
        m.chose_usl = *m.usl.aicc < *m.amdahl.aicc;
        m.reason =
            "AICc usl " + aicc_text(m.usl) + " vs amdahl " + aicc_text(m.amdahl) + ": lower wins";
        return m;
    }
    // Too few points for the USL's small-sample correction: the data cannot justify its extra
    // parameter, so the simpler curve stands.
    m.chose_usl = false;
    m.reason = "with " + std::to_string(m.usl.fitted_points) +
               " points AICc cannot weigh the usl's third parameter (it needs at least 6); "
               "using the simpler amdahl";
    return m;
}

ModelSelection fit_and_select(std::span<const Point> points, const FitOptions& options) {
    return select_model(fit_usl(points, options), fit_amdahl(points, options));
}

}  // namespace hugetune::model
