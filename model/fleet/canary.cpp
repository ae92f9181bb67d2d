#include "model/fleet/canary.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "model/alloc_threads.hpp"
#include "model/digest.hpp"
#include "model/statistics.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

// SplitMix64's finaliser: FNV-1a leaves the last bytes of a text in its low bits, and host names
// of one fleet differ in their last bytes (web-17, web-18): mixed, every bit depends on all.
std::uint64_t mixed(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A host's place in [0, 1) for this plan, and a second draw for its arm.
std::pair<double, std::uint64_t> draws(const CanaryPlan& plan, const std::string& host) {
    Fnv1a text;
    text.add(plan.sku_key + "|" + plan.started_at + "|" + host);
    const std::uint64_t place = mixed(text.value());
    return {static_cast<double>(place >> 11) * 0x1.0p-53, mixed(place)};
}

void add_boots(ArmStatus& arm, const std::map<std::string, std::vector<double>>& by_host) {
    std::vector<double> medians;
    for (const auto& [host, values] : by_host) {
        arm.boots += static_cast<int>(values.size());
        medians.push_back(median(values));
    }
    arm.hosts_booted = static_cast<int>(medians.size());
    if (!medians.empty())
        arm.ms_per_1000_pages = median(medians);
    arm.enough = arm.hosts_booted >= kMinBootHosts;
}

}  // namespace

std::optional<std::size_t> canary_arm(const CanaryPlan& plan, const std::string& host) {
    if (plan.values.empty())
        return std::nullopt;
    const auto [place, arm] = draws(plan, host);
    if (place >= plan.share)
        return std::nullopt;
    return static_cast<std::size_t>(arm % plan.values.size());
}

std::vector<int> default_canary_values(int answer, int cpus) {
    const int most = std::min(cpus, static_cast<int>(kMaxAllocThreads));
    std::vector<int> out;
    for (const int v : {answer / 2, answer * 2, kernel_default_alloc_threads(cpus)}) {
        const int value = std::clamp(v, 1, std::max(1, most));
        if (value != answer && std::find(out.begin(), out.end(), value) == out.end())
            out.push_back(value);
    }
    return out;
}

std::optional<std::string> canary_values_problem(const std::vector<int>& values, int answer,
                                                 int cpus) {
    const int most = std::min(cpus, static_cast<int>(kMaxAllocThreads));
    if (values.empty())
        return "no value to try";
    std::set<int> seen;
    for (const int v : values) {
        if (v < 1 || v > most)
            return std::to_string(v) + " is outside 1 to " + std::to_string(most) + " (the SKU's " +
                   count_text(cpus, "hardware thread") + ")";
        if (v == answer)
            return std::to_string(v) + " is the answer itself";
        if (!seen.insert(v).second)
            return std::to_string(v) + " is given twice";
    }
    return std::nullopt;
}

PlanStatus plan_status(const CanaryPlan& plan, const std::vector<std::string>& hosts,
                       const std::vector<SkuBoot>& boots) {
    PlanStatus s;
    s.answer.threads = plan.answer_threads;
    for (const int v : plan.values)
        s.arms.push_back({v, 0, 0, 0, std::nullopt, false, false});
    std::map<std::string, std::optional<std::size_t>> arm_of;
    for (const auto& host : hosts) {
        const auto arm = canary_arm(plan, host);
        arm_of[host] = arm;
        ++(arm ? s.arms[*arm] : s.answer).hosts;
    }
    // Each arm's hosts' boots at its value since the plan started, per host.
    std::vector<std::map<std::string, std::vector<double>>> by_arm(plan.values.size());
    std::map<std::string, std::vector<double>> by_answer;
    for (const auto& b : boots) {
        const auto at = arm_of.find(b.host);
        if (at == arm_of.end() || b.recorded_at < plan.started_at || b.pool_pages == 0)
            continue;
        const double per_1000 = b.milliseconds * 1000.0 / static_cast<double>(b.pool_pages);
        if (at->second && b.threads == plan.values[*at->second])
            by_arm[*at->second][b.host].push_back(per_1000);
        else if (!at->second && b.threads == plan.answer_threads)
            by_answer[b.host].push_back(per_1000);
    }
    add_boots(s.answer, by_answer);
    std::vector<std::string> slower;
    bool all = s.answer.enough;
    for (std::size_t i = 0; i < s.arms.size(); ++i) {
        ArmStatus& arm = s.arms[i];
        add_boots(arm, by_arm[i]);
        all = all && arm.enough;
        if (arm.ms_per_1000_pages && s.answer.ms_per_1000_pages &&
            *arm.ms_per_1000_pages > *s.answer.ms_per_1000_pages * kCanarySlowerBound) {
            arm.slower = true;
            slower.push_back(std::to_string(arm.threads));
        }
    }
    s.decided = all;
    if (s.decided)
        s.summary = "Every arm and the answer have boots from " + std::to_string(kMinBootHosts) +
                    " hosts or more: the boots can decide (fleet recommend), and the plan's "
                    "arms are no longer exported.";
    else
        s.summary = "Collecting: an arm needs boots from " + std::to_string(kMinBootHosts) +
                    " hosts at its value.";
    if (!slower.empty())
        s.summary += " The canary at " + join(slower) + " boots more than " +
                     decimals_text(kCanarySlowerBound, 2) +
                     " times slower than the answer: stop the plan.";
    return s;
}

std::string arm_values_text(const std::vector<int>& values) {
    std::string out;
    for (const int v : values)
        out += (out.empty() ? "" : ",") + std::to_string(v);
    return out;
}

std::vector<int> arm_values_of(const std::string& text) {
    std::vector<int> out;
    for (const std::string_view item : comma_items(text))
        out.push_back(std::stoi(std::string(item)));
    return out;
}

}  // namespace hugetune::model::fleet
