#include "tests/support/clean_fleets.hpp"

#include <nlohmann/json.hpp>
#include <utility>

namespace hugetune::test {
namespace {

constexpr std::size_t kExamples = 5;

void tally(std::vector<model::fleet::FleetRun>&& runs, const model::fleet::FleetOptions& options,
           FalseCamps& out) {
    using model::fleet::SkuStatus;
    const model::fleet::SkuAnswer a = model::fleet::answer_sku(std::move(runs), options);
    ++out.skus;
    out.hosts += a.hosts;
    out.excluded_hosts += static_cast<int>(a.excluded.size());
    bool camp = false, disagreeing = false;
    for (const auto& r : a.reasons)
        if (r.code == SkuStatus::hosts_disagree)
            (r.reason.find("a camp, not outliers") != std::string::npos ? camp : disagreeing) =
                true;
    out.camp += camp ? 1 : 0;
    out.disagreeing += disagreeing ? 1 : 0;
    if (camp || disagreeing) {
        ++out.hosts_disagree;
        if (out.examples.size() < kExamples)
            out.examples.push_back(model::fleet::to_string(a.sku) + " (" + std::to_string(a.hosts) +
                                   " hosts): " + a.status_reason);
    }
}

}  // namespace

FalseCamps count_false_camps(const FleetSpec& spec, const model::fleet::FleetOptions& options) {
    FalseCamps out;
    std::vector<model::fleet::FleetRun> runs;
    nlohmann::json sku;  // the SKU block of the reports in `runs`
    generate_fleet(spec, [&](const std::string& host, nlohmann::json report) {
        if (!runs.empty() && report["sku"] != sku)
            tally(std::exchange(runs, {}), options, out);
        sku = report["sku"];
        runs.push_back({host, host + "-run", std::move(report)});
    });
    if (!runs.empty())
        tally(std::move(runs), options, out);
    return out;
}

}  // namespace hugetune::test
