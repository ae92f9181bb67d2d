#include "model/recommend/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>

#include "model/fit/resampling.hpp"
#include "model/parallel.hpp"

namespace hugetune::model::recommend {

std::string to_string(BootstrapMethod method) {
    switch (method) {
        case BootstrapMethod::none:
            return {};
        case BootstrapMethod::hosts_then_repetitions:
            return "hosts, then repetitions";
        case BootstrapMethod::rounds:
            return "rounds";
        case BootstrapMethod::repetitions:
            return "repetitions";
        case BootstrapMethod::residuals:
            return "residuals";
    }
    return {};
}

namespace {

std::size_t pooled_hosts(const BasisChoice& b) {
    const PhaseSeries* series = b.basis == CostBasis::alloc_only_flat ? b.grow : b.main;
    return std::max<std::size_t>(1, series->host_ends.size());
}

// The data one resample is drawn from. Arranged once, so that a resample costs what the pools
// hold, not what the input had.
struct ResampleSource {
    const BasisChoice* basis = nullptr;
    bool repetitions = false;                          // false: the residuals of the chosen fit
    std::size_t min_thread_counts = kMinThreadCounts;  // a usable resample's, 1 when held flat
    std::size_t hosts = 1;
    std::size_t rounds = 0;                              // drawn whole when not 0
    std::optional<HostRepetitionPool> main, zero, grow;  // grow: when it has repetitions
    std::optional<ResidualPool> residuals;
};

// `threads`: the most that arrange the pools (0: the machine's).
ResampleSource resample_source(const CostSeries& cost, const std::optional<ScalingFit>& chosen,
                               BootstrapMethod method, std::size_t threads) {
    const BasisChoice& b = cost.basis;
    const bool repetitions = method != BootstrapMethod::residuals;
    ResampleSource from{&b, repetitions, kMinThreadCounts, pooled_hosts(b), 0, {}, {}, {}, {}};
    if (b.basis == CostBasis::alloc_only_flat)
        from.min_thread_counts = 1;
    if (!repetitions) {
        from.residuals.emplace(cost.series.points, *chosen);
        return from;
    }
    if (method == BootstrapMethod::rounds) {
        from.rounds = sweep_rounds(b);
        return from;
    }
    std::vector<std::pair<std::optional<HostRepetitionPool>*, const PhaseSeries*>> pools{
        {&from.main, b.main}};
    if (b.zero != nullptr)
        pools.emplace_back(&from.zero, b.zero);
    if (b.grow != nullptr && (from.hosts > 1 || has_repetitions(b.grow->points)))
        pools.emplace_back(&from.grow, b.grow);
    // The pools side by side where they are long (a SKU's pooled repetitions, millions of
    // samples), the threads shared among them.
    std::size_t samples = 0;
    for (const auto& [pool, series] : pools)
        samples += series->points.size();
    const std::size_t most = threads_for(samples, HostRepetitionPool::kSamplesPerThread, threads);
    const std::size_t side = std::min(pools.size(), most);
    parallel_for(pools.size(), side, [&](std::size_t i) {
        const auto& [pool, series] = pools[i];
        pool->emplace(series->points, series->host_ends, std::max<std::size_t>(1, most / side));
    });
    return from;
}

Series resample(const ResampleSource& from, Resampler& rng) {
    if (!from.repetitions)
        return {from.residuals->draw(rng), 0};
    const BasisChoice& b = *from.basis;
    if (from.rounds > 0) {
        std::vector<std::size_t> drawn(from.rounds);
        for (auto& r : drawn)
            r = rng.index(from.rounds);
        const auto phase = [&](const PhaseSeries* series) {
            return series != nullptr ? draw_rounds(series->points, drawn) : std::vector<Point>{};
        };
        const auto main = phase(b.main), zero = phase(b.zero), grow = phase(b.grow);
        return build_series(b, main, zero, grow);
    }
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

// Both models fitted again, each from the full data's fit where it converged, and chosen again
// as the full data's were.
std::optional<ScalingFit> refit(const ModelSelection& model, std::span<const Point> points,
                                const FitOptions& o) {
    ModelSelection again =
        select_model(fit_usl(points, o, model.usl.ok() ? &model.usl : nullptr),
                     fit_amdahl(points, o, model.amdahl.ok() ? &model.amdahl : nullptr));
    if (!again.any_converged)
        return std::nullopt;
    return again.chosen();
}

// Whether a resample reaches the decision made on the full data.
bool agrees(const Choice& ours, const std::vector<double>& predicted, const Choice& theirs,
            double tolerance) {
    if (theirs.decision != ours.decision)
        return false;
    return ours.decision == Decision::keep_default ||
           predicted[ours.pick] <= predicted[theirs.best] * (1 + tolerance);
}

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

namespace {

// Each count's samples in the order measured, counts ascending.
std::map<double, std::vector<Point>> samples_by_count(std::span<const Point> points) {
    std::map<double, std::vector<Point>> by_count;
    for (const auto& p : points)
        by_count[p.threads_per_node].push_back(p);
    return by_count;
}

}  // namespace

std::size_t sweep_rounds(const BasisChoice& b) {
    // A boot table's rows (a CSV, boot sweeps) are not known to be measured in rounds; a long
    // series is resampled in blocks (RepetitionPool), which whole rounds would undo.
    if (pooled_hosts(b) > 1 || b.basis == CostBasis::boot_table)
        return 0;
    std::size_t rounds = 0, samples_in_all = 0;
    for (const PhaseSeries* series : {b.main, b.zero, b.grow}) {
        if (series == nullptr)
            continue;
        for (const auto& [count, samples] : samples_by_count(series->points)) {
            if (rounds == 0)
                rounds = samples.size();
            if (samples.size() != rounds)
                return 0;
            for (const auto& p : samples)
                if (p.weight != 1)
                    return 0;
            samples_in_all += samples.size();
        }
    }
    return rounds >= 2 && samples_in_all <= kExactResampleSamples ? rounds : 0;
}

std::vector<Point> draw_rounds(std::span<const Point> points, std::span<const std::size_t> drawn) {
    std::vector<Point> out;
    out.reserve(points.size());
    for (const auto& [count, samples] : samples_by_count(points))
        for (std::size_t r : drawn)
            out.push_back(samples[r]);
    return out;
}

BootstrapMethod bootstrap_method(const CostSeries& cost, const std::optional<ScalingFit>& chosen) {
    const BasisChoice& b = cost.basis;
    if (pooled_hosts(b) > 1)
        return BootstrapMethod::hosts_then_repetitions;
    if (sweep_rounds(b) > 0)
        return BootstrapMethod::rounds;
    if (b.basis == CostBasis::alloc_only_flat)
        return has_repetitions(b.grow->points) ? BootstrapMethod::repetitions
                                               : BootstrapMethod::none;
    if (has_repetitions(b.main->points) && (b.zero == nullptr || has_repetitions(b.zero->points)))
        return BootstrapMethod::repetitions;
    if (chosen && static_cast<int>(chosen->residuals.size()) > chosen->parameters)
        return BootstrapMethod::residuals;
    return BootstrapMethod::none;
}

std::optional<double> Bootstrap::confidence() const {
    if (resamples == 0)
        return std::nullopt;
    return static_cast<double>(agreeing_resamples) / resamples;
}

namespace {

// Each resample draws from a generator of its own, seeded from the run's seed and the
// resample's index by the splitmix64 finaliser (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", 2014), so a resample is the same whichever thread draws it
// and in whatever order: the bootstrap spreads over the CPUs and gives what it gives on one.
std::uint64_t resample_seed(std::uint64_t seed, std::uint64_t index) {
    std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// What one resample gave: nothing when unusable (too few thread counts, or no fit).
struct ResampleOutcome {
    bool usable = false;
    bool agrees = false;
    std::vector<double> predicted;
};

ResampleOutcome one_resample(const ResampleSource& from, const ModelSelection& model,
                             const std::optional<ScalingFit>& chosen,
                             const PoolPredictor& predictor, const Choice& ours,
                             const RecommendOptions& o, std::uint64_t seed) {
    Resampler rng(seed);
    const Series s = resample(from, rng);
    if (distinct_thread_counts(s.points) < from.min_thread_counts)
        return {};
    std::optional<ScalingFit> fit_b;
    if (chosen) {
        fit_b = refit(model, s.points, o.fit);
        if (!fit_b)
            return {};
    }
    ResampleOutcome out{true, false, predictor.predict(CostCurve(s.points, std::move(fit_b)))};
    out.agrees =
        agrees(ours, out.predicted, decide(out.predicted, predictor.default_index, o), o.tolerance);
    return out;
}

// Below this many resamples per thread a thread costs more than it saves.
constexpr std::size_t kResamplesPerThread = 64;

}  // namespace

Bootstrap run_bootstrap(const CostSeries& cost, const ModelSelection& model,
                        const std::optional<ScalingFit>& chosen, const PoolPredictor& predictor,
                        const Choice& ours, const RecommendOptions& o, std::uint64_t seed) {
    Bootstrap out{bootstrap_method(cost, chosen), 0, 0, 0, {}};
    if (out.method == BootstrapMethod::none || o.resamples <= 0)
        return out;
    const auto most_threads = static_cast<std::size_t>(std::max(o.threads, 0));
    const ResampleSource from = resample_source(cost, chosen, out.method, most_threads);
    std::vector<ResampleOutcome> outcomes(static_cast<std::size_t>(o.resamples));
    const auto threads = threads_for(outcomes.size(), kResamplesPerThread, most_threads);
    parallel_for(outcomes.size(), threads, [&](std::size_t b) {
        outcomes[b] = one_resample(from, model, chosen, predictor, ours, o,
                                   resample_seed(seed, static_cast<std::uint64_t>(b)));
    });
    // In resample order, so the figures do not depend on which thread drew what.
    out.resamples = o.resamples;
    out.seconds.resize(predictor.candidates.size());
    for (auto& r : outcomes) {
        if (!r.usable)
            continue;
        ++out.usable_resamples;
        for (std::size_t i = 0; i < r.predicted.size(); ++i)
            out.seconds[i].push_back(r.predicted[i]);
        if (r.agrees)
            ++out.agreeing_resamples;
    }
    return out;
}

std::vector<Prediction> with_intervals(std::vector<Prediction> predictions, const Bootstrap& b) {
    if (b.usable_resamples == 0)
        return predictions;
    for (std::size_t i = 0; i < predictions.size(); ++i) {
        Prediction& p = predictions[i];
        p.seconds_low = std::min(percentile(b.seconds[i], 0.05), p.seconds);
        p.seconds_high = std::max(percentile(b.seconds[i], 0.95), p.seconds);
    }
    return predictions;
}

}  // namespace hugetune::model::recommend
