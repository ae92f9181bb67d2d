#include "model/recommend.hpp"

#include "model/alloc_threads.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/cost_curve.hpp"
#include "model/fit/resampling.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

constexpr double kTiB = 1024.0 * 1024 * 1024 * 1024;

// Seconds per page for a sweep series (what carries over to a boot pool of any size, and makes
// lambda a rate in pages per second per node); a boot table's seconds stay as they are.
std::vector<Point> per_page(std::span<const Point> points, double pages_per_node) {
    std::vector<Point> out(points.begin(), points.end());
    if (pages_per_node > 0)
        for (auto& p : out)
            p.seconds /= pages_per_node;
    return out;
}

// The series fitted for the recommendation, rebuilt the same way from resampled data.
struct Series {
    std::vector<Point> points;
    int dropped = 0;
};

Series build_series(const BasisChoice& b, std::span<const Point> main, std::span<const Point> zero,
                    std::span<const Point> grow) {
    Series s;
    switch (b.basis) {
        case CostBasis::boot_table:
        case CostBasis::alloc_and_zero:
            s.points = per_page(main, b.main->pages_per_node);
            break;
        case CostBasis::alloc_zeroed_once:
        case CostBasis::alloc_only:
            s.points = boot_work_points(main, b.main->pages_per_node, zero, b.zero->pages_per_node,
                                        grow, b.grow != nullptr ? b.grow->pages_per_node : 1.0,
                                        b.separable_counts, &s.dropped);
            break;
        case CostBasis::alloc_only_flat:
            for (const auto& m : medians_per_count(per_page(grow, b.grow->pages_per_node)))
                if (m.threads_per_node == 1)
                    s.points.push_back(m);
            break;
    }
    return s;
}

// Predicted boot seconds at each candidate count, through one curve.
struct Evaluator {
    int nodes = 1;
    int cpu_cap = 1;
    double scale = 1;  // boot pool work / series work

    // Total threads the kernel would run for N per node, and so the per-node count it acts as:
    // the parameter is a total (docs/kernel-facts.md "A total, not per node"), capped here at
    // the online CPUs.
    int total(int threads_per_node) const { return std::min(threads_per_node * nodes, cpu_cap); }
    double seconds(const CostCurve& c, double total_threads) const {
        return c.seconds(total_threads / nodes) * scale;
    }
};

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

ScalingFit refit(const ScalingFit& like, std::span<const Point> points, const FitOptions& o) {
    return like.model == CurveModel::usl ? fit_usl(points, o, &like) : fit_amdahl(points, o, &like);
}

void check_options(const RecommendOptions& o) {
    if (!(o.tolerance >= 0 && o.tolerance < 1))
        throw std::invalid_argument("tolerance must be in [0, 1)");
}

