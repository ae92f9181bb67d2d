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
    if (b.basis != CostBasis::alloc_only) {
        s.points = per_page(main, b.main->pages_per_node);
        return s;
    }
    s.points =
        allocation_only_points(main, b.main->pages_per_node, zero, b.zero->pages_per_node, grow,
                               b.grow != nullptr ? b.grow->pages_per_node : 1.0, &s.dropped);
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

struct Choice {
    int threads_per_node = 1;
    double best_seconds = 0;
};

Choice choose(const std::vector<double>& predicted, const std::vector<int>& candidates,
              double tolerance) {
    const double best = *std::min_element(predicted.begin(), predicted.end());
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (predicted[i] <= best * (1 + tolerance))
            return {candidates[i], best};
    return {candidates.back(), best};
}

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

ScalingFit refit(const ScalingFit& like, std::span<const Point> points, const FitOptions& o) {
    return like.model == "usl" ? fit_usl(points, o, &like) : fit_amdahl(points, o, &like);
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
        throw InputError(std::nullopt, "no boot or alloc series: nothing to base a boot time on");
    c.curve = basis.basis == CostBasis::alloc_only ? "alloc_only" : basis.main->phase;
    const std::vector<Point> no_points;
    c.series = build_series(basis, basis.main->points,
                            basis.zero != nullptr ? basis.zero->points : no_points,
                            basis.grow != nullptr ? basis.grow->points : no_points);
    if (basis.basis == CostBasis::alloc_only &&
        distinct_thread_counts(c.series.points) < kMinThreadCounts) {
        // Allocation alone is lost in the zeroing noise (a small sample, a noisy machine):
        // allocation + zeroing bounds it from above and still has a shape to fit.
        c.warnings.push_back(
            {"alloc_only_unmeasurable",
             "allocation alone could not be separated from zeroing at enough thread counts "
             "(alloc minus zero was not positive): predicting from allocation + zeroing, which "
             "overstates boot time; measure a larger --sample-mib"});
        basis.basis = CostBasis::alloc_and_zero;
        basis.zero = basis.grow = nullptr;
        c.curve = basis.main->phase;
        c.series = build_series(basis, basis.main->points, no_points, no_points);
    }
    if (c.series.dropped > 0)
        c.warnings.push_back(
            {"dropped_points",
             std::to_string(c.series.dropped) +
                 " thread count(s) left out: alloc minus zero was not positive there "
                 "(allocation cost lost in the zeroing noise)"});
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
    f.model = fit_and_select(cost.series.points, fit);
    if (cost.basis.basis == CostBasis::alloc_only)
        f.phases.push_back({"alloc_only", f.model, {}});
    if (f.model.any_converged)
        f.chosen = f.model.chosen();
    return f;
}

// Every per-node count up to the limit, or in a fallback the measured ones.
std::vector<int> candidate_counts(bool fallback, std::span<const Point> series,
                                  int max_threads_per_node) {
    std::vector<int> candidates;
    if (!fallback) {
        for (int n = 1; n <= max_threads_per_node; ++n)
            candidates.push_back(n);
        return candidates;
    }
    for (const auto& md : medians_per_count(series))
        if (md.threads_per_node <= max_threads_per_node)
            candidates.push_back(static_cast<int>(md.threads_per_node));
    if (candidates.empty())
        candidates.push_back(max_threads_per_node);
    return candidates;
}

// Predicted boot seconds at every candidate count, through one curve.
struct PoolPredictor {
    Evaluator evaluator;
    std::vector<int> candidates;

    std::vector<double> predict(const CostCurve& curve) const {
        std::vector<double> seconds;
        seconds.reserve(candidates.size());
        for (int n : candidates)
            seconds.push_back(evaluator.seconds(curve, evaluator.total(n)));
        return seconds;
    }
};

// The count chosen on the fitted curve, and the kernel default on the same curve.
struct Pick {
    int threads_per_node = 1;
    int hugepage_alloc_threads = 1;
    double predicted_seconds = 0;
    double default_threads_per_node = 1;
    double predicted_default_seconds = 0;
    std::vector<Prediction> predictions;
};

Pick pick_count(const CostCurve& curve, const PoolPredictor& predictor, int default_threads,
                double tolerance) {
    const Evaluator& ev = predictor.evaluator;
    const auto predicted = predictor.predict(curve);
    Pick p;
    p.threads_per_node = choose(predicted, predictor.candidates, tolerance).threads_per_node;
    p.hugepage_alloc_threads = ev.total(p.threads_per_node);
    p.predicted_seconds = ev.seconds(curve, p.hugepage_alloc_threads);
    // The default is a total; spread over the nodes it acts as default / nodes threads per node,
    // often a fraction (36 over 4 nodes = 9; 1 over 2 nodes = 0.5). The curve is continuous in
    // N, so it is read there directly; below one per node it scales as T(1) / N (CostCurve).
    const int default_total = std::min(default_threads, ev.cpu_cap);
    p.default_threads_per_node = static_cast<double>(default_total) / ev.nodes;
    p.predicted_default_seconds = ev.seconds(curve, default_total);
    for (std::size_t i = 0; i < predictor.candidates.size(); ++i) {
        const int n = predictor.candidates[i];
        p.predictions.push_back({n, ev.total(n), predicted[i]});
    }
    return p;
}

