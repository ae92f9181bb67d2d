// The fleet's answers as JSON values, for `fleet recommend` and `fleet hosts --json`.
#include "model/fleet/fleet.hpp"

namespace hugetune::model::fleet {
namespace {

using nlohmann::json;

template <typename T>
json or_null(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

json sku_json(const SkuKey& key) {
    return {{"key", to_string(key)},
            {"microarch", key.microarch},
            {"nodes", key.nodes},
            {"hardware_threads_per_node", key.hardware_threads_per_node},
            {"memory_per_node_gib", key.memory_per_node_gib},
            {"page_size_kb", key.page_size_kb}};
}

}  // namespace

json to_json(const SkuAnswer& a) {
    return {{"sku", sku_json(a.sku)},
            {"hosts", a.hosts},
            {"runs", a.runs},
            {"status", to_string(a.status)},
            {"status_reason", a.status_reason},
            {"decision", to_string(a.recommendation.decision)},
            {"hugepage_alloc_threads", a.recommendation.hugepage_alloc_threads},
            {"kernel_cmdline", a.kernel_cmdline},
            {"verified_boots", a.verified_boots},
            {"verification_ratio", or_null(a.verification_ratio)},
            {"recommendation", to_json(a.recommendation)}};
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
