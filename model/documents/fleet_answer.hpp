// A SKU's fleet answer (`fleet recommend --json`, one element of `fleet skus --json`, the answer
// the database keeps) as one type with one writer and one reader. `fleet recommend`, `fleet
// skus`, the exports and the Prometheus metrics take this type; the reader checks a kept answer
// before it is shown again.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/documents/report.hpp"
#include "model/fleet/boots.hpp"
#include "model/input/input_error.hpp"
#include "model/recommend.hpp"

namespace hugetune::model::fleet {

// Whether a SKU's answer may be rolled out: settled (by the sweeps, or by the hosts' boots),
// or the first condition it fails (docs/fleet.md "Status"), in the order the rules check them.
enum class SkuStatus {
    settled,
    settled_by_boots,
    needs_more_hosts,
    host_warnings,
    fit_warnings,
    low_confidence,
    hosts_disagree,
    disagrees_with_verification,
    disagrees_with_boots,
    stale_runs,
};
inline constexpr SkuStatus kSkuStatuses[] = {SkuStatus::settled,
                                             SkuStatus::settled_by_boots,
                                             SkuStatus::needs_more_hosts,
                                             SkuStatus::host_warnings,
                                             SkuStatus::fit_warnings,
                                             SkuStatus::low_confidence,
                                             SkuStatus::hosts_disagree,
                                             SkuStatus::disagrees_with_verification,
                                             SkuStatus::disagrees_with_boots,
                                             SkuStatus::stale_runs};
std::string to_string(SkuStatus status);  // the enumerator's name: "settled", ...
// What the exports give as the status of a SKU that has no answer: its runs could not be fitted
// (a stored document the reader refuses, say); never settled.
inline constexpr std::string_view kSkuErrorStatus = "error";
// Settled either way: what the exports roll out.
inline bool is_settled(SkuStatus status) {
    return status == SkuStatus::settled || status == SkuStatus::settled_by_boots;
}

// One condition a SKU's answer fails.
struct StatusReason {
    SkuStatus code = SkuStatus::needs_more_hosts;
    std::string reason;  // one plain sentence
};

// One host left out of the SKU's fit, and why (check_hosts' reasons).
struct ExcludedHost {
    std::string host;
    std::vector<std::string> reasons;
};

// The boot pool a SKU's prediction is for.
struct FleetPool {
    std::uint64_t pages = 0;  // 0: none known (a boot table)
    std::uint64_t page_size_kb = 0;
    // "--boot-pages", "hosts' reports" or, when no report says, the fit's own
    // (Recommendation::pool_source: "cmdline", "current pool", "1 TiB reference").
    std::string source;
    int hosts = 0;        // fitted hosts whose newest report is for this pool
    int other_hosts = 0;  // fitted hosts whose newest report is for another pool
};

struct FleetAnswer {
    SkuKey sku;
    int hosts = 0;
    int runs = 0;
    SkuStatus status = SkuStatus::needs_more_hosts;
    std::vector<StatusReason> status_reasons;  // empty when settled
    std::string status_reason;                 // one plain sentence or several
    std::vector<ExcludedHost> excluded;        // hosts left out of the fit (outliers)
    FleetPool pool;
    Decision decision = Decision::set;
    std::uint64_t hugepage_alloc_threads = 1;
    std::string kernel_cmdline;  // "hugepage_alloc_threads=N"; empty when the default is kept
    double predicted_seconds = 0;
    std::optional<double> predicted_seconds_low, predicted_seconds_high;  // 5%..95%
    double saving_seconds = 0;
    std::optional<double> confidence;  // 0..1
    int verified_boots = 0;
    std::optional<double> verification_ratio;  // median measured/predicted of verified boots
    std::optional<SkuBoots> boots;             // the hosts' recorded boots; none without
    // The whole fit (written by model::to_json(Recommendation), read by model::read_fit); none
    // where a listing did not read it (fleet_db_option.hpp Fit::skip), written as {}.
    std::optional<Recommendation> recommendation;
};

// The headline fields flat, `sku` as its key text beside `sku_fields`, the fit under
// "recommendation".
nlohmann::json to_json(const FleetAnswer& answer);

// Throws InputError about `input` naming the field by its JSON path: a field missing or out of
// bounds, a `sku` that is not its `sku_fields`' key, a kernel_cmdline other than the value's.
FleetAnswer read_fleet_answer(const nlohmann::json& document, const InputSource& input = {});

}  // namespace hugetune::model::fleet
