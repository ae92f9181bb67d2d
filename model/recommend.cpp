// recommend_from_sweep as a line of stages (model/recommend/), each returning its value; the
// Recommendation is assembled once, at the end, from those values.
#include "model/recommend.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/fit/resampling.hpp"
#include "model/recommend/bootstrap.hpp"
#include "model/recommend/judge.hpp"
#include "model/recommend/machine.hpp"
#include "model/recommend/pick.hpp"
#include "model/recommend/remarks.hpp"
#include "model/recommend/series.hpp"
#include "model/recommend/verdict.hpp"

namespace hugetune::model {
namespace recommend {
namespace {

void check_options(const RecommendOptions& o) {
    if (!(o.tolerance >= 0 && o.tolerance < 1))
        throw std::invalid_argument("tolerance must be in [0, 1)");
}

// Whether the fitted series is per page (a sweep's), so lambda is a rate in pages per second per
// node and predictions scale to the boot pool; else a boot table, its own work.
bool per_page_series(const CostSeries& cost) {
    return cost.basis.main->pages_per_node > 0;
}

// Every stage's value, for the one assembly.
struct Stages {
    const SweepData& data;
    const RecommendOptions& options;
    const NodeCount& nodes;
    const CostSeries& cost;
    const ThreadLimits& limits;
    const BootPool& pool;
    const FittedModels& fits;
    const std::vector<Prediction>& predictions;  // with their bootstrap intervals
    const std::vector<Prediction>& measured;
    const Outcome& outcome;
    const Bootstrap& bootstrap;
    const Uncertainty& uncertainty;
    const Remarks& remarks;  // every stage's, in order
    const std::string& verdict;
    const std::optional<ConfidenceSpread>& spread;
    std::uint64_t seed = 1;
};

Recommendation assemble(const Stages& s) {
    const MachineFacts& m = s.data.machine;
    const Outcome& out = s.outcome;
    return {
        .key = {m.microarch, s.nodes.nodes, s.limits.max_threads_per_node, s.data.page_size_kb},
        .source = s.data.source,
        .basis = s.cost.basis.basis,
        .curve = s.cost.curve,
        .model = s.fits.model,
        .series = s.cost.series.points,
        .curve_fit = s.fits.chosen,
        .lambda_unit =
            per_page_series(s.cost) ? "pages per second per node" : "table runs per second",
        .fallback = s.fits.fallback,
        .phases = s.fits.phases,
        .nodes = s.nodes.nodes,
        .cpu_cap = s.limits.cpu_cap,
        .max_threads_per_node = s.limits.max_threads_per_node,
        .pool_pages = s.pool.pages,
        .pool_source = s.pool.source,
        .decision = out.decision,
        .threads_per_node = out.chosen.threads_per_node,
        .hugepage_alloc_threads = out.chosen.total_threads,
        .predicted_seconds = out.chosen.seconds,
        .predicted_seconds_low = out.chosen.seconds_low,
        .predicted_seconds_high = out.chosen.seconds_high,
        .best_hugepage_alloc_threads = out.best.total_threads,
        .predicted_best_seconds = out.best.seconds,
        .default_threads = s.limits.default_threads,
        .default_threads_per_node = out.default_threads_per_node,
        .predicted_default_seconds = out.at_default.seconds,
        .saving_seconds = out.saving_seconds,
        .confidence = s.uncertainty.confidence,
        .decided_by_rule = s.uncertainty.by_rule,
        .confidence_spread = s.spread,
        .tolerance = s.options.tolerance,
        .predictions = s.predictions,
        .measured = s.measured,
        .bootstrap_method = to_string(s.bootstrap.method),
        .resamples = s.bootstrap.resamples,
        .usable_resamples = s.bootstrap.usable_resamples,
        .seed = s.seed,
        .notes = s.remarks.notes,
        .warnings = s.remarks.warnings,
        .verdict = s.verdict,
    };
}

}  // namespace

// The confidence of each of o.spread_sweeps sweeps resampled by rounds, decided again from the
// start (the cost basis and the model chosen anew). Only for one host's sweep measured in rounds.
std::optional<ConfidenceSpread> confidence_spread(const SweepData& data, const CostSeries& cost,
                                                  const Bootstrap& bootstrap,
                                                  const Outcome& outcome, double confidence,
                                                  const RecommendOptions& o, std::uint64_t seed) {
    if (bootstrap.method != BootstrapMethod::rounds || o.spread_sweeps <= 0)
        return std::nullopt;
    const std::size_t rounds = sweep_rounds(cost.basis);
    std::vector<std::string> drawn_phases;
    for (const PhaseSeries* p : {cost.basis.main, cost.basis.zero, cost.basis.grow})
        if (p != nullptr)
            drawn_phases.push_back(p->phase);
    RecommendOptions inner = o;
    inner.spread_sweeps = 0;
    inner.resamples = std::max(100, o.resamples / 10);
    ConfidenceSpread spread;
    std::vector<double> confidences;
    // Seeded apart from the bootstrap's own resamples (which take seed + index).
    Resampler rng(seed ^ 0x5EEDC0DEULL);
    for (int k = 0; k < o.spread_sweeps; ++k) {
        std::vector<std::size_t> drawn(rounds);
        for (auto& r : drawn)
            r = rng.index(rounds);
        SweepData again = data;
        for (auto& phase : again.phases)
            if (std::count(drawn_phases.begin(), drawn_phases.end(), phase.phase))
                phase.points = draw_rounds(phase.points, drawn);
        inner.seed = seed + static_cast<std::uint64_t>(k) + 1;
        ++spread.sweeps;
        try {
            const Recommendation r = recommend_from_sweep(again, inner);
            if (r.decision == outcome.decision &&
                r.hugepage_alloc_threads == outcome.chosen.total_threads)
                ++spread.same_decision;
            if (r.confidence)
                confidences.push_back(*r.confidence);
            else
                ++spread.by_rule;
        } catch (const Error&) {
            ++spread.by_rule;  // the resample supports no recommendation at all
        }
    }
    if (confidences.empty())
        return spread;
    std::sort(confidences.begin(), confidences.end());
    const auto at = [&](double q) {
        return confidences[static_cast<std::size_t>(
            std::lround(q * static_cast<double>(confidences.size() - 1)))];
    };
    // Widened to hold the full data's own confidence, as an interval qualifying a value must.
    spread.low = std::min(at(0.05), confidence);
    spread.high = std::max(at(0.95), confidence);
    return spread;
}

}  // namespace recommend

std::string to_string(Decision decision) {
    return std::string(name_of(kDecisionNames, decision));
}

std::size_t fewest_within_tolerance(const std::vector<double>& seconds, double tolerance) {
    const double good_enough = *std::min_element(seconds.begin(), seconds.end()) * (1 + tolerance);
    std::size_t i = 0;
    while (seconds[i] > good_enough)
        ++i;
    return i;
}

Recommendation recommend_from_sweep(const SweepData& data, const RecommendOptions& o) {
    using namespace recommend;
    check_options(o);
    const MachineFacts& m = data.machine;
    const NodeCount nodes = count_nodes(m, o);
    const CostSeries cost = choose_cost_series(data, o.words);
    const ThreadLimits limits = thread_limits(m, o, nodes.nodes, cost.series.points);
    const BootPool pool = choose_boot_pool(data, o, *cost.basis.main);
    const Remarks machine{{}, machine_warnings(m, data.page_size_kb)};
    const Evaluator ev =
        Evaluator::for_pool(nodes.nodes, limits.cpu_cap, per_page_series(cost), pool.pages);

    const FittedModels fits = fit_models(data, cost, o.fit);
    const FitJudgement judged_fit = judge_fit(fits);
    const PoolPredictor predictor = candidates(fits.fallback, cost.series.points, limits, ev);
    const Pick pick = pick_value(CostCurve(cost.series.points, fits.chosen), predictor, o);
    const std::uint64_t seed = o.seed.value_or(data.seed);
    const Bootstrap bootstrap =
        run_bootstrap(cost, fits.model, fits.chosen, predictor, pick.choice, o, seed);
    const std::vector<Prediction> predictions = with_intervals(pick.predictions, bootstrap);
    const Outcome outcome = settle(pick.choice, predictions, predictor.default_index, nodes.nodes);

    const Remarks judged_pick = judge_pick(outcome, limits, fits, cost.basis.basis, o);
    const Uncertainty uncertainty = judge_uncertainty(bootstrap, fits, cost.basis.basis, o);
    const std::optional<ConfidenceSpread> spread =
        uncertainty.confidence
            ? confidence_spread(data, cost, bootstrap, outcome, *uncertainty.confidence, o, seed)
            : std::nullopt;
    const std::string sentence =
        verdict({outcome, uncertainty.confidence, limits.default_threads, fits.fallback}, o);
    const Remarks data_notes{data.notes, {}};
    const Remarks remarks =
        joined({&data_notes, &nodes.remarks, &cost.remarks, &limits.remarks, &pool.remarks,
                &machine, &fits.remarks, &judged_fit.remarks, &judged_pick, &uncertainty.remarks});
    const std::vector<Prediction> measured = measured_boot_seconds(cost.series.points, ev);
    return assemble({.data = data,
                     .options = o,
                     .nodes = nodes,
                     .cost = cost,
                     .limits = limits,
                     .pool = pool,
                     .fits = fits,
                     .predictions = predictions,
                     .measured = measured,
                     .outcome = outcome,
                     .bootstrap = bootstrap,
                     .uncertainty = uncertainty,
                     .remarks = remarks,
                     .verdict = sentence,
                     .spread = spread,
                     .seed = seed});
}

std::vector<Warning> warnings_judged_again(const Recommendation& fit, const SweepData& data,
                                           std::optional<double> confidence) {
    using namespace recommend;
    const auto judged_here = [](const std::string& code) {
        return is_machine_warning(code) || code == "poor_fit" || code == "failed_resamples" ||
               code == "low_confidence";
    };
    std::vector<Warning> out = machine_warnings(data.machine, data.page_size_kb);
    for (const auto& w : fit.warnings)
        if (!judged_here(w.code))
            out.push_back(w);
    if (auto w = poor_fit_warning(fit.model, fit.fallback))
        out.push_back(std::move(*w));
    // A confidence is there exactly where judge_uncertainty judged the resampling.
    if (confidence)
        for (auto& w : judge_resampling(fit.resamples, fit.usable_resamples, *confidence,
                                        RecommendOptions{}.low_confidence)
                           .warnings)
            out.push_back(std::move(w));
    return out;
}

double predict_boot_seconds(const Recommendation& r, double total_threads, double pool_pages) {
    const auto ev =
        recommend::Evaluator::for_pool(r.nodes, r.cpu_cap, r.pool_pages > 0, pool_pages);
    return ev.seconds(CostCurve(r.series, r.curve_fit), total_threads);
}

}  // namespace hugetune::model
