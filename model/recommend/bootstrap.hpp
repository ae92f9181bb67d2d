// The uncertainty of a recommendation: the same pipeline on resampled data, with the chosen
// model family, and the share of resamples that reach the same decision.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/recommend.hpp"
#include "model/recommend/pick.hpp"
#include "model/recommend/series.hpp"

namespace hugetune::model::recommend {

// What the bootstrap resamples: whole rounds of one sweep (a round measures every point once,
// so a resample keeps what the points of one round shared: a busy spell of the host moves all of
// them), repetitions of every phase the series is built from (within hosts drawn first, when the
// series pools several), or the residuals of the chosen fit; none when there is nothing to
// resample.
enum class BootstrapMethod { none, hosts_then_repetitions, rounds, repetitions, residuals };
// "", "hosts, then repetitions", "rounds", "repetitions", "residuals"
// (Recommendation::bootstrap_method)
std::string to_string(BootstrapMethod method);

BootstrapMethod bootstrap_method(const CostSeries& cost, const std::optional<ScalingFit>& chosen);

// The rounds of one host's sweep: the number of samples every thread count of every phase the
// series is built from holds, each weighing 1 (sample k of a count is its k-th repetition, in
// the order measured); 0 when they differ, are pooled from hosts, fewer than 2, more than
// kExactResampleSamples in all, or a boot table's.
std::size_t sweep_rounds(const BasisChoice& basis);

// The points of one phase with every count's samples taken at the rounds `drawn` (indexes below
// the phase's rounds, repeats allowed), counts ascending. The same rounds for every phase of a
// resample keep the phases of one round together.
std::vector<Point> draw_rounds(std::span<const Point> points, std::span<const std::size_t> drawn);

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

// `ours`: the decision on the full data, which each resample is compared with. Each resample
// chooses its model again (model_selection.hpp) from the fits `model` started from, so a
// decision that rests on which model wins is as unsure as that choice.
Bootstrap run_bootstrap(const CostSeries& cost, const ModelSelection& model,
                        const std::optional<ScalingFit>& chosen, const PoolPredictor& predictor,
                        const Choice& ours, const RecommendOptions& options, std::uint64_t seed);

// Each prediction with its 5%..95% interval (as given when no resample was usable). A
// percentile interval can miss the full-data prediction (the curve passes through the measured
// medians, the resamples' medians scatter around them unevenly): it is widened to hold it, as an
// interval qualifying a value must.
std::vector<Prediction> with_intervals(std::vector<Prediction> predictions,
                                       const Bootstrap& bootstrap);

}  // namespace hugetune::model::recommend
