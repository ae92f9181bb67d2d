#include "model/recommend.hpp"

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

void fill_verdict(Recommendation& r, const RecommendOptions& o) {
    const std::string setting =
        "hugepage_alloc_threads=" + std::to_string(r.hugepage_alloc_threads) + " (" +
        std::to_string(r.threads_per_node) + " per node)";
    const std::string versus =
        seconds_text(r.predicted_seconds) + " vs " + seconds_text(r.predicted_default_seconds) +
        " at the kernel default of " + std::to_string(r.default_threads) + " thread(s)";
    if (r.fallback) {
        r.verdict =
            "No curve could be fitted; falling back to the best measured count: " + setting +
            ", measured " + seconds_text(r.predicted_seconds) + ".";
    } else if (r.predicted_seconds < o.small_boot_seconds &&
               r.predicted_default_seconds < o.small_boot_seconds) {
        r.verdict = "Boot allocation is predicted to take only " +
                    seconds_text(r.predicted_seconds) + " at the best setting, " + setting +
                    ", and " + seconds_text(r.predicted_default_seconds) +
                    " at the kernel default of " + std::to_string(r.default_threads) +
                    " thread(s): the setting hardly matters here; keeping the default is fine.";
    } else if (!r.confidence || *r.confidence < o.low_confidence) {
        r.verdict =
            "Best estimate " + setting + ": " + versus + ", but " +
            (r.confidence ? "only " + percent_text(*r.confidence) + " of bootstrap resamples agree"
                          : std::string("the data leave no way to estimate the "
                                        "uncertainty")) +
            "; measure more thread counts or repetitions before relying on it.";
    } else if (r.predicted_default_seconds <= r.predicted_seconds * (1 + r.tolerance)) {
        r.verdict = "The kernel default (" + std::to_string(r.default_threads) +
                    " threads) is already within " + percent_text(r.tolerance) + " of the best; " +
                    setting + " would save " + seconds_text(std::max(0.0, r.saving_seconds)) + ".";
    } else {
        r.verdict = "Set " + setting + ": predicted " + versus + " (saving " +
                    seconds_text(r.saving_seconds) + "), confidence " +
                    percent_text(*r.confidence) + ".";
    }
}

}  // namespace

