// The sweep settings' defaults and ranges: SweepOptions starts from them, and the values just
// outside each range are refused by validate_sweep_options and by plan_sweep alike.
#include <doctest/doctest.h>

#include <string>

#include "model/errors.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/plan.hpp"
#include "tuner/sweep/settings.hpp"

using namespace hugetune;

namespace {

// "setting: message" of the SettingError thrown, or "(accepted)".
std::string refusal(const SweepOptions& options) {
    try {
        validate_sweep_options(options);
    } catch (const SettingError& e) {
        return e.setting + ": " + e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("SweepOptions starts from the settings' defaults, which are valid") {
    SweepOptions o;
    CHECK(o.threads_per_node ==
          std::vector<int>(kDefaultThreadsPerNode.begin(), kDefaultThreadsPerNode.end()));
    CHECK(o.repetitions == kDefaultRepetitions);
    CHECK(o.phases == std::vector<Phase>(kDefaultPhases.begin(), kDefaultPhases.end()));
    CHECK(o.page_size_kb == kKernelDefaultPageSize);  // the plan asks the kernel
    CHECK_FALSE(o.sample_mib_per_node.has_value());   // kDefaultSampleMib, fitted by the plan
    CHECK(o.max_memory_fraction == kDefaultMaxMemoryFraction);
    CHECK(o.seed == kDefaultSeed);
    CHECK(refusal(o) == "(accepted)");
}

TEST_CASE("each range's bounds are accepted and the values just outside refused") {
    SweepOptions o;
    o.threads_per_node = {kMinThreadsPerNode, kMaxThreadsPerNode};
    o.repetitions = kMaxRepetitions;
    o.max_memory_fraction = kMaxMaxMemoryFraction;
    CHECK(refusal(o) == "(accepted)");
    o.repetitions = kMinRepetitions;
    CHECK(refusal(o) == "(accepted)");

    o = {};
    o.threads_per_node = {1, kMaxThreadsPerNode + 1};
    CHECK(refusal(o) == "threads_per_node: 4097 is not a thread count; use numbers from 1 to 4096");
    o.threads_per_node = {0};
    CHECK(refusal(o) == "threads_per_node: 0 is not a thread count; use numbers from 1 to 4096");
    o.threads_per_node = {};
    CHECK(refusal(o) == "threads_per_node: give at least one thread count, e.g. 1,2,4");
    o = {};
    o.repetitions = kMinRepetitions - 1;
    CHECK(refusal(o) == "repetitions: use 1 to 1000");
    o.repetitions = kMaxRepetitions + 1;
    CHECK(refusal(o) == "repetitions: use 1 to 1000");
    o = {};
    o.phases = {};
    CHECK(refusal(o) == "phases: give at least one of alloc, zero, grow");
    for (double fraction : {0.0, -0.5, 0.91, 1.0}) {
        o = {};
        o.max_memory_fraction = fraction;
        CHECK(refusal(o) ==
              "max_memory_fraction: give a fraction above 0 and at most 0.9, e.g. 0.5");
    }
}

TEST_CASE("plan_sweep refuses what validate_sweep_options refuses, with the same error") {
    KernelFs fs(std::string(HUGETUNE_SOURCE_DIR) + "/tests/fixtures/vm-1node");
    Probe probe = probe_machine(fs);
    MemoryView memory = read_memory_view(fs, probe);
    SweepOptions o;
    o.max_memory_fraction = 0.95;
    try {
        plan_sweep(probe, memory, o);
        FAIL("plan_sweep accepted max_memory_fraction 0.95");
    } catch (const SettingError& e) {
        CHECK(e.setting + ": " + e.what() == refusal(o));
    }
    o = {};
    o.repetitions = 0;
    CHECK_THROWS_AS(plan_sweep(probe, memory, o), SettingError);
}