void record_pick(Recommendation& r, Pick pick) {
    r.threads_per_node = pick.threads_per_node;
    r.hugepage_alloc_threads = pick.hugepage_alloc_threads;
    r.predicted_seconds = pick.predicted_seconds;
    r.default_threads_per_node = pick.default_threads_per_node;
    r.predicted_default_seconds = pick.predicted_default_seconds;
    r.saving_seconds = r.predicted_default_seconds - r.predicted_seconds;
    r.predictions = std::move(pick.predictions);
}

// What the bootstrap resamples: repetitions of every phase the series is built from, or the
// residuals of the chosen fit.
struct ResampleSource {
    const BasisChoice* basis = nullptr;
    const Series* series = nullptr;
    const std::optional<ScalingFit>* chosen = nullptr;
    bool repetitions = false;
    // Arranged once, so that a resample costs what the pools hold, not what the input had.
    std::optional<RepetitionPool> main, zero, grow;  // grow: only when it has repetitions
    std::optional<ResidualPool> residuals;
};

std::string bootstrap_method(const CostSeries& cost, const std::optional<ScalingFit>& chosen) {
    const BasisChoice& b = cost.basis;
    if (has_repetitions(b.main->points) &&
        (b.basis != CostBasis::alloc_only || has_repetitions(b.zero->points)))
        return "repetitions";
    if (chosen && static_cast<int>(chosen->residuals.size()) > chosen->parameters)
        return "residuals";
    return {};
}

ResampleSource resample_source(const CostSeries& cost, const std::optional<ScalingFit>& chosen,
                               bool repetitions) {
    const BasisChoice& b = cost.basis;
    ResampleSource from{&b, &cost.series, &chosen, repetitions, {}, {}, {}, {}};
    if (!repetitions) {
        from.residuals.emplace(cost.series.points, *chosen);
        return from;
    }
    from.main.emplace(b.main->points);
    if (b.zero != nullptr)
        from.zero.emplace(b.zero->points);
    if (b.grow != nullptr && has_repetitions(b.grow->points))
        from.grow.emplace(b.grow->points);
    return from;
}

Series resample(const ResampleSource& from, Resampler& rng) {
    if (!from.repetitions)
        return {from.residuals->draw(rng), 0};
    const BasisChoice& b = *from.basis;
    const auto main = from.main->draw(rng);
    std::vector<Point> zero, grow;
    if (from.zero)
        zero = from.zero->draw(rng);
    if (from.grow)
        grow = from.grow->draw(rng);
    const std::span<const Point> grow_points =
        from.grow ? std::span<const Point>(grow)
                  : (b.grow != nullptr ? std::span<const Point>(b.grow->points) : grow);
    return build_series(b, main, zero, grow_points);
}

struct Bootstrap {
    int usable_resamples = 0;
    double confidence = 0;  // share of all resamples whose best is within tolerance of the pick
    std::optional<double> seconds_low, seconds_high;  // 5%..95% at the pick
};

// The same pipeline on resampled data, with the chosen model family.
Bootstrap bootstrap_pick(const ResampleSource& from, const PoolPredictor& predictor, int pick,
                         const RecommendOptions& o, std::uint64_t seed) {
    Resampler rng(seed);
    const auto it = std::find(predictor.candidates.begin(), predictor.candidates.end(), pick);
    const auto pick_index = static_cast<std::size_t>(it - predictor.candidates.begin());
    std::vector<double> at_pick;
    int agree = 0;
    for (int b = 0; b < o.resamples; ++b) {
        const Series s = resample(from, rng);
        if (distinct_thread_counts(s.points) < kMinThreadCounts)
            continue;
        std::optional<ScalingFit> fit_b;
        if (*from.chosen) {
            fit_b = refit(**from.chosen, s.points, o.fit);
            if (!fit_b->ok())
                continue;
        }
        const auto predicted_b = predictor.predict(CostCurve(s.points, std::move(fit_b)));
        const double best_b = *std::min_element(predicted_b.begin(), predicted_b.end());
        at_pick.push_back(predicted_b[pick_index]);
        if (predicted_b[pick_index] <= best_b * (1 + o.tolerance))
            ++agree;
    }
    Bootstrap out;
    out.usable_resamples = static_cast<int>(at_pick.size());
    // Unusable resamples (no fit) count as disagreeing: they are evidence the data are thin.
    out.confidence = static_cast<double>(agree) / o.resamples;
    if (!at_pick.empty()) {
        out.seconds_low = percentile(at_pick, 0.05);
        out.seconds_high = percentile(at_pick, 0.95);
    }
    return out;
}

