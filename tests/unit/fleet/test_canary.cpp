// Canary plans (model/fleet/canary.hpp): which hosts boot which value, by a hash of their names,
// the values a plan may try, and what the boots since the plan started say per arm.
#include <doctest/doctest.h>

#include "model/fleet/canary.hpp"

using namespace hugetune::model::fleet;

namespace {

CanaryPlan plan(double share = 0.05) {
    CanaryPlan p;
    p.sku_key = "zen4/2n/32t/64g/2048k/ioa1";
    p.values = {8, 32, 12};
    p.share = share;
    p.answer_threads = 16;
    p.started_at = "2026-12-01T00:00:00Z";
    return p;
}

std::vector<std::string> hosts(int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back("web-" + std::to_string(i) + ".example.com");
    return out;
}

}  // namespace

TEST_CASE("canary: the share of hosts in arms, spread over the arms, the same every time") {
    const auto p = plan();
    std::vector<int> per_arm(p.values.size());
    int in_arms = 0;
    for (const auto& h : hosts(20000))
        if (const auto arm = canary_arm(p, h)) {
            ++in_arms;
            ++per_arm[*arm];
            CHECK(canary_arm(p, h) == arm);  // deterministic
        }
    CHECK(in_arms > 20000 * 0.04);
    CHECK(in_arms < 20000 * 0.06);
    for (const int n : per_arm) {
        CHECK(n > in_arms / 3 * 0.8);
        CHECK(n < in_arms / 3 * 1.2);
    }
    // A host keeps its arm when others join; another plan (another start) draws anew.
    auto later = p;
    later.started_at = "2026-12-02T00:00:00Z";
    int both = 0;
    for (const auto& h : hosts(20000))
        both += canary_arm(p, h) && canary_arm(later, h);
    CHECK(both < 200);  // about 5% of 5%
    CHECK_FALSE(canary_arm(plan(0), "web-1").has_value());
}

TEST_CASE("canary: default values and the values a plan may try") {
    CHECK(default_canary_values(16, 64) == std::vector<int>{8, 32});   // default 64/4 = 16
    CHECK(default_canary_values(16, 128) == std::vector<int>{8, 32});  // 128/4 = 32, once
    CHECK(default_canary_values(40, 48) == std::vector<int>{20, 48, 12});
    CHECK(default_canary_values(1, 2) == std::vector<int>{2});
    CHECK_FALSE(canary_values_problem({8, 32}, 16, 64).has_value());
    CHECK(canary_values_problem({}, 16, 64) == "no value to try");
    CHECK(canary_values_problem({0}, 16, 64)->find("outside 1 to 64") != std::string::npos);
    CHECK(canary_values_problem({65}, 16, 64)->find("outside 1 to 64") != std::string::npos);
    CHECK(canary_values_problem({5000}, 16, 8192)->find("outside 1 to 4096") != std::string::npos);
    CHECK(canary_values_problem({16}, 16, 64) == "16 is the answer itself");
    CHECK(canary_values_problem({8, 8}, 16, 64) == "8 is given twice");
}

TEST_CASE("canary: the boots since the plan started, per arm, against the minimum") {
    const auto p = plan(0.5);
    const auto all = hosts(40);
    std::vector<SkuBoot> boots;
    for (const auto& h : all) {
        const auto arm = canary_arm(p, h);
        const int threads = arm ? p.values[*arm] : p.answer_threads;
        // The arm at 32 is slow; a boot before the plan and one at another value do not count.
        const double ms = threads == 32 ? 3000 : 2000;
        boots.push_back({h, "6.15.3", threads, ms, 100000, false, "2026-12-01T08:00:00Z"});
        boots.push_back({h, "6.15.3", threads, 100, 100000, false, "2026-11-30T08:00:00Z"});
        boots.push_back({h, "6.15.3", 2, 100, 100000, false, "2026-12-01T09:00:00Z"});
    }
    const auto s = plan_status(p, all, boots);
    int assigned = s.answer.hosts;
    for (const auto& a : s.arms) {
        assigned += a.hosts;
        CHECK(a.hosts_booted == a.hosts);
        CHECK(a.boots == a.hosts);
        CHECK(a.enough == (a.hosts >= kMinBootHosts));
        CHECK(a.slower == (a.threads == 32));
    }
    CHECK(assigned == 40);
    CHECK(s.answer.ms_per_1000_pages == doctest::Approx(20.0));
    CHECK(s.summary.find("The canary at 32 boots more than 1.25 times slower") !=
          std::string::npos);
    // No boot yet: collecting.
    const auto none = plan_status(p, all, {});
    CHECK_FALSE(none.decided);
    CHECK(none.summary.rfind("Collecting", 0) == 0);
}
