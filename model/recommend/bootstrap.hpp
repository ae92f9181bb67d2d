// The uncertainty of a recommendation: the same pipeline on resampled data, with the chosen
// model family, and the share of resamples that reach the same decision.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/recommend.hpp"
#include "model/recommend/pick.hpp"
#include "model/recommend/series.hpp"

namespace hugetune::model::recommend {

// What the bootstrap resamples: repetitions of every phase the series is built from (within
// hosts drawn first, when the series pools several), or the residuals of the chosen fit; none
// when there is nothing to resample.
enum class BootstrapMethod { none, hosts_then_repetitions, repetitions, residuals };
// "", "hosts, then repetitions", "repetitions", "residuals" (Recommendation::bootstrap_method)
std::string to_string(BootstrapMethod method);

BootstrapMethod bootstrap_method(const CostSeries& cost, const std::optional<ScalingFit>& chosen);

struct Bootstrap {
    BootstrapMethod method = BootstrapMethod::none;
    int resamples = 0;  // 0: not run (no method, or no resamples asked for)
    int usable_resamples = 0;
    int agreeing_resamples = 0;  // reaching the same decision, their pick within tolerance
    std::vector<std::vector<double>> seconds;  // per candidate, one per usable resample

    // The share of resamples reaching the same decision; absent when none ran. Unusable
    // resamples (no fit) count as disagreeing: they are evidence the data are thin.
    std::optional<double> confidence() const;
};

// `ours`: the decision on the full data, which each resample is compared with.
Bootstrap run_bootstrap(const CostSeries& cost, const std::optional<ScalingFit>& chosen,
                        const PoolPredictor& predictor, const Choice& ours,
                        const RecommendOptions& options, std::uint64_t seed);

// Each prediction with its 5%..95% interval (as given when no resample was usable). A
// percentile interval can miss the full-data prediction (the curve passes through the measured
// medians, the resamples' medians scatter around them unevenly): it is widened to hold it, as an
// interval qualifying a value must.
std::vector<Prediction> with_intervals(std::vector<Prediction> predictions,
                                       const Bootstrap& bootstrap);

}  // namespace hugetune::model::recommend
