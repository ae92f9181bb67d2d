// A SKU's fleet answer (`fleet recommend --json`, one element of `fleet skus --json`, the answer
// the database keeps) as one type with one writer and one reader. `fleet recommend`, `fleet
// skus`, the exports and the Prometheus metrics take this type; the reader checks a kept answer
// before it is shown again.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/documents/report.hpp"
#include "model/input/input_error.hpp"
#include "model/recommend.hpp"

namespace hugetune::model::fleet {

enum class SkuStatus { settled, needs_more_hosts, disagrees_with_verification };
std::string to_string(
    SkuStatus status);  // "settled", "needs_more_hosts", "disagrees_with_verification"

struct FleetAnswer {
    SkuKey sku;
    int hosts = 0;
    int runs = 0;
    SkuStatus status = SkuStatus::needs_more_hosts;
    std::string status_reason;  // one plain sentence
    Decision decision = Decision::set;
    std::uint64_t hugepage_alloc_threads = 1;
    std::string kernel_cmdline;  // "hugepage_alloc_threads=N"; empty when the default is kept
    double predicted_seconds = 0;
    std::optional<double> predicted_seconds_low, predicted_seconds_high;  // 5%..95%
    double saving_seconds = 0;
    std::optional<double> confidence;  // 0..1
    int verified_boots = 0;
    std::optional<double> verification_ratio;  // median measured/predicted of verified boots
    nlohmann::json recommendation;             // the whole fit (model::to_json(Recommendation))
};

// The headline fields flat, `sku` as its key text beside `sku_fields`, the fit under
// "recommendation".
nlohmann::json to_json(const FleetAnswer& answer);

// Throws InputError about `input` naming the field by its JSON path: a field missing or out of
// bounds, a `sku` that is not its `sku_fields`' key, a kernel_cmdline other than the value's.
FleetAnswer read_fleet_answer(const nlohmann::json& document, const InputSource& input = {});

}  // namespace hugetune::model::fleet
