// The fleet's answers as their document, and each host's check as JSON for `fleet hosts --json`.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "model/documents/fit.hpp"
#include "model/documents/json_values.hpp"
#include "model/fleet/fleet.hpp"

namespace hugetune::model::fleet {
namespace {

using nlohmann::json;

}  // namespace

FleetAnswer fleet_answer(const SkuAnswer& a) {
    const Recommendation& r = a.recommendation;
    FleetAnswer f;
    f.sku = a.sku;
    f.hosts = a.hosts;
    f.runs = a.runs;
    f.status = a.status;
    f.status_reasons = a.reasons;
    f.status_reason = a.status_reason;
    f.excluded = a.excluded;
    f.pool = a.pool;
    f.decision = r.decision;
    f.hugepage_alloc_threads = static_cast<std::uint64_t>(r.hugepage_alloc_threads);
    f.kernel_cmdline = a.kernel_cmdline;
    f.predicted_seconds = r.predicted_seconds;
    f.predicted_seconds_low = r.predicted_seconds_low;
    f.predicted_seconds_high = r.predicted_seconds_high;
    f.saving_seconds = r.saving_seconds;
    f.confidence = r.confidence;
    f.verified_boots = a.verified_boots;
    f.verification_ratio = a.verification_ratio;
    f.boots = a.boots;
    if (a.boots && a.boots->decided) {
        // The boots' value, with the sweeps' prediction there (and its interval where the
        // bootstrap gave one for that value).
        const int threads = *a.boots->decided;
        f.decision = Decision::set;
        f.hugepage_alloc_threads = static_cast<std::uint64_t>(threads);
        const auto at =
            std::find_if(r.predictions.begin(), r.predictions.end(),
                         [&](const Prediction& p) { return p.total_threads == threads; });
        f.predicted_seconds = at != r.predictions.end()
                                  ? at->seconds
                                  : predict_boot_seconds(r, threads, r.pool_pages);
        f.predicted_seconds_low = at != r.predictions.end() ? at->seconds_low : std::nullopt;
        f.predicted_seconds_high = at != r.predictions.end() ? at->seconds_high : std::nullopt;
        f.saving_seconds = r.predicted_default_seconds - f.predicted_seconds;
    }
    f.recommendation = r;
    return f;
}

json to_json(const SkuAnswer& a) {
    return to_json(fleet_answer(a));
}

json to_json(const HostCheck& c) {
    json same = json::array();
    for (const auto& m : c.same_machine)
        same.push_back({{"host", m.host}, {"reason", m.reason}});
    json new_hardware = nullptr;
    if (const auto& n = c.new_hardware)
        new_hardware = {{"host", n->host},
                        {"since", n->since},
                        {"source", to_string(n->source)},
                        {"first_source", to_string(n->first_source)},
                        {"reason", new_hardware_text(*n)}};
    return {{"host", c.host},
            {"same_machine", same},
            {"new_hardware", new_hardware},
            {"runs", c.runs},
            {"outlier", c.outlier},
            {"reasons", c.reasons},
            {"curve_deviation", or_null(c.curve_deviation)},
            {"verification_ratio", or_null(c.verification_ratio)},
            {"kernel_release", or_null(c.kernel_release)},
            {"firmware", or_null(c.firmware)}};
}

}  // namespace hugetune::model::fleet
