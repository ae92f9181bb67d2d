// Canary plans (docs/fleet.md "Canary plans"): a small share of a SKU's hosts, chosen by a hash
// of each host's name, boots neighbouring hugepage_alloc_threads values at their routine
// reboots, so that the boots measure those values beside the answer; the plan ends when the
// boots decide or when it is stopped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/fleet/boots.hpp"

namespace hugetune::model::fleet {

inline constexpr double kDefaultCanaryShare = 0.05;
inline constexpr double kMaxCanaryShare = 0.5;  // the answer stays on most hosts
// A canary whose boots take more than this times the answer's (per page, hosts' medians) is
// called out: stop it. The factor of kHostAgreementFactor (model/fleet/fleet.hpp), set like it
// against the test generator's hosts only (tests/support/fleet_generator.cpp), no measured fleet.
inline constexpr double kCanarySlowerBound = 1.25;

struct CanaryPlan {
    std::string sku_key;
    std::vector<int> values;             // the arms, each a hugepage_alloc_threads value
    double share = kDefaultCanaryShare;  // of the SKU's hosts, over all arms
    int answer_threads = 1;              // the answer when the plan started
    std::string started_at;              // ISO 8601 UTC; boots from then on count
};

// The arm (index into values) of a host, or nothing: it stays on the answer. Deterministic: the
// host's name and the plan's SKU and start decide it, so a host added later joins an arm or not
// without moving the others.
std::optional<std::size_t> canary_arm(const CanaryPlan& plan, const std::string& host);

// Half and twice the answer and the kernel's default for the SKU's CPUs, each within 1 and the
// CPUs (and kMaxAllocThreads), without the answer itself and without repeats.
std::vector<int> default_canary_values(int answer, int cpus);

// A plan's values as canary_plans stores them, "8,32,64", and back.
std::string arm_values_text(const std::vector<int>& values);
std::vector<int> arm_values_of(const std::string& text);

// Why the values cannot be a plan's arms (outside 1..min(cpus, kMaxAllocThreads), the answer
// itself, a value twice, none), or nothing.
std::optional<std::string> canary_values_problem(const std::vector<int>& values, int answer,
                                                 int cpus);

struct ArmStatus {
    int threads = 0;
    int hosts = 0;         // assigned (for the answer: the hosts not in an arm)
    int hosts_booted = 0;  // of them, with a boot at this value since the plan started
    int boots = 0;
    std::optional<double> ms_per_1000_pages;  // the booted hosts' median
    bool enough = false;                      // hosts_booted >= kMinBootHosts
    bool slower = false;                      // beyond kCanarySlowerBound of the answer's: stop it
};

struct PlanStatus {
    ArmStatus answer;
    std::vector<ArmStatus> arms;
    // Every arm and the answer have boots from enough hosts: the boots can decide, and the plan
    // has done its work.
    bool decided = false;
    std::string summary;  // one or two sentences
};

// The boots of the plan's hosts since it started, per arm. `hosts`: the SKU's hosts the exports
// configure; `boots`: the SKU's boots (with their hosts and times).
PlanStatus plan_status(const CanaryPlan& plan, const std::vector<std::string>& hosts,
                       const std::vector<SkuBoot>& boots);

}  // namespace hugetune::model::fleet
