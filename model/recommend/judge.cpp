#include "model/recommend/judge.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "model/text.hpp"

namespace hugetune::model::recommend {

std::optional<Warning> poor_fit_warning(const ModelSelection& model, bool fallback) {
    if (fallback)
        return std::nullopt;
    const ScalingFit& f = model.chosen();
    if (f.fitted_points == 0)
        return std::nullopt;
    const double rms_log = std::sqrt(f.rss / static_cast<double>(f.fitted_points));
    if (f.r2 >= kPoorFitR2 || rms_log <= kPoorFitRmsLog)
        return std::nullopt;
    return Warning{"poor_fit", "poor fit: the " + to_string(f.model) + " curve explains R^2 " +
                                   decimals_text(f.r2, 3) +
                                   " of the variation in log time (below " +
                                   decimals_text(kPoorFitR2, 1) + ") and the points lie " +
                                   percent_text(std::expm1(rms_log)) +
                                   " from it on average; its predictions are not to be relied on "
                                   "(what the sweep cannot reproduce of the boot: "
                                   "docs/kernel-facts.md \"The sweep against the boot\")"};
}

FitJudgement judge_fit(const FittedModels& fits) {
    FitJudgement out;
    if (auto w = poor_fit_warning(fits.model, fits.fallback))
        out.remarks.warnings.push_back(std::move(*w));
    return out;
}

Remarks judge_pick(const Outcome& outcome, const ThreadLimits& limits, const FittedModels& fits,
                   CostBasis basis, const RecommendOptions& o) {
    Remarks out;
    // A series held flat claims nothing beyond its one count: its own warning says so.
    const bool from_curve = !fits.fallback && basis != CostBasis::alloc_only_flat;
    const double threads_per_node = outcome.chosen.threads_per_node;
    if (from_curve && threads_per_node > limits.max_measured)
        out.warnings.push_back(
            {"extrapolated", "the recommended " + significant_text(threads_per_node, 4) +
                                 " per node lies beyond the largest measured count (" +
                                 std::to_string(static_cast<int>(limits.max_measured)) +
                                 "): extrapolated"});
    if (from_curve && threads_per_node < limits.min_measured)
        out.notes.push_back(
            "the recommended count lies below the smallest measured one: "
            "extrapolated");
    if (outcome.chosen.seconds < o.small_boot_seconds)
        out.notes.push_back("predicted boot allocation time is small (" +
                            seconds_text(outcome.chosen.seconds) + "): little to gain");
    return out;
}

Remarks judge_resampling(int resamples, int usable_resamples, double confidence,
                         double low_confidence) {
    Remarks out;
    const int failed = resamples - usable_resamples;
    if (failed > kFailedResamplesShare * resamples)
        out.warnings.push_back(
            {"failed_resamples",
             std::to_string(failed) + " of " + std::to_string(resamples) +
                 " bootstrap resamples gave no usable fit (more than " +
                 percent_text(kFailedResamplesShare) +
                 "): the interval rests on the rest, and the confidence counts them as "
                 "disagreeing"});
    else if (failed > 0)
        out.notes.push_back(std::to_string(failed) + " bootstrap resample(s) gave no usable fit");
    if (confidence < low_confidence)
        out.warnings.push_back({"low_confidence", "low confidence: only " +
                                                      percent_text(confidence) +
                                                      " of bootstrap resamples reach the same "
                                                      "decision"});
    return out;
}

// A poor fit stays a warning of its own (judge_fit): the confidence is the share of resamples
// and nothing else, so that it means one thing from run to run.
Uncertainty judge_uncertainty(const Bootstrap& b, const FittedModels& fits, CostBasis basis,
                              const RecommendOptions& o) {
    Uncertainty u;
    if (basis == CostBasis::alloc_only_flat) {
        u.by_rule =
            "allocation alone could not be told apart from zeroing above 1 thread per node, so "
            "no gain from threads is assumed";
        return u;
    }
    if (fits.fallback) {
        u.by_rule = "no curve could be fitted, so the fastest measured count decided";
        return u;
    }
    u.confidence = b.confidence();
    if (!u.confidence) {
        u.remarks.warnings.push_back(
            {"no_uncertainty",
             "no uncertainty estimate: one sample per thread count and no residual degrees of "
             "freedom (measure repetitions or more thread counts)"});
        return u;
    }
    u.remarks = judge_resampling(b.resamples, b.usable_resamples, *u.confidence, o.low_confidence);
    return u;
}

}  // namespace hugetune::model::recommend
