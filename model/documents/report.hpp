// The `hugetune run` report (model/documents/schema/report.schema.json, `schema_version` 1) as
// one type with one reader. Every consumer takes this type: the console summary and the plot,
// `cmdline`, `apply` and its gate, `verify`, the fleet's intake and answers. None reads the
// document by its keys; the writer is reports/report.cpp (build_report), and the reader checks
// what it wrote.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/boot_breakdown.hpp"
#include "model/documents/sweep.hpp"
#include "model/documents/verification.hpp"
#include "model/fit/scaling_fit.hpp"
#include "model/recommend.hpp"
#include "model/warning.hpp"

namespace hugetune::model {

// The longest host name a report may carry (bytes): DNS names have at most 253.
inline constexpr std::size_t kMaxHostnameBytes = 253;

// The memory per node a SKU key names: the node's MemTotal (huge pages included, so the same at
// every run of one machine) rounded up to the next size memory is installed in, 2^n or 3 x 2^n
// GiB (8, 12, 16, 24, 32, 48 ...): MemTotal lies a little below the installed size (firmware
// and kernel reservations differ from host to host), and the nominal size hides that.
std::uint64_t nominal_memory_gib(std::uint64_t memory_total_bytes);

// The report's `sku` block: hosts with the same key share one fleet answer.
struct SkuKey {
    std::string microarch = "unknown";
    int nodes = 1;
    int hardware_threads_per_node = 1;
    std::uint64_t memory_per_node_gib = 0;
    std::uint64_t page_size_kb = 2048;
    // Whether the kernel zeroes every page it allocates (init_on_alloc), which changes the boot's
    // work by orders of magnitude and so separates answers; nothing: unknown (older reports).
    std::optional<bool> init_on_alloc;

    bool operator==(const SkuKey&) const = default;
};

struct ReportRecommendation {
    // Set the value, or leave the kernel's default (which the value then equals). Reports
    // written before the decision was recorded always set their value.
    Decision decision = Decision::set;
    std::uint64_t hugepage_alloc_threads = 1;
    // What to add to the kernel command line: alloc_threads_setting(hugepage_alloc_threads)
    // for Decision::set, empty when the default is kept. A document that says anything else is
    // refused, so nothing but the validated number is ever printed or written.
    std::string kernel_cmdline;
    std::optional<double> threads_per_node;
    std::optional<int> nodes;
    std::optional<double> predicted_seconds;
    std::optional<std::array<double, 2>> predicted_seconds_interval;  // 90%
    std::optional<std::uint64_t> default_threads;
    std::optional<double> default_threads_per_node;
    std::optional<double> predicted_default_seconds;
    std::optional<double> saving_seconds;
    std::optional<double> confidence;  // 0..1; nothing: not estimated
    std::optional<std::string> verdict;
};

// The pool the predictions are for.
struct ReportBootPool {
    std::uint64_t pages = 0;
    std::uint64_t page_size_kb = 0;
    std::string source;  // where the size came from (--boot-pages, the cmdline, ...)
};

// What the measured machine's kernel was; each fact only informs.
struct ReportKernel {
    std::optional<std::string> release;
    std::optional<bool> init_on_alloc;
    std::optional<int> online_cpus;
};

// fit.model: the model chosen for the curve the prediction rests on.
struct ReportModel {
    std::string name;   // usl, amdahl
    std::string curve;  // the phase the model was fitted to
    std::optional<double> sigma, kappa, r2;
    std::string selection;  // why this model, in words; may be empty
};

// fit.phases.<phase>.model: the throughput curve of one phase.
struct PhaseCurve {
    std::string name;
    ScalingFit fit;         // lambda, sigma, kappa
    bool per_page = false;  // lambda in pages per second per node (what the plot can draw)
};

// One value of the kernel parameter and its boot allocation time.
struct BootSeconds {
    double threads_per_node = 0;
    std::uint64_t hugepage_alloc_threads = 0;
    double seconds = 0;
    std::optional<double> low, high;  // 5%..95% bootstrap; nothing for a measured point
};

struct ReportFit {
    std::optional<ReportModel> model;
    std::map<std::string, PhaseCurve> phases;
    std::vector<BootSeconds> predictions;  // ascending threads
    std::vector<BootSeconds> measured_boot_seconds;
    // The fit's own recommendation block: the kernel default it compared with.
    std::optional<std::uint64_t> default_threads;
    std::optional<double> predicted_default_seconds;
};

// What a `hugetune run` report holds beyond the recommendation.
struct ReportRun {
    std::string tool_version;
    std::string generated_at;  // ISO 8601 UTC
    std::string hostname;
    std::string cpu_microarch;
    SkuKey sku;
    std::optional<std::string> firmware;  // "bios <version>, microcode <revision>"
    MeasuredSweep sweep;
    ReportFit fit;
    std::vector<Warning> warnings;
    // Where the boot's time goes, the settings the other way, and the first touch (additive
    // blocks; nothing in reports written before them or where the sweep cannot say).
    std::optional<BootBreakdown> breakdown;
    std::vector<WhatIf> what_if;
    std::optional<FirstTouch> first_touch;
};

struct Report {
    ReportRecommendation recommendation;
    ReportKernel kernel;
    std::optional<ReportBootPool> boot_pool;
    // Nothing for the short form that `cmdline`, `apply` and `verify` also take: a document of
    // `schema_version`, `recommendation` and optionally `kernel`, `boot_pool`, `verification`.
    std::optional<ReportRun> run;
    std::optional<Verification> verification;
    nlohmann::json document;  // the whole document, as read
};

class JsonField;

struct ReportReading {
    bool need_run = false;         // refuse the short form (the summary, the fleet)
    bool need_prediction = false;  // recommendation.predicted_seconds must be there (verify)
    // The way out when the recommended thread count is unusable.
    std::string threads_fix = "give the report written by 'hugetune run'";
    InputSource input;  // the document, as errors name it; a stored one (input.stored) was held
                        // to the schema when it was stored, so it is not checked again
};

// A fit document (model::to_json(Recommendation)) read as a report's `fit` block is: the fit a
// fleet answer keeps under "recommendation". Its values are hints, as in a report; errors name
// `input`.
ReportFit read_fit_document(const nlohmann::json& fit, const InputSource& input = {});

// A `sku` block wherever a document keeps it (a report's `sku`, a fleet answer's `sku_fields`).
SkuKey read_sku(const JsonField& sku);

// A `decision` field wherever a document keeps one ("set" or "keep_default").
Decision read_decision(const JsonField& decision);

// Checks, in this order: `schema_version` is this hugetune's; each field it reads, its bounds
// and consistency (InputError naming the field by its JSON path, with the fix); then a whole
// report (any document with a member beyond the short form's, or any when `need_run`) against
// the shipped schema ("does not match the report schema: PATH: what"), which covers the rest;
// not a stored one, which was checked so on its way in.
Report read_report(nlohmann::json document, const ReportReading& reading = {});

}  // namespace hugetune::model
