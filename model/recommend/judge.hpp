// What weakens a recommendation, judged here and nowhere else: a poor fit, a pick outside the
// measured counts, too little to gain, resamples without a usable fit, low confidence.
#pragma once

#include <optional>

#include "model/recommend.hpp"
#include "model/recommend/bootstrap.hpp"
#include "model/recommend/machine.hpp"
#include "model/recommend/pick.hpp"
#include "model/recommend/remarks.hpp"
#include "model/recommend/series.hpp"

namespace hugetune::model::recommend {

// A fit is poor when it explains little of the variation in log time (R^2) and its points
// also lie far from it on average (root mean square of the log residuals): a flat curve with
// little noise has a low R^2 yet predicts well, and a steep one can have a high R^2 while
// missing by more than the tolerance the decision is made at.
inline constexpr double kPoorFitR2 = 0.8;
inline constexpr double kPoorFitRmsLog = 0.05;  // about 5% off the curve, over twice the tolerance
// The 5%..95% interval leaves 5% of resamples out on each side: when more than that many have
// no usable fit, the missing ones could move a whole tail.
inline constexpr double kFailedResamplesShare = 0.05;

struct FitJudgement {
    Remarks remarks;
};

FitJudgement judge_fit(const FittedModels& fits);
// The judgement of judge_fit, from what a fit keeps of it (a report's fit block read back too).
std::optional<Warning> poor_fit_warning(const ModelSelection& model, bool fallback);

// The bootstrap's failed resamples (a note, or failed_resamples when they could move a whole
// tail) and its confidence (low_confidence below `low_confidence`), from the numbers a fit keeps
// of it: judge_uncertainty's, and a report's fit block read back.
Remarks judge_resampling(int resamples, int usable_resamples, double confidence,
                         double low_confidence);

// Where the pick lies against the measured counts, and how much there is to gain.
Remarks judge_pick(const Outcome& outcome, const ThreadLimits& limits, const FittedModels& fits,
                   CostBasis basis, const RecommendOptions& options);

// The confidence as reported: the share of resamples that reach the same decision, one
// meaning wherever it is given. Absent where no curve decided (`by_rule` says which rule did:
// the data then weigh nothing a share could measure) or nothing could be resampled.
struct Uncertainty {
    std::optional<double> confidence;
    std::string by_rule;  // not empty: the decision came from a rule, not from a fitted curve
    Remarks remarks;
};

Uncertainty judge_uncertainty(const Bootstrap& bootstrap, const FittedModels& fits, CostBasis basis,
                              const RecommendOptions& options);

}  // namespace hugetune::model::recommend
