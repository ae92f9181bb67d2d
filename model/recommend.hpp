// The whole model pipeline: measured series -> fitted curves -> predicted boot allocation
// time per thread count -> the recommended hugepage_alloc_threads, with its uncertainty.
// Shared by `hugetune fit` and `hugetune run`; its stages are in model/recommend/.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/cost_basis.hpp"
#include "model/enum_names.hpp"
#include "model/errors.hpp"
#include "model/fit/model_selection.hpp"
#include "model/input/fit_input.hpp"
#include "model/warning.hpp"

namespace hugetune::model {

struct RecommendOptions {
    double tolerance = 0.02;  // take the fewest threads within this share of the best time
    // Override what the input says (flags). Absent and unknown: see Recommendation::notes.
    std::optional<int> nodes;
    std::optional<int> online_cpus;
    std::optional<std::uint64_t> pool_pages;  // boot pool, total pages of the sweep's size
    std::string pool_source = "option";       // where pool_pages came from, for the report
    std::optional<std::uint64_t> seed;        // default: the sweep's seed
    int resamples = 2000;
    // Threads the bootstrap runs on; 0: one per CPU. The result does not depend on it: each
    // resample has its own seeded generator (model/recommend/bootstrap.cpp).
    int threads = 0;
    FitOptions fit;
    // Below this predicted time at the kernel default no setting can save enough to be worth
    // a boot parameter: the decision keeps the default.
    double small_boot_seconds = 5.0;
    double low_confidence = 0.8;  // below this share of agreeing resamples; say so
    // Whole sweeps resampled by rounds to show how the confidence itself moves with the data
    // (Recommendation::confidence_spread), each decided again with resamples / 10 resamples of
    // its own; 0: not done.
    int spread_sweeps = 20;
    // How the notes and warnings name a setting the user can change (the command line's flags).
    SettingWords words;
};

// Which curves may be combined: same microarchitecture, node count, threads per node and page
// size (curves from several hosts of one SKU).
struct CurveKey {
    std::string microarch = "unknown";
    int nodes = 1;
    int hw_threads_per_node = 0;
    std::uint64_t page_size_kb = 0;  // 0: unknown (a CSV table)
};

struct PhaseModel {
    std::string phase;
    std::optional<ModelSelection> selection;  // absent: not fitted, see `message`
    std::string message;
};

struct Prediction {
    double threads_per_node = 0;  // fractional only for the kernel default spread over nodes
    int total_threads = 0;        // the kernel value, capped at the CPUs
    double seconds = 0;
    std::optional<double> seconds_low, seconds_high;  // 5%..95% bootstrap, holding `seconds`
};

// How the confidence itself moves with the data: the whole pipeline run again on sweeps resampled
// by rounds (what a rerun of the same sweep varies by, as far as its own rounds show), each with
// a bootstrap of its own. `low`..`high` is the 5%..95% range of their confidences; a sweep whose
// decision a rule made has none and is counted apart.
struct ConfidenceSpread {
    std::optional<double> low, high;  // absent when every resampled sweep was decided by rule
    int sweeps = 0;                   // resampled sweeps
    int by_rule = 0;                  // of them, decided by a rule (no confidence)
    int same_decision = 0;            // of them, reaching the full data's decision and value
};

// What to do with the kernel value: change it to the recommended one, or leave the kernel
// default, because no candidate beats it by more than the tolerance or the whole allocation
// is too short for the setting to matter.
enum class Decision { set, keep_default };
inline constexpr auto kDecisionNames =
    enum_names<Decision>({{Decision::set, "set"}, {Decision::keep_default, "keep_default"}});
std::string to_string(Decision decision);  // "set", "keep_default"

struct Recommendation {
    CurveKey key;
    std::string source;
    CostBasis basis = CostBasis::boot_table;
    std::string curve;  // the series fitted for the recommendation (curve_name of the basis)
    ModelSelection model;
    std::vector<Point> series;  // the points fitted: seconds per page (sweep) or per run (table)
    std::optional<ScalingFit> curve_fit;  // the fit predictions follow; absent: the medians
    std::string lambda_unit;  // of every fitted lambda: pages/s per node, or table runs/s
    bool fallback = false;    // no fit converged: the best measured count instead
    std::vector<PhaseModel> phases;

    int nodes = 1;
    int cpu_cap = 1;  // the most total threads the kernel value may take
    int max_threads_per_node = 1;
    double pool_pages = 0;  // 0: a boot table (its own work)
    // "cmdline", "current pool", "1 TiB reference" or the caller's pool_source; empty for a
    // boot table.
    std::string pool_source;

    // The one decision every output states: with keep_default the recommended value is the
    // default's and the saving 0.
    Decision decision = Decision::set;
    double threads_per_node = 1;  // fractional only when keeping a default that is
    int hugepage_alloc_threads = 1;
    double predicted_seconds = 0;
    std::optional<double> predicted_seconds_low, predicted_seconds_high;  // 5%..95% bootstrap
    int best_hugepage_alloc_threads = 1;  // the fastest candidate, whether or not it is taken
    double predicted_best_seconds = 0;
    int default_threads = 1;
    double default_threads_per_node = 1;
    double predicted_default_seconds = 0;
    double saving_seconds = 0;
    // The share of bootstrap resamples that reach the same decision. Absent where a rule
    // decided (`decided_by_rule` says which) or too few points allow any resampling.
    std::optional<double> confidence;
    std::string decided_by_rule;  // not empty: no fitted curve decided, this rule did
    std::optional<ConfidenceSpread> confidence_spread;
    double tolerance = 0.02;

    // 1..max_threads_per_node (measured counts in fallback) and the kernel default, by total
    std::vector<Prediction> predictions;
    std::vector<Prediction> measured;  // the fitted series' medians, scaled to the boot pool
    std::string bootstrap_method;
    int resamples = 0, usable_resamples = 0;
    std::uint64_t seed = 1;

    std::vector<std::string> notes;  // assumptions made (stderr notes in the CLI)
    std::vector<Warning> warnings;   // things that weaken the result
    std::string verdict;             // one plain sentence
};

// The index of the first of `seconds` (ordered by thread count, fewest first) within
// `tolerance` of the smallest: the fewest threads that are as good as the best. Not empty.
std::size_t fewest_within_tolerance(const std::vector<double>& seconds, double tolerance);

// The predicted boot allocation seconds at `total_threads` for a pool of `pool_pages` pages of
// the sweep's size, through the same curve as the recommendation's predictions (a boot table's
// own work when it has no pages: the pool is then the table's).
double predict_boot_seconds(const Recommendation& r, double total_threads, double pool_pages);

// Throws InputError when the data cannot support a recommendation at all.
Recommendation recommend_from_sweep(const SweepData& data, const RecommendOptions& options);

// The warnings of a fit read back (a report's), each one its kept numbers decide judged again by
// the code recommend_from_sweep judged it with: the machine's (machine_warnings of `data`, the
// fit's input), poor_fit, failed_resamples and low_confidence of `confidence` (the one the
// result states; at the default options' level, which `run` reports at); the rest as the fit
// lists them. What the facts show, whatever the list says.
std::vector<Warning> warnings_judged_again(const Recommendation& fit, const SweepData& data,
                                           std::optional<double> confidence);

}  // namespace hugetune::model