template <typename T>
void append(std::vector<T>& to, const std::vector<T>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

struct NodeCount {
    int nodes = 1;
    std::vector<std::string> notes;
};

NodeCount count_nodes(const MachineFacts& m, const RecommendOptions& o) {
    NodeCount c{o.nodes.value_or(m.nodes.value_or(1)), {}};
    if (!o.nodes && !m.nodes)
        c.notes.push_back("node count unknown: assuming 1 node with memory (give --nodes)");
    if (c.nodes < 1)
        throw std::invalid_argument("nodes must be at least 1");
    return c;
}

// The cost basis and the series fitted for it.
struct CostSeries {
    BasisChoice basis;
    Series series;
    std::string curve;  // boot, alloc or alloc_only
    std::vector<std::string> notes;
    std::vector<Warning> warnings;
};

CostSeries choose_cost_series(const SweepData& data) {
    CostSeries c;
    c.basis = choose_basis(data);
    BasisChoice& basis = c.basis;
    c.notes = std::move(basis.notes);
    c.warnings = std::move(basis.warnings);
    if (basis.main == nullptr)
        throw InputError(data.input, std::nullopt,
                         "no boot or alloc series: nothing to base a boot time on");
    c.curve = curve_name(basis.basis);
    const std::vector<Point> no_points;
    c.series = build_series(basis, basis.main->points,
                            basis.zero != nullptr ? basis.zero->points : no_points,
                            basis.grow != nullptr ? basis.grow->points : no_points);
    if (c.series.dropped > 0)
        c.warnings.push_back(
            {"dropped_points",
             std::to_string(c.series.dropped) +
                 " thread count(s) left out: alloc minus zero was not positive there "
                 "(the allocation's cost lost in the zeroing noise)"});
    return c;
}

// How many threads the kernel value may take, and its default.
struct ThreadLimits {
    int cpu_cap = 1;
    int max_threads_per_node = 1;
    int default_threads = 1;
    double min_measured = 0, max_measured = 0;  // threads per node in the series
    std::vector<std::string> notes;
};

ThreadLimits thread_limits(const MachineFacts& m, const RecommendOptions& o, int nodes,
                           std::span<const Point> series) {
    ThreadLimits t;
    t.min_measured = std::numeric_limits<double>::infinity();
    for (const auto& p : series) {
        t.max_measured = std::max(t.max_measured, p.threads_per_node);
        t.min_measured = std::min(t.min_measured, p.threads_per_node);
    }
    const std::optional<int> cpus = o.online_cpus ? o.online_cpus : m.online_cpus;
    std::optional<int> per_node_limit = m.hw_threads_per_node;
    if (cpus)
        per_node_limit = std::min(per_node_limit.value_or(*cpus), std::max(1, *cpus / nodes));
    if (!per_node_limit) {
        per_node_limit = static_cast<int>(t.max_measured);
        t.notes.push_back("CPU count unknown: assuming at most " + std::to_string(*per_node_limit) +
                          " thread(s) per node, the largest measured (give --cpus)");
    }
    t.max_threads_per_node = std::max(1, *per_node_limit);
    t.cpu_cap = cpus.value_or(t.max_threads_per_node * nodes);
    t.default_threads = kernel_default_alloc_threads(t.cpu_cap);
    return t;
}

// The boot pool the predictions are for; none for a boot table (its own work).
struct BootPool {
    double pages = 0;
    std::string source;
    std::vector<std::string> notes;
};

BootPool choose_boot_pool(const SweepData& data, const RecommendOptions& o,
                          const PhaseSeries& main) {
    const MachineFacts& m = data.machine;
    if (main.pages_per_node <= 0)
        return {};
    if (o.pool_pages)
        return {static_cast<double>(*o.pool_pages), o.pool_source, {}};
    if (m.boot_pool_pages && *m.boot_pool_pages > 0)
        return {static_cast<double>(*m.boot_pool_pages), "cmdline", {}};
    if (m.current_pool_pages && *m.current_pool_pages > 0)
        return {static_cast<double>(*m.current_pool_pages),
                "current pool",
                {"no boot pool on the kernel command line: predicting for the " +
                 std::to_string(*m.current_pool_pages) + " pages in the pool now"}};
    // A stated reference size, so reports of machines without a pool still compare.
    return {std::round(kTiB / (static_cast<double>(data.page_size_kb) * 1024)),
            "1 TiB reference",
            {"no huge page pool configured: predicting for a 1 TiB reference pool"}};
}

// Every phase fitted for the record, and the recommendation's own series.
struct FittedModels {
    std::vector<PhaseModel> phases;
    ModelSelection model;
    std::optional<ScalingFit> chosen;  // absent: no fit converged
};

FittedModels fit_models(const SweepData& data, const CostSeries& cost, const FitOptions& fit) {
    FittedModels f;
    for (const auto& ph : data.phases) {
        PhaseModel pm{ph.phase, std::nullopt, {}};
        if (distinct_thread_counts(ph.points) >= kMinThreadCounts)
            pm.selection = fit_and_select(per_page(ph.points, ph.pages_per_node), fit);
        else
            pm.message = "not fitted: fewer than 3 thread counts";
        f.phases.push_back(std::move(pm));
    }
    if (cost.basis.basis == CostBasis::alloc_only_flat) {
        // Held flat on purpose: one measured count, nothing to fit.
        f.model.reason = "not fitted: allocation alone is held at its 1-thread time";
        return f;
    }
    f.model = fit_and_select(cost.series.points, fit);
    if (cost.basis.basis == CostBasis::alloc_zeroed_once ||
        cost.basis.basis == CostBasis::alloc_only)
        f.phases.push_back({cost.curve, f.model, {}});
    if (f.model.any_converged)
        f.chosen = f.model.chosen();
    return f;
}

// One value the kernel parameter may take: a per-node count times the nodes, or the default.
struct Candidate {
    double threads_per_node = 1;
    int total = 1;
};

// Every per-node count up to the limit (in a fallback the measured ones) and the kernel
// default, which is a total that may act as a fraction of a thread per node; ascending.
std::vector<Candidate> candidate_values(bool fallback, std::span<const Point> series,
                                        int max_threads_per_node, const Evaluator& ev,
                                        int default_total) {
    std::vector<int> per_node;
    if (!fallback) {
        for (int n = 1; n <= max_threads_per_node; ++n)
            per_node.push_back(n);
    } else {
        for (const auto& md : medians_per_count(series))
            if (md.threads_per_node <= max_threads_per_node)
                per_node.push_back(static_cast<int>(md.threads_per_node));
        if (per_node.empty())
            per_node.push_back(max_threads_per_node);
    }
    std::vector<Candidate> out;
    for (int n : per_node)
        out.push_back({static_cast<double>(n), ev.total(n)});
    const auto at_default = std::find_if(
        out.begin(), out.end(), [&](const Candidate& c) { return c.total == default_total; });
    if (at_default == out.end()) {
        const auto after = std::find_if(
            out.begin(), out.end(), [&](const Candidate& c) { return c.total > default_total; });
        out.insert(after, {static_cast<double>(default_total) / ev.nodes, default_total});
    }
    return out;
}

// Predicted boot seconds at every candidate value, through one curve.
struct PoolPredictor {
    Evaluator evaluator;
    std::vector<Candidate> candidates;
    std::size_t default_index = 0;

    std::vector<double> predict(const CostCurve& curve) const {
        std::vector<double> seconds;
        seconds.reserve(candidates.size());
        for (const auto& c : candidates)
            seconds.push_back(evaluator.seconds(curve, c.total));
        return seconds;
    }
};

PoolPredictor make_predictor(const Evaluator& ev, std::vector<Candidate> candidates,
                             int default_total) {
    PoolPredictor p{ev, std::move(candidates), 0};
    for (std::size_t i = 0; i < p.candidates.size(); ++i)
        if (p.candidates[i].total == default_total) {
            p.default_index = i;
            break;
        }
    return p;
}

// The decision on one set of predictions. The default stays when it is within the tolerance of
// the best (changing a boot parameter for less is not worth it, and the fewest threads within
// the tolerance could otherwise be slower than the default) or when the whole allocation at the
// default is short; otherwise the fewest threads within the tolerance of the best, which are
// then faster than the default.
struct Choice {
    Decision decision = Decision::keep_default;
    std::size_t pick = 0;
    std::size_t best = 0;
};

}  // namespace

