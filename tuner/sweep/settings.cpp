#include "tuner/sweep/settings.hpp"

#include <cmath>
#include <string>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/sweep/plan.hpp"

namespace hugetune {
void validate_sweep_options(const SweepOptions& options) {
    if (options.threads_per_node.empty())
        throw SettingError("threads_per_node", "give at least one thread count, e.g. 1,2,4");
    for (int n : options.threads_per_node)
        if (n < kMinThreadsPerNode || n > kMaxThreadsPerNode)
            throw SettingError("threads_per_node", std::to_string(n) +
                                                       " is not a thread count; use numbers from " +
                                                       std::to_string(kMinThreadsPerNode) + " to " +
                                                       std::to_string(kMaxThreadsPerNode));
    if (options.repetitions < kMinRepetitions || options.repetitions > kMaxRepetitions)
        throw SettingError("repetitions", "use " + std::to_string(kMinRepetitions) + " to " +
                                              std::to_string(kMaxRepetitions));
    if (options.budget_seconds &&
        !(std::isfinite(*options.budget_seconds) && *options.budget_seconds > 0))
        throw SettingError("budget_seconds", "give a number of seconds above 0, e.g. 30");
    if (options.phases.empty())
        throw SettingError("phases", "give at least one of alloc, zero, grow");
    if (!(options.max_memory_fraction > 0 && options.max_memory_fraction <= kMaxMaxMemoryFraction))
        throw SettingError("max_memory_fraction", "give a fraction above 0 and at most " +
                                                      number_text(kMaxMaxMemoryFraction) +
                                                      ", e.g. " +
                                                      number_text(kDefaultMaxMemoryFraction));
}

}  // namespace hugetune
