#include "model/recommend/verdict.hpp"

#include "model/text.hpp"

namespace hugetune::model::recommend {

namespace {

std::string value_text(const Prediction& p) {
    return "hugepage_alloc_threads=" + std::to_string(p.total_threads) + " (" +
           significant_text(p.threads_per_node, 4) + " per node)";
}

std::string keep_default_verdict(const VerdictFacts& f, const RecommendOptions& o) {
    const Outcome& out = f.outcome;
    std::string s = "Keep the kernel default, " + value_text(out.chosen) + ": ";
    const std::string best =
        out.best.total_threads == out.chosen.total_threads
            ? std::string("it is the best predicted value")
            : "the best, hugepage_alloc_threads=" + std::to_string(out.best.total_threads) +
                  ", is predicted at " + seconds_text(out.best.seconds);
    if (out.at_default.seconds < o.small_boot_seconds)
        s += "boot allocation is predicted to take only " + seconds_text(out.at_default.seconds) +
             " there and " + best + "; the setting hardly matters here.";
    else
        s += "it is predicted at " + seconds_text(out.at_default.seconds) + ", within " +
             percent_text(o.tolerance) + " of the best value's time; " + best + ".";
    if (f.confidence && *f.confidence < o.low_confidence)
        s += " Only " + percent_text(*f.confidence) +
             " of bootstrap resamples reach the same decision.";
    return s;
}

std::string set_verdict(const VerdictFacts& f, const RecommendOptions& o) {
    const Outcome& out = f.outcome;
    const std::string versus = "predicted " + seconds_text(out.chosen.seconds) + " vs " +
                               seconds_text(out.at_default.seconds) + " at the kernel default of " +
                               std::to_string(f.default_threads) + " thread(s) (saving " +
                               seconds_text(out.saving_seconds) + ")";
    const std::string setting = value_text(out.chosen);
    if (!f.confidence || *f.confidence < o.low_confidence)
        return "Best estimate: set " + setting + ", " + versus + ", but " +
               (f.confidence ? "only " + percent_text(*f.confidence) +
                                   " of bootstrap resamples reach the same decision"
                : f.fallback ? std::string("a rule decided it, not a fitted curve")
                             : std::string("the data leave no way to estimate the uncertainty")) +
               "; measure more thread counts or repetitions before relying on it.";
    return "Set " + setting + ": " + versus + ", confidence " + percent_text(*f.confidence) + ".";
}

}  // namespace

std::string verdict(const VerdictFacts& f, const RecommendOptions& o) {
    const std::string body = f.outcome.decision == Decision::keep_default
                                 ? keep_default_verdict(f, o)
                                 : set_verdict(f, o);
    if (f.fallback)
        return "No curve could be fitted; deciding on the measured counts alone. " + body;
    return body;
}

}  // namespace hugetune::model::recommend
