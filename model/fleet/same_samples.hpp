// One machine's sweep under two names with its numbers nudged (docs/fleet.md "The host-name
// rule"): whether two runs carry samples no measurement tells apart, and an index that finds such
// a run among a SKU's without comparing every pair.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "model/fleet/host_runs.hpp"

namespace hugetune::model::fleet {

// Two samples are one measurement's when they differ by at most this share of the larger: far
// below what tells two runs of one machine apart (a percent and more in every sample), far above
// what a copy nudged by a part in 10^9 or 10^12 moves. Why this share: docs/fleet.md "The
// host-name rule", with the stored figures.
inline constexpr double kSameSampleShare = 1e-6;

// Whether `a` and `b` carry one sweep's samples: the same phases, each with the same pages per
// node and as many samples at each thread count, and at each count the samples, sorted, each
// within kSameSampleShare of the other run's (the order of a count's repetitions aside).
bool same_samples(const RunFacts& a, const RunFacts& b);

// Where a run is among hosts: the host's index and the run's among its runs.
struct RunPlace {
    std::size_t host = 0;
    std::size_t run = 0;
};

// Runs by their samples' sum, in cells of twice the tolerance: a run with another's samples
// lies in that run's cell or a neighbour, so a lookup compares a few runs, not every one added.
class SameSamplesIndex {
  public:
    // The first run added that same_samples calls `run`'s, each added run read from `hosts`.
    std::optional<RunPlace> find(const RunFacts& run, const std::vector<HostRuns>& hosts) const;
    // `run`, which is hosts[place.host].runs[place.run] for every later find.
    void add(const RunFacts& run, RunPlace place);

  private:
    struct Entry {
        double log_sum = 0, log_least = 0, log_most = 0;
        RunPlace place;
    };
    std::unordered_map<std::int64_t, std::vector<Entry>> cells_;
};

}  // namespace hugetune::model::fleet
