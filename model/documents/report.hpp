// The `hugetune run` report (model/documents/schema/report.schema.json, `schema_version` 1) as
// one type from the fit to the file: make_report builds it from the stages' results, to_json
// writes it and read_report reads a stored one back to the same value. Every consumer takes this
// type: the console summary and the plot, `cmdline`, `apply` and its gate, `verify`, the fleet's
// intake and answers; none reads the document by its keys.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/boot_breakdown.hpp"
#include "model/boot_comparison.hpp"
#include "model/documents/probe_record.hpp"
#include "model/documents/sweep.hpp"
#include "model/documents/verification.hpp"
#include "model/hardware_identity.hpp"
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

// The `sku` block (a report's, a fleet answer's `sku_fields`).
nlohmann::json to_json(const SkuKey& key);

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

// The build that wrote the report.
struct ReportTool {
    std::string version;
    std::string commit = "unknown";  // the short commit hash; "unknown" outside a git tree
};

// What a `hugetune run` report holds beyond the recommendation.
struct ReportRun {
    ReportTool tool;
    std::string generated_at;  // ISO 8601 UTC
    // The probe's blocks and the facts the report takes from them (host name, hardware identity,
    // nothing in reports written before it; microarchitecture; firmware).
    ProbeRecord probe;
    SkuKey sku;
    // The sweep's measured block (docs/sweep-format.md), written under `sweep` by its one writer
    // (model/documents/sweep_block.cpp).
    MeasuredSweep sweep;
    Recommendation fit;
    std::vector<Warning> warnings;
    // Where the boot's time goes, the settings the other way, and the first touch (additive
    // blocks; nothing in reports written before them or where the sweep cannot say). A report
    // with a breakdown always has its what-if rows, perhaps none.
    std::optional<BootBreakdown> breakdown;
    std::vector<WhatIf> what_if;
    std::optional<FirstTouch> first_touch;
    // `run --boot-sweep`: the boots against the prediction; none without.
    std::optional<BootComparison> boot_sweep;
};

struct Report {
    ReportRecommendation recommendation;
    ReportKernel kernel;
    std::optional<ReportBootPool> boot_pool;
    // Nothing for the short form that `cmdline`, `apply` and `verify` also take: a document of
    // `schema_version`, `recommendation` and optionally `kernel`, `boot_pool`, `verification`.
    std::optional<ReportRun> run;
    std::optional<Verification> verification;
    // The document as read, for the commands that keep or extend the file they were given (the
    // fleet's intake, `verify --report`); empty in a report made here.
    nlohmann::json document;
};

// Everything a report is made of, as the stages before it return them: the run's part as far as
// they make it (the probe's record, the sweep, the fit and what is derived from it, the tool and
// the time), which make_report completes (the SKU key, the warnings), the fit's input and the
// pool.
struct ReportParts {
    ReportRun run;
    const SweepData* data = nullptr;  // the fit's input: the machine's facts
    ReportBootPool boot_pool;
};

// The threshold behind the noisy warning, named so the README can quote it.
inline constexpr double kNoisySpreadRatio = 0.25;  // (max - min) / median of a point's samples

// The report's warnings, one sentence each: the fit's about the machine, what only the probe
// says (init_on_alloc_unknown) and what only the sweep's points show (oversubscribed,
// shortfall, noisy), then the fit's about the result. The model judges the machine's facts and
// the fit; this judges the rest, so no code comes from two places.
std::vector<Warning> collect_warnings(std::optional<bool> init_on_alloc, const MeasuredSweep& sweep,
                                      const Recommendation& fit);

// The warnings a report read back has by its own facts: collect_warnings of its sweep and of its
// fit's warnings judged again (warnings_judged_again) at the lower of the confidences its
// recommendation and its fit state (one in a report hugetune wrote), `data` being the fit's input
// as the report holds it (fit_input of its sweep and probe blocks). A list that differs from
// these in a code they judge was not written by hugetune from these facts.
std::vector<Warning> judged_report_warnings(const Report& report, const SweepData& data);

// The parts that follow from a fit and its input: the fit, the machine's facts (`data`, which must
// outlive the parts), the breakdown and what-if rows from the probe's kernel facts, and the pool
// the predictions are for. `run` and `fit` add the rest.
ReportParts fitted_parts(Recommendation fit, const SweepData& data);

// The whole report of a fitted sweep (report.run set); writes nothing.
Report make_report(ReportParts parts);

// The document of a whole report (report.run set).
nlohmann::json to_json(const Report& report);

// `hugetune fit --json`: the fit document with the additive blocks of `parts` and the boots
// (null: none) beside it.
nlohmann::json fit_output_json(const ReportParts& parts,
                               const std::optional<BootComparison>& boot_sweep);

class JsonField;

struct ReportReading {
    bool need_run = false;         // refuse the short form (the summary, the fleet)
    bool need_prediction = false;  // recommendation.predicted_seconds must be there (verify)
    // The way out when the recommended thread count is unusable.
    std::string threads_fix = "give the report written by 'hugetune run'";
    InputSource input;  // the document, as errors name it; a stored one (input.stored) was held
                        // to the schema when it was stored, so it is not checked again
};

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