std::size_t fewest_within_tolerance(const std::vector<double>& seconds, double tolerance) {
    const double good_enough = *std::min_element(seconds.begin(), seconds.end()) * (1 + tolerance);
    std::size_t i = 0;
    while (seconds[i] > good_enough)
        ++i;
    return i;
}

namespace {

Choice decide(const std::vector<double>& predicted, std::size_t default_index,
              const RecommendOptions& o) {
    Choice c;
    c.best = static_cast<std::size_t>(std::min_element(predicted.begin(), predicted.end()) -
                                      predicted.begin());
    const double good_enough = predicted[c.best] * (1 + o.tolerance);
    if (predicted[default_index] <= good_enough ||
        predicted[default_index] < o.small_boot_seconds) {
        c.pick = default_index;
        return c;
    }
    c.decision = Decision::set;
    c.pick = fewest_within_tolerance(predicted, o.tolerance);
    return c;
}

// The decision on the fitted curve, with every candidate's prediction.
struct Pick {
    Choice choice;
    std::vector<Prediction> predictions;
};

Pick pick_value(const CostCurve& curve, const PoolPredictor& predictor, const RecommendOptions& o) {
    const auto predicted = predictor.predict(curve);
    Pick p{decide(predicted, predictor.default_index, o), {}};
    for (std::size_t i = 0; i < predictor.candidates.size(); ++i) {
        const Candidate& c = predictor.candidates[i];
        p.predictions.push_back({c.threads_per_node, c.total, predicted[i], {}, {}});
    }
    return p;
}

// The values of one decision, read from the predictions (after the bootstrap has given them
// their intervals).
void record_pick(Recommendation& r, const Pick& pick, const PoolPredictor& predictor) {
    const Prediction& chosen = r.predictions[pick.choice.pick];
    const Prediction& best = r.predictions[pick.choice.best];
    const Prediction& at_default = r.predictions[predictor.default_index];
    r.decision = pick.choice.decision;
    r.threads_per_node = chosen.threads_per_node;
    r.hugepage_alloc_threads = chosen.total_threads;
    r.predicted_seconds = chosen.seconds;
    r.predicted_seconds_low = chosen.seconds_low;
    r.predicted_seconds_high = chosen.seconds_high;
    r.best_hugepage_alloc_threads = best.total_threads;
    r.predicted_best_seconds = best.seconds;
    // The default is a total; spread over the nodes it acts as default / nodes threads per node,
    // often a fraction (36 over 4 nodes = 9; 1 over 2 nodes = 0.5). The curve is continuous in
    // N, so it is read there directly; below one per node it scales as T(1) / N (CostCurve).
    r.default_threads_per_node = static_cast<double>(at_default.total_threads) / r.nodes;
    r.predicted_default_seconds = at_default.seconds;
    r.saving_seconds = r.decision == Decision::set ? at_default.seconds - chosen.seconds : 0.0;
}

// The fitted series' medians as boot seconds at their total, for the chart.
std::vector<Prediction> measured_boot_seconds(std::span<const Point> series, const Evaluator& ev) {
    std::vector<Prediction> out;
    for (const auto& md : medians_per_count(series)) {
        const double total = md.threads_per_node * ev.nodes;
        out.push_back({md.threads_per_node,
                       static_cast<int>(std::lround(total)),
                       md.seconds * ev.scale,
                       {},
                       {}});
    }
    return out;
}

// What the bootstrap resamples: repetitions of every phase the series is built from (within
// hosts drawn first, when the series pools several), or the residuals of the chosen fit.
struct ResampleSource {
    const BasisChoice* basis = nullptr;
    const Series* series = nullptr;
    const std::optional<ScalingFit>* chosen = nullptr;
    bool repetitions = false;
    std::size_t min_thread_counts = kMinThreadCounts;  // a usable resample's, 1 when held flat
    std::size_t hosts = 1;
    // Arranged once, so that a resample costs what the pools hold, not what the input had.
    std::optional<HostRepetitionPool> main, zero, grow;  // grow: when it has repetitions
    std::optional<ResidualPool> residuals;
};

std::size_t pooled_hosts(const BasisChoice& b) {
    const PhaseSeries* series = b.basis == CostBasis::alloc_only_flat ? b.grow : b.main;
    return std::max<std::size_t>(1, series->host_ends.size());
}

std::string bootstrap_method(const CostSeries& cost, const std::optional<ScalingFit>& chosen) {
    const BasisChoice& b = cost.basis;
    if (pooled_hosts(b) > 1)
        return "hosts, then repetitions";
    if (b.basis == CostBasis::alloc_only_flat)
        return has_repetitions(b.grow->points) ? "repetitions" : std::string();
    if (has_repetitions(b.main->points) && (b.zero == nullptr || has_repetitions(b.zero->points)))
        return "repetitions";
    if (chosen && static_cast<int>(chosen->residuals.size()) > chosen->parameters)
        return "residuals";
    return {};
}

ResampleSource resample_source(const CostSeries& cost, const std::optional<ScalingFit>& chosen,
                               bool repetitions) {
    const BasisChoice& b = cost.basis;
    ResampleSource from{&b, &cost.series, &chosen, repetitions, kMinThreadCounts, pooled_hosts(b),
                        {}, {},           {},      {}};
    if (b.basis == CostBasis::alloc_only_flat)
        from.min_thread_counts = 1;
    if (!repetitions) {
        from.residuals.emplace(cost.series.points, *chosen);
        return from;
    }
    from.main.emplace(b.main->points, b.main->host_ends);
    if (b.zero != nullptr)
        from.zero.emplace(b.zero->points, b.zero->host_ends);
    if (b.grow != nullptr && (from.hosts > 1 || has_repetitions(b.grow->points)))
        from.grow.emplace(b.grow->points, b.grow->host_ends);
    return from;
}

Series resample(const ResampleSource& from, Resampler& rng) {
    if (!from.repetitions)
        return {from.residuals->draw(rng), 0};
    const BasisChoice& b = *from.basis;
    const auto drawn = draw_hosts(from.hosts, rng);
    // Alloc minus zero reads each phase only through its medians per count (boot_work_points),
    // so a resample of exact pools can be drawn as its medians: the same values, the same draws,
    // without sorting thousands of pooled samples per count.
    const bool medians =
        (b.basis == CostBasis::alloc_only || b.basis == CostBasis::alloc_zeroed_once) &&
        from.main->exact() && (!from.zero || from.zero->exact()) &&
        (!from.grow || from.grow->exact());
    const auto draw = [&](const HostRepetitionPool& pool) {
        return medians ? pool.draw_medians(drawn, rng) : pool.draw(drawn, rng);
    };
    const auto main = draw(*from.main);
    std::vector<Point> zero, grow;
    if (from.zero)
        zero = draw(*from.zero);
    if (from.grow)
        grow = draw(*from.grow);
    const std::span<const Point> grow_points =
        from.grow ? std::span<const Point>(grow)
                  : (b.grow != nullptr ? std::span<const Point>(b.grow->points) : grow);
    return build_series(b, main, zero, grow_points);
}

struct Bootstrap {
    int usable_resamples = 0;
    int agreeing_resamples = 0;  // reaching the same decision, their pick within tolerance
    std::vector<std::vector<double>> seconds;  // per candidate, one per usable resample
};

// Whether a resample reaches the decision made on the full data.
bool agrees(const Choice& ours, const std::vector<double>& predicted, const Choice& theirs,
            double tolerance) {
    if (theirs.decision != ours.decision)
        return false;
    return ours.decision == Decision::keep_default ||
           predicted[ours.pick] <= predicted[theirs.best] * (1 + tolerance);
}

// The same pipeline on resampled data, with the chosen model family.
Bootstrap bootstrap_predictions(const ResampleSource& from, const PoolPredictor& predictor,
                                const Choice& ours, const RecommendOptions& o, std::uint64_t seed) {
    Resampler rng(seed);
    Bootstrap out;
    out.seconds.resize(predictor.candidates.size());
    for (int b = 0; b < o.resamples; ++b) {
        const Series s = resample(from, rng);
        if (distinct_thread_counts(s.points) < from.min_thread_counts)
            continue;
        std::optional<ScalingFit> fit_b;
        if (*from.chosen) {
            fit_b = refit(**from.chosen, s.points, o.fit);
            if (!fit_b->ok())
                continue;
        }
        const auto predicted_b = predictor.predict(CostCurve(s.points, std::move(fit_b)));
        ++out.usable_resamples;
        for (std::size_t i = 0; i < predicted_b.size(); ++i)
            out.seconds[i].push_back(predicted_b[i]);
        if (agrees(ours, predicted_b, decide(predicted_b, predictor.default_index, o), o.tolerance))
            ++out.agreeing_resamples;
    }
    return out;
}

// Each prediction's 5%..95% interval. A percentile interval can miss the full-data prediction
// (the curve passes through the measured medians, the resamples' medians scatter around them
// unevenly): it is widened to hold it, as an interval qualifying a value must.
void record_bootstrap(Recommendation& r, const Bootstrap& b, int resamples) {
    r.resamples = resamples;
    r.usable_resamples = b.usable_resamples;
    // Unusable resamples (no fit) count as disagreeing: they are evidence the data are thin.
    r.confidence = static_cast<double>(b.agreeing_resamples) / resamples;
    if (b.usable_resamples == 0)
        return;
    for (std::size_t i = 0; i < r.predictions.size(); ++i) {
        Prediction& p = r.predictions[i];
        p.seconds_low = std::min(percentile(b.seconds[i], 0.05), p.seconds);
        p.seconds_high = std::max(percentile(b.seconds[i], 0.95), p.seconds);
    }
}

// Where the pick lies against the measured counts, and how much there is to gain.
void judge_pick(Recommendation& r, const ThreadLimits& limits, const RecommendOptions& o) {
    // A series held flat claims nothing beyond its one count: its own warning says so.
    const bool from_curve = !r.fallback && r.basis != CostBasis::alloc_only_flat;
    if (from_curve && r.threads_per_node > limits.max_measured)
        r.warnings.push_back(
            {"extrapolated", "the recommended " + significant_text(r.threads_per_node, 4) +
                                 " per node lies beyond the largest measured count (" +
                                 std::to_string(static_cast<int>(limits.max_measured)) +
                                 "): extrapolated"});
    if (from_curve && r.threads_per_node < limits.min_measured)
        r.notes.push_back(
            "the recommended count lies below the smallest measured one: "
            "extrapolated");
    if (r.predicted_seconds < o.small_boot_seconds)
        r.notes.push_back("predicted boot allocation time is small (" +
                          seconds_text(r.predicted_seconds) + "): little to gain");
}

// A fit is poor when it explains little of the variation in log time (R^2) and its points
// also lie far from it on average (root mean square of the log residuals): a flat curve with
// little noise has a low R^2 yet predicts well, and a steep one can have a high R^2 while
// missing by more than the tolerance the decision is made at.
constexpr double kPoorFitR2 = 0.8;
constexpr double kPoorFitRmsLog = 0.05;  // about 5% off the curve, over twice the tolerance
// The 5%..95% interval leaves 5% of resamples out on each side: when more than that many have
// no usable fit, the missing ones could move a whole tail.
constexpr double kFailedResamplesShare = 0.05;

// The chosen fit's R^2 when it is poor, with the warning.
std::optional<double> judge_fit(Recommendation& r) {
    if (r.fallback)
        return std::nullopt;
    const ScalingFit& f = r.model.chosen();
    if (f.residuals.empty())
        return std::nullopt;
    const double rms_log = std::sqrt(f.rss / static_cast<double>(f.residuals.size()));
    if (f.r2 >= kPoorFitR2 || rms_log <= kPoorFitRmsLog)
        return std::nullopt;
    r.warnings.push_back(
        {"poor_fit", "poor fit: the " + to_string(f.model) + " curve explains R^2 " +
                         decimals_text(f.r2, 3) + " of the variation in log time (below " +
                         decimals_text(kPoorFitR2, 1) + ") and the points lie " +
                         percent_text(std::expm1(rms_log)) +
                         " from it on average; its predictions are not to be relied on"});
    return std::clamp(f.r2, 0.0, 1.0);
}

// `poor_fit_r2`: the confidence is the share of resamples reaching the same decision, which
// trusts the curve's shape; a poor curve supports the decision only as far as it explains the
// data, so the share is multiplied by its R^2.
void judge_uncertainty(Recommendation& r, const RecommendOptions& o,
                       std::optional<double> poor_fit_r2) {
    if (!r.confidence) {
        r.warnings.push_back(
            {"no_uncertainty",
             "no uncertainty estimate: one sample per thread count and no residual degrees of "
             "freedom (measure repetitions or more thread counts)"});
        return;
    }
    if (poor_fit_r2)
        r.confidence = *r.confidence * *poor_fit_r2;
    const int failed = r.resamples - r.usable_resamples;
    if (failed > kFailedResamplesShare * r.resamples)
        r.warnings.push_back(
            {"failed_resamples",
             std::to_string(failed) + " of " + std::to_string(r.resamples) +
                 " bootstrap resamples gave no usable fit (more than " +
                 percent_text(kFailedResamplesShare) +
                 "): the interval rests on the rest, and the confidence counts them as "
                 "disagreeing"});
    else if (failed > 0)
        r.notes.push_back(std::to_string(failed) + " bootstrap resample(s) gave no usable fit");
    if (*r.confidence < o.low_confidence)
        r.warnings.push_back(
            {"low_confidence", "low confidence: only " + percent_text(*r.confidence) +
                                   " of bootstrap resamples reach the same decision" +
                                   (poor_fit_r2 ? " (after the poor fit's discount)" : "")});
}

std::string value_text(int total, double threads_per_node) {
    return "hugepage_alloc_threads=" + std::to_string(total) + " (" +
           significant_text(threads_per_node, 4) + " per node)";
}

std::string keep_default_verdict(const Recommendation& r, const RecommendOptions& o) {
    std::string s = "Keep the kernel default, " +
                    value_text(r.hugepage_alloc_threads, r.threads_per_node) + ": ";
    const std::string best =
        r.best_hugepage_alloc_threads == r.hugepage_alloc_threads
            ? std::string("it is the best predicted value")
            : "the best, hugepage_alloc_threads=" + std::to_string(r.best_hugepage_alloc_threads) +
                  ", is predicted at " + seconds_text(r.predicted_best_seconds);
    if (r.predicted_default_seconds < o.small_boot_seconds)
        s += "boot allocation is predicted to take only " +
             seconds_text(r.predicted_default_seconds) + " there and " + best +
             "; the setting hardly matters here.";
    else
        s += "it is predicted at " + seconds_text(r.predicted_default_seconds) + ", within " +
             percent_text(r.tolerance) + " of the best value's time; " + best + ".";
    if (r.confidence && *r.confidence < o.low_confidence)
        s += " Only " + percent_text(*r.confidence) +
             " of bootstrap resamples reach the same decision.";
    return s;
}

std::string set_verdict(const Recommendation& r, const RecommendOptions& o) {
    const std::string versus = "predicted " + seconds_text(r.predicted_seconds) + " vs " +
                               seconds_text(r.predicted_default_seconds) +
                               " at the kernel default of " + std::to_string(r.default_threads) +
                               " thread(s) (saving " + seconds_text(r.saving_seconds) + ")";
    const std::string setting = value_text(r.hugepage_alloc_threads, r.threads_per_node);
    if (!r.confidence || *r.confidence < o.low_confidence)
        return "Best estimate: set " + setting + ", " + versus + ", but " +
               (r.confidence ? "only " + percent_text(*r.confidence) +
                                   " of bootstrap resamples reach the same decision"
                             : std::string("the data leave no way to estimate the uncertainty")) +
               "; measure more thread counts or repetitions before relying on it.";
    return "Set " + setting + ": " + versus + ", confidence " + percent_text(*r.confidence) + ".";
}

std::string verdict(const Recommendation& r, const RecommendOptions& o) {
    const std::string body =
        r.decision == Decision::keep_default ? keep_default_verdict(r, o) : set_verdict(r, o);
    if (r.fallback)
        return "No curve could be fitted; deciding on the measured counts alone. " + body;
    return body;
}

}  // namespace

