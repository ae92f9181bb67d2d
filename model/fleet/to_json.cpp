// The fleet's answers as JSON values, for `fleet recommend` and `fleet hosts --json`.
#include "model/fleet/fleet.hpp"

namespace hugetune::model::fleet {
namespace {

using nlohmann::json;

template <typename T>
json or_null(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

json sku_fields(const SkuKey& key) {
    return {{"microarch", key.microarch},
            {"nodes", key.nodes},
            {"hardware_threads_per_node", key.hardware_threads_per_node},
            {"memory_per_node_gib", key.memory_per_node_gib},
            {"page_size_kb", key.page_size_kb}};
}

}  // namespace

// The answer's headline fields flat, as `fleet skus --json`, `fleet recommend --json` and the
// exports read them, and the whole fit under "recommendation".
json to_json(const SkuAnswer& a) {
    const Recommendation& r = a.recommendation;
    return {{"sku", to_string(a.sku)},
            {"sku_fields", sku_fields(a.sku)},
            {"hosts", a.hosts},
            {"runs", a.runs},
            {"status", to_string(a.status)},
            {"status_reason", a.status_reason},
            {"decision", to_string(r.decision)},
            {"hugepage_alloc_threads", r.hugepage_alloc_threads},
            {"kernel_cmdline", a.kernel_cmdline},
            {"predicted_seconds", r.predicted_seconds},
            {"predicted_seconds_low", or_null(r.predicted_seconds_low)},
            {"predicted_seconds_high", or_null(r.predicted_seconds_high)},
            {"saving_seconds", r.saving_seconds},
            {"confidence", or_null(r.confidence)},
            {"verified_boots", a.verified_boots},
            {"verification_ratio", or_null(a.verification_ratio)},
            {"recommendation", to_json(r)}};
}

json to_json(const HostCheck& c) {
    return {{"host", c.host},
            {"runs", c.runs},
            {"outlier", c.outlier},
            {"reasons", c.reasons},
            {"curve_deviation", or_null(c.curve_deviation)},
            {"verification_ratio", or_null(c.verification_ratio)},
            {"kernel_release", or_null(c.kernel_release)},
            {"firmware", or_null(c.firmware)}};
}

}  // namespace hugetune::model::fleet