void record_bootstrap(Recommendation& r, const Bootstrap& b, int resamples) {
    r.resamples = resamples;
    r.usable_resamples = b.usable_resamples;
    r.confidence = b.confidence;
    r.predicted_seconds_low = b.seconds_low;
    r.predicted_seconds_high = b.seconds_high;
}

// Where the pick lies against the measured counts, and how much there is to gain.
void judge_pick(Recommendation& r, const ThreadLimits& limits, const RecommendOptions& o) {
    if (!r.fallback && r.threads_per_node > limits.max_measured)
        r.warnings.push_back(
            {"extrapolated", "the recommended " + std::to_string(r.threads_per_node) +
                                 " per node lies beyond the largest measured count (" +
                                 std::to_string(static_cast<int>(limits.max_measured)) +
                                 "): extrapolated"});
    if (!r.fallback && r.threads_per_node < limits.min_measured)
        r.notes.push_back(
            "the recommended count lies below the smallest measured one: "
            "extrapolated");
    if (r.predicted_seconds < o.small_boot_seconds)
        r.notes.push_back("predicted boot allocation time is small (" +
                          seconds_text(r.predicted_seconds) + "): little to gain");
}

void judge_uncertainty(Recommendation& r, const RecommendOptions& o) {
    if (!r.confidence) {
        r.warnings.push_back(
            {"no_uncertainty",
             "no uncertainty estimate: one sample per thread count and no residual degrees of "
             "freedom (measure repetitions or more thread counts)"});
        return;
    }
    if (r.usable_resamples < r.resamples)
        r.notes.push_back(std::to_string(r.resamples - r.usable_resamples) +
                          " bootstrap resample(s) gave no usable fit");
    if (*r.confidence < o.low_confidence)
        r.warnings.push_back(
            {"low_confidence", "low confidence: only " + percent_text(*r.confidence) +
                                   " of bootstrap resamples find this count within " +
                                   percent_text(o.tolerance) + " of their best"});
}

std::string verdict(const Recommendation& r, const RecommendOptions& o) {
    const std::string setting =
        "hugepage_alloc_threads=" + std::to_string(r.hugepage_alloc_threads) + " (" +
        std::to_string(r.threads_per_node) + " per node)";
    const std::string versus =
        seconds_text(r.predicted_seconds) + " vs " + seconds_text(r.predicted_default_seconds) +
        " at the kernel default of " + std::to_string(r.default_threads) + " thread(s)";
    if (r.fallback)
        return "No curve could be fitted; falling back to the best measured count: " + setting +
               ", measured " + seconds_text(r.predicted_seconds) + ".";
    if (r.predicted_seconds < o.small_boot_seconds &&
        r.predicted_default_seconds < o.small_boot_seconds)
        return "Boot allocation is predicted to take only " + seconds_text(r.predicted_seconds) +
               " at the best setting, " + setting + ", and " +
               seconds_text(r.predicted_default_seconds) + " at the kernel default of " +
               std::to_string(r.default_threads) +
               " thread(s): the setting hardly matters here; keeping the default is fine.";
    if (!r.confidence || *r.confidence < o.low_confidence)
        return "Best estimate " + setting + ": " + versus + ", but " +
               (r.confidence
                    ? "only " + percent_text(*r.confidence) + " of bootstrap resamples agree"
                    : std::string("the data leave no way to estimate the "
                                  "uncertainty")) +
               "; measure more thread counts or repetitions before relying on it.";
    if (r.predicted_default_seconds <= r.predicted_seconds * (1 + r.tolerance))
        return "The kernel default (" + std::to_string(r.default_threads) +
               " threads) is already within " + percent_text(r.tolerance) + " of the best; " +
               setting + " would save " + seconds_text(std::max(0.0, r.saving_seconds)) + ".";
    return "Set " + setting + ": predicted " + versus + " (saving " +
           seconds_text(r.saving_seconds) + "), confidence " + percent_text(*r.confidence) + ".";
}

}  // namespace

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
    r.fallback = !fits.chosen;
    if (r.fallback)
        r.warnings.push_back(
            {"fit_fallback", "no fit converged (" + r.model.reason +
                                 "): recommending the best measured count instead"});

    const PoolPredictor predictor{ev,
                                  candidate_counts(r.fallback, r.series, r.max_threads_per_node)};
    record_pick(
        r, pick_count(CostCurve(r.series, fits.chosen), predictor, r.default_threads, o.tolerance));
    judge_pick(r, limits, o);

    r.seed = o.seed.value_or(data.seed);
    r.bootstrap_method = bootstrap_method(cost, fits.chosen);
    if (!r.bootstrap_method.empty() && o.resamples > 0) {
        const ResampleSource source =
            resample_source(cost, fits.chosen, r.bootstrap_method == "repetitions");
        record_bootstrap(r, bootstrap_pick(source, predictor, r.threads_per_node, o, r.seed),
                         o.resamples);
    }
    judge_uncertainty(r, o);
    r.verdict = verdict(r, o);
    return r;
}

}  // namespace hugetune::model