std::string to_string(Decision decision) {
    return decision == Decision::set ? "set" : "keep_default";
}

Recommendation recommend_from_sweep(const SweepData& data, const RecommendOptions& o) {
    check_options(o);
    Recommendation r;
    r.source = data.source;
    r.tolerance = o.tolerance;
    r.notes = data.notes;
    const MachineFacts& m = data.machine;

    const NodeCount nodes = count_nodes(m, o);
    r.nodes = nodes.nodes;
    append(r.notes, nodes.notes);
    const CostSeries cost = choose_cost_series(data);
    r.basis = cost.basis.basis;
    r.curve = cost.curve;
    r.series = cost.series.points;
    append(r.notes, cost.notes);
    append(r.warnings, cost.warnings);

    const ThreadLimits limits = thread_limits(m, o, r.nodes, r.series);
    append(r.notes, limits.notes);
    r.max_threads_per_node = limits.max_threads_per_node;
    r.cpu_cap = limits.cpu_cap;
    r.default_threads = limits.default_threads;
    r.key = {m.microarch, r.nodes, r.max_threads_per_node, data.page_size_kb};

    BootPool pool = choose_boot_pool(data, o, *cost.basis.main);
    r.pool_pages = pool.pages;
    r.pool_source = std::move(pool.source);
    append(r.notes, pool.notes);
    const bool per_page = cost.basis.main->pages_per_node > 0;
    r.lambda_unit = per_page ? "pages per second per node" : "table runs per second";
    // The kernel spreads the boot pool over the memory nodes (each worker interleaves).
    const Evaluator ev{r.nodes, r.cpu_cap, per_page ? r.pool_pages / r.nodes : 1.0};
    append(r.warnings, machine_warnings(m, data.page_size_kb));

    FittedModels fits = fit_models(data, cost, o.fit);
    r.phases = std::move(fits.phases);
    r.model = fits.model;
    r.fallback = !fits.chosen && r.basis != CostBasis::alloc_only_flat;
    if (r.fallback)
        r.warnings.push_back({"fit_fallback", "no fit converged (" + r.model.reason +
                                                  "): deciding on the measured counts instead"});

    const int default_total = std::min(r.default_threads, r.cpu_cap);
    const PoolPredictor predictor = make_predictor(
        ev, candidate_values(r.fallback, r.series, r.max_threads_per_node, ev, default_total),
        default_total);
    r.curve_fit = fits.chosen;
    const Pick pick = pick_value(CostCurve(r.series, r.curve_fit), predictor, o);
    r.predictions = pick.predictions;
    r.measured = measured_boot_seconds(r.series, ev);
    const std::optional<double> poor_fit_r2 = judge_fit(r);

    r.seed = o.seed.value_or(data.seed);
    r.bootstrap_method = bootstrap_method(cost, fits.chosen);
    if (!r.bootstrap_method.empty() && o.resamples > 0) {
        const ResampleSource source =
            resample_source(cost, fits.chosen, r.bootstrap_method != "residuals");
        record_bootstrap(r, bootstrap_predictions(source, predictor, pick.choice, o, r.seed),
                         o.resamples);
    }
    record_pick(r, pick, predictor);
    judge_pick(r, limits, o);
    judge_uncertainty(r, o, poor_fit_r2);
    r.verdict = verdict(r, o);
    return r;
}

double predict_boot_seconds(const Recommendation& r, double total_threads, double pool_pages) {
    const bool per_page = r.pool_pages > 0;
    const Evaluator ev{r.nodes, r.cpu_cap, per_page ? pool_pages / r.nodes : 1.0};
    return ev.seconds(CostCurve(r.series, r.curve_fit), total_threads);
}

}  // namespace hugetune::model