Recommendation recommend_from_sweep(const SweepData& data, const RecommendOptions& o) {
    if (!(o.tolerance >= 0 && o.tolerance < 1))
        throw std::invalid_argument("tolerance must be in [0, 1)");
    Recommendation r;
    r.source = data.source;
    r.tolerance = o.tolerance;
    r.notes = data.notes;
    const MachineFacts& m = data.machine;

    r.nodes = o.nodes.value_or(m.nodes.value_or(1));
    if (!o.nodes && !m.nodes)
        r.notes.push_back("node count unknown: assuming 1 node with memory (give --nodes)");
    if (r.nodes < 1)
        throw std::invalid_argument("nodes must be at least 1");
    const std::optional<int> cpus = o.online_cpus ? o.online_cpus : m.online_cpus;

    BasisChoice basis = choose_basis(data);
    r.basis = basis.basis;
    r.notes.insert(r.notes.end(), basis.notes.begin(), basis.notes.end());
    r.warnings.insert(r.warnings.end(), basis.warnings.begin(), basis.warnings.end());
    if (basis.main == nullptr)
        throw InputError(std::nullopt, "no boot or alloc series: nothing to base a boot time on");
    r.curve = basis.basis == CostBasis::alloc_only ? "alloc_only" : basis.main->phase;

    const std::vector<Point> no_points;
    Series series = build_series(basis, basis.main->points,
                                 basis.zero != nullptr ? basis.zero->points : no_points,
                                 basis.grow != nullptr ? basis.grow->points : no_points);
    if (basis.basis == CostBasis::alloc_only &&
        distinct_thread_counts(series.points) < kMinThreadCounts) {
        // Allocation alone is lost in the zeroing noise (a small sample, a noisy machine):
        // allocation + zeroing bounds it from above and still has a shape to fit.
        r.warnings.push_back(
            {"alloc_only_unmeasurable",
             "allocation alone could not be separated from zeroing at enough thread counts "
             "(alloc minus zero was not positive): predicting from allocation + zeroing, which "
             "overstates boot time; measure a larger --sample-mib"});
        basis.basis = CostBasis::alloc_and_zero;
        basis.zero = basis.grow = nullptr;
        r.basis = basis.basis;
        r.curve = basis.main->phase;
        series = build_series(basis, basis.main->points, no_points, no_points);
    }
    r.series = series.points;
    if (series.dropped > 0)
        r.warnings.push_back(
            {"dropped_points",
             std::to_string(series.dropped) +
                 " thread count(s) left out: alloc minus zero was not positive there "
                 "(allocation cost lost in the zeroing noise)"});

    double max_measured = 0, min_measured = std::numeric_limits<double>::infinity();
    for (const auto& p : series.points) {
        max_measured = std::max(max_measured, p.threads_per_node);
        min_measured = std::min(min_measured, p.threads_per_node);
    }
    std::optional<int> per_node_limit = m.hw_threads_per_node;
    if (cpus)
        per_node_limit = std::min(per_node_limit.value_or(*cpus), std::max(1, *cpus / r.nodes));
    if (!per_node_limit) {
        per_node_limit = static_cast<int>(max_measured);
        r.notes.push_back("CPU count unknown: assuming at most " + std::to_string(*per_node_limit) +
                          " thread(s) per node, the largest measured (give --cpus)");
    }
    r.max_threads_per_node = std::max(1, *per_node_limit);
    r.cpu_cap = cpus.value_or(r.max_threads_per_node * r.nodes);
    // Since 6.15 the kernel default is max(1, num_online_cpus() / 4) in total
    // (docs/kernel-facts.md "The default thread count").
    r.default_threads = std::max(1, r.cpu_cap / 4);
    r.key = {m.microarch, r.nodes, r.max_threads_per_node, data.page_size_kb};

    Evaluator ev{r.nodes, r.cpu_cap, 1.0};
    const bool per_page_series = basis.main->pages_per_node > 0;
    r.lambda_unit = per_page_series ? "pages per second per node" : "table runs per second";
    if (per_page_series) {
        if (o.pool_pages) {
            r.pool_pages = static_cast<double>(*o.pool_pages);
            r.pool_source = o.pool_source;
        } else if (m.boot_pool_pages && *m.boot_pool_pages > 0) {
            r.pool_pages = static_cast<double>(*m.boot_pool_pages);
            r.pool_source = "cmdline";
        } else if (m.current_pool_pages && *m.current_pool_pages > 0) {
            r.pool_pages = static_cast<double>(*m.current_pool_pages);
            r.pool_source = "current pool";
            r.notes.push_back("no boot pool on the kernel command line: predicting for the " +
                              std::to_string(*m.current_pool_pages) + " pages in the pool now");
        } else {
            // A stated reference size, so reports of machines without a pool still compare.
            r.pool_pages = std::round(kTiB / (static_cast<double>(data.page_size_kb) * 1024));
            r.pool_source = "1 TiB reference";
            r.notes.push_back(
                "no huge page pool configured: predicting for a 1 TiB reference pool");
        }
        // The kernel spreads the boot pool over the memory nodes (each worker interleaves).
        ev.scale = r.pool_pages / r.nodes;
    }
    if (m.boot_pool_node_format)
        r.warnings.push_back(
            {"node_format_hugepages",
             "the boot pool is given per node (hugepages=N:count): that path is serial and "
             "ignores hugepage_alloc_threads"});
    if (data.page_size_kb >= 1024 * 1024)
        r.warnings.push_back(
            {"gigantic_only",
             "gigantic pages are allocated serially at boot: hugepage_alloc_threads applies only "
             "to smaller pages"});
    if (m.hypervisor)
        r.warnings.push_back({"vm", "measured in a virtual machine: timings include the host"});

    // Fit every phase for the record, then the recommendation's own series.
    for (const auto& ph : data.phases) {
        PhaseModel pm{ph.phase, std::nullopt, {}};
        if (distinct_thread_counts(ph.points) >= 3)
            pm.selection = fit_and_select(per_page(ph.points, ph.pages_per_node), o.fit);
        else
            pm.message = "not fitted: fewer than 3 thread counts";
        r.phases.push_back(std::move(pm));
    }
    r.model = fit_and_select(series.points, o.fit);
    if (basis.basis == CostBasis::alloc_only)
        r.phases.push_back({"alloc_only", r.model, {}});
    r.fallback = !r.model.any_converged;
    std::optional<ScalingFit> chosen;
    if (!r.fallback)
        chosen = r.model.chosen();
    else
        r.warnings.push_back(
            {"fit_fallback", "no fit converged (" + r.model.reason +
                                 "): recommending the best measured count instead"});

    std::vector<int> candidates;
    if (r.fallback) {
        for (const auto& md : medians_per_count(series.points))
            if (md.threads_per_node <= r.max_threads_per_node)
                candidates.push_back(static_cast<int>(md.threads_per_node));
        if (candidates.empty())
            candidates.push_back(r.max_threads_per_node);
    } else {
        for (int n = 1; n <= r.max_threads_per_node; ++n)
            candidates.push_back(n);
    }

    const CostCurve curve(series.points, chosen);
    auto predict_all = [&](const CostCurve& c) {
        std::vector<double> out;
        out.reserve(candidates.size());
        for (int n : candidates)
            out.push_back(ev.seconds(c, ev.total(n)));
        return out;
    };
    const auto predicted = predict_all(curve);
    const Choice pick = choose(predicted, candidates, o.tolerance);
    r.threads_per_node = pick.threads_per_node;
    r.hugepage_alloc_threads = ev.total(pick.threads_per_node);
    r.predicted_seconds = ev.seconds(curve, r.hugepage_alloc_threads);
    // The default is a total; spread over the nodes it acts as default / nodes threads per node,
    // often a fraction (36 over 4 nodes = 9; 1 over 2 nodes = 0.5). The curve is continuous in
    // N, so it is read there directly; below one per node it scales as T(1) / N (CostCurve).
    const int default_total = std::min(r.default_threads, r.cpu_cap);
    r.default_threads_per_node = static_cast<double>(default_total) / r.nodes;
    r.predicted_default_seconds = ev.seconds(curve, default_total);
    r.saving_seconds = r.predicted_default_seconds - r.predicted_seconds;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        r.predictions.push_back({candidates[i], ev.total(candidates[i]), predicted[i]});
    if (!r.fallback && r.threads_per_node > max_measured)
        r.warnings.push_back(
            {"extrapolated", "the recommended " + std::to_string(r.threads_per_node) +
                                 " per node lies beyond the largest measured count (" +
                                 std::to_string(static_cast<int>(max_measured)) +
                                 "): extrapolated"});
    if (!r.fallback && r.threads_per_node < min_measured)
        r.notes.push_back(
            "the recommended count lies below the smallest measured one: "
            "extrapolated");

    if (r.predicted_seconds < o.small_boot_seconds)
        r.notes.push_back("predicted boot allocation time is small (" +
                          seconds_text(r.predicted_seconds) + "): little to gain");

    // Bootstrap: the same pipeline on resampled data, with the chosen model family.
    r.seed = o.seed.value_or(data.seed);
    Resampler rng(r.seed);
    const bool phases_repeat =
        has_repetitions(basis.main->points) &&
        (basis.basis != CostBasis::alloc_only || has_repetitions(basis.zero->points));
    const bool residuals_usable =
        chosen && static_cast<int>(chosen->residuals.size()) > chosen->parameters;
    if (phases_repeat)
        r.bootstrap_method = "repetitions";
    else if (residuals_usable)
        r.bootstrap_method = "residuals";
    if (r.bootstrap_method.empty() || o.resamples <= 0) {
        r.warnings.push_back(
            {"no_uncertainty",
             "no uncertainty estimate: one sample per thread count and no residual degrees of "
             "freedom (measure repetitions or more thread counts)"});
        fill_verdict(r, o);
        return r;
    }
    std::vector<double> at_pick;
    int agree = 0;
    r.resamples = o.resamples;
    for (int b = 0; b < o.resamples; ++b) {
        Series s;
        if (phases_repeat) {
            const auto main_b = resample_repetitions(basis.main->points, rng);
            std::vector<Point> zero_b, grow_b;
            if (basis.zero != nullptr)
                zero_b = resample_repetitions(basis.zero->points, rng);
            if (basis.grow != nullptr)
                grow_b = has_repetitions(basis.grow->points)
                             ? resample_repetitions(basis.grow->points, rng)
                             : basis.grow->points;
            s = build_series(basis, main_b, zero_b, grow_b);
        } else {
            s.points = resample_residuals(series.points, *chosen, rng);
        }
        if (distinct_thread_counts(s.points) < 3)
            continue;
        std::optional<ScalingFit> fit_b;
        if (chosen) {
            fit_b = refit(*chosen, s.points, o.fit);
            if (!fit_b->ok())
                continue;
        }
        const CostCurve curve_b(s.points, std::move(fit_b));
        const auto predicted_b = predict_all(curve_b);
        const double best_b = *std::min_element(predicted_b.begin(), predicted_b.end());
        const auto it = std::find(candidates.begin(), candidates.end(), r.threads_per_node);
        const double mine = predicted_b[static_cast<std::size_t>(it - candidates.begin())];
        ++r.usable_resamples;
        at_pick.push_back(mine);
        if (mine <= best_b * (1 + o.tolerance))
            ++agree;
    }
    // Unusable resamples (no fit) count as disagreeing: they are evidence the data are thin.
    r.confidence = static_cast<double>(agree) / o.resamples;
    if (!at_pick.empty()) {
        r.predicted_seconds_low = percentile(at_pick, 0.05);
        r.predicted_seconds_high = percentile(at_pick, 0.95);
    }
    if (r.usable_resamples < o.resamples)
        r.notes.push_back(std::to_string(o.resamples - r.usable_resamples) +
                          " bootstrap resample(s) gave no usable fit");
    if (*r.confidence < o.low_confidence)
        r.warnings.push_back(
            {"low_confidence", "low confidence: only " + percent_text(*r.confidence) +
                                   " of bootstrap resamples find this count within " +
                                   percent_text(o.tolerance) + " of their best"});
    fill_verdict(r, o);
    return r;
}

}  // namespace hugetune::model
