// The one writer and the one reader of a SKU's fleet answer.
#include "model/documents/fleet_answer.hpp"

#include <cmath>

#include "model/alloc_threads.hpp"
#include "model/fleet/fleet.hpp"
#include "model/input/json_fields.hpp"

namespace hugetune::model::fleet {
namespace {

using nlohmann::json;

constexpr const char* kAnswerFix = "compute the answer again with 'hugetune fleet recommend'";

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

SkuStatus read_status(const JsonField& field) {
    const std::string text = field.string();
    for (const SkuStatus s :
         {SkuStatus::settled, SkuStatus::needs_more_hosts, SkuStatus::disagrees_with_verification})
        if (to_string(s) == text)
            return s;
    field.fail("'" + text +
               "' is not one of settled, needs_more_hosts, disagrees_with_verification");
}

int count(const JsonField& field) {
    return static_cast<int>(field.whole_number({0, 1'000'000'000}));
}

void read_value(const JsonField& doc, FleetAnswer& a) {
    a.decision = read_decision(doc["decision"]);
    a.hugepage_alloc_threads =
        static_cast<std::uint64_t>(doc["hugepage_alloc_threads"].whole_number(
            {1, static_cast<std::int64_t>(kMaxAllocThreads)}));
    a.kernel_cmdline = doc["kernel_cmdline"].string();
    const std::string expected =
        a.decision == Decision::set ? alloc_threads_setting(a.hugepage_alloc_threads) : "";
    if (a.kernel_cmdline != expected)
        doc["kernel_cmdline"].fail("'" + a.kernel_cmdline + "' is not '" + expected +
                                   "', what decision and hugepage_alloc_threads say");
    a.predicted_seconds = doc["predicted_seconds"].non_negative_number();
    a.predicted_seconds_low = doc["predicted_seconds_low"].optional_non_negative_number();
    a.predicted_seconds_high = doc["predicted_seconds_high"].optional_non_negative_number();
    const auto saving = doc["saving_seconds"].hint<double>();
    if (!saving || !std::isfinite(*saving))
        doc["saving_seconds"].fail("must be a number");
    a.saving_seconds = *saving;
    a.confidence = doc["confidence"].optional_non_negative_number();
    if (a.confidence && *a.confidence > 1)
        doc["confidence"].fail("must be from 0 to 1");
}

}  // namespace

json to_json(const FleetAnswer& a) {
    return {{"sku", to_string(a.sku)},
            {"sku_fields", sku_fields(a.sku)},
            {"hosts", a.hosts},
            {"runs", a.runs},
            {"status", to_string(a.status)},
            {"status_reason", a.status_reason},
            {"decision", to_string(a.decision)},
            {"hugepage_alloc_threads", a.hugepage_alloc_threads},
            {"kernel_cmdline", a.kernel_cmdline},
            {"predicted_seconds", a.predicted_seconds},
            {"predicted_seconds_low", or_null(a.predicted_seconds_low)},
            {"predicted_seconds_high", or_null(a.predicted_seconds_high)},
            {"saving_seconds", a.saving_seconds},
            {"confidence", or_null(a.confidence)},
            {"verified_boots", a.verified_boots},
            {"verification_ratio", or_null(a.verification_ratio)},
            {"recommendation", a.recommendation}};
}

FleetAnswer read_fleet_answer(const json& document, const InputSource& input) {
    const JsonField doc(document, kAnswerFix, input);
    doc.object();
    FleetAnswer a;
    a.sku = read_sku(doc["sku_fields"]);
    if (const std::string key = doc["sku"].string(); key != to_string(a.sku))
        doc["sku"].fail("'" + key + "' is not '" + to_string(a.sku) + "', what sku_fields say");
    a.hosts = count(doc["hosts"]);
    a.runs = count(doc["runs"]);
    a.status = read_status(doc["status"]);
    a.status_reason = doc["status_reason"].string();
    read_value(doc, a);
    a.verified_boots = count(doc["verified_boots"]);
    a.verification_ratio = doc["verification_ratio"].optional_non_negative_number();
    doc["recommendation"].object();
    a.recommendation = document.at("recommendation");
    return a;
}

}  // namespace hugetune::model::fleet
