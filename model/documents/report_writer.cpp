// Makes and writes `hugetune run` reports: the one place a report's fields are named on the way
// out (model/documents/report.cpp reads them back).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "model/alloc_threads.hpp"
#include "model/documents/boot_comparison.hpp"
#include "model/documents/breakdown.hpp"
#include "model/documents/fit.hpp"
#include "model/documents/json_values.hpp"
#include "model/documents/report.hpp"
#include "model/documents/sku.hpp"
#include "model/report_version.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

using nlohmann::json;

std::string count_text(int n) {
    return std::to_string(n);
}

bool noisy(const MeasuredPoint& point) {
    const auto& samples = point.samples_seconds;
    if (samples.size() < 2 || point.median_seconds <= 0)
        return false;
    const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
    return (*hi - *lo) / point.median_seconds > kNoisySpreadRatio;
}

std::vector<Warning> point_warnings(const MeasuredSweep& sweep) {
    std::set<int> oversubscribed, shortfall, spread;
    for (const auto& p : sweep.points) {
        const int n = p.threads_per_node;
        if (p.oversubscribed)
            oversubscribed.insert(n);
        if (p.shortfall_pages > 0)
            shortfall.insert(n);
        if (noisy(p))
            spread.insert(n);
    }
    std::vector<Warning> w;
    if (!oversubscribed.empty())
        w.push_back({"oversubscribed", "Points at " + join(oversubscribed, ", ", count_text) +
                                           " threads per node exceed the node's hardware "
                                           "threads; they were measured but time-share CPUs."});
    if (!shortfall.empty())
        w.push_back({"shortfall", "Points at " + join(shortfall, ", ", count_text) +
                                      " threads per node did not obtain every page on the "
                                      "intended node (fragmented memory or a competing "
                                      "process); see shortfall_pages."});
    if (!spread.empty())
        w.push_back({"noisy", "Points at " + join(spread, ", ", count_text) +
                                  " threads per node spread by more than " +
                                  std::to_string(static_cast<int>(kNoisySpreadRatio * 100)) +
                                  "% of their median; rerun on a quiet machine."});
    return w;
}

// The model words its warnings as clauses; the report gives a sentence each.
Warning as_sentence(Warning w) {
    if (!w.message.empty())
        w.message[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w.message[0])));
    return w;
}

// One decision, one text: what to add to the command line, nothing when the default is kept.
ReportRecommendation recommendation_of(const Recommendation& r) {
    ReportRecommendation rec;
    rec.decision = r.decision;
    rec.hugepage_alloc_threads = static_cast<std::uint64_t>(r.hugepage_alloc_threads);
    rec.kernel_cmdline = r.decision == Decision::keep_default
                             ? std::string()
                             : alloc_threads_setting(rec.hugepage_alloc_threads);
    rec.threads_per_node = r.threads_per_node;
    rec.nodes = r.nodes;
    rec.predicted_seconds = r.predicted_seconds;
    if (r.predicted_seconds_low && r.predicted_seconds_high)
        rec.predicted_seconds_interval = {*r.predicted_seconds_low, *r.predicted_seconds_high};
    rec.default_threads = static_cast<std::uint64_t>(r.default_threads);
    rec.default_threads_per_node = r.default_threads_per_node;
    rec.predicted_default_seconds = r.predicted_default_seconds;
    rec.saving_seconds = r.saving_seconds;
    rec.confidence = r.confidence;
    rec.verdict = r.verdict;
    return rec;
}

json warnings_json(const std::vector<Warning>& warnings) {
    json out = json::array();
    for (const auto& w : warnings)
        out.push_back({{"code", w.code}, {"message", w.message}});
    return out;
}

json boot_pool_json(const ReportBootPool& pool) {
    return {{"pages", pool.pages}, {"page_size_kb", pool.page_size_kb}, {"source", pool.source}};
}

// The additive blocks where a document has them.
void add_blocks(json& doc, const std::optional<BootBreakdown>& breakdown,
                const std::vector<WhatIf>& what_if, const std::optional<FirstTouch>& first_touch,
                const std::optional<BootComparison>& boot_sweep) {
    if (breakdown) {
        doc["breakdown"] = to_json(*breakdown);
        doc["what_if"] = to_json(what_if);
    }
    if (first_touch)
        doc["first_touch"] = to_json(*first_touch);
    if (boot_sweep)
        doc["boot_sweep"] = to_json(*boot_sweep);
}

json whole_report_json(const Report& report, const ReportRun& run) {
    json fit = to_json(run.fit);
    json recommendation = fit["recommendation"];
    recommendation["kernel_cmdline"] = report.recommendation.kernel_cmdline;
    json doc = {
        {"schema_version", kReportSchemaVersion},
        {"tool",
         {{"name", "hugetune"}, {"version", run.tool.version}, {"commit", run.tool.commit}}},
        {"generated_at", run.generated_at},
        {"sweep", measured_block_json(run.sweep)},
        {"model", models_by_phase_json(run.fit)},
        {"fit", std::move(fit)},
        {"recommendation", std::move(recommendation)},
        {"boot_pool", report.boot_pool ? boot_pool_json(*report.boot_pool) : json(nullptr)},
        {"sku", to_json(run.sku)},
        {"warnings", warnings_json(run.warnings)}};
    doc.update(to_json(run.probe));
    add_blocks(doc, run.breakdown, run.what_if, run.first_touch, run.boot_sweep);
    return doc;
}

}  // namespace

nlohmann::json to_json(const SkuKey& key) {
    return {{"microarch", key.microarch},
            {"nodes", key.nodes},
            {"hardware_threads_per_node", key.hardware_threads_per_node},
            {"memory_per_node_gib", key.memory_per_node_gib},
            {"page_size_kb", key.page_size_kb},
            {"init_on_alloc", or_null(key.init_on_alloc)}};
}

namespace {

std::vector<Warning> collect_warnings(std::optional<bool> init_on_alloc, const MeasuredSweep& sweep,
                                      const std::vector<Warning>& fit_warnings) {
    std::vector<Warning> w;
    for (const auto& x : fit_warnings)
        if (is_machine_warning(x.code))
            w.push_back(as_sentence(x));
    if (!init_on_alloc)
        w.push_back({"init_on_alloc_unknown",
                     "Whether init_on_alloc is in force could not be read (no cmdline setting, "
                     "kernel config or boot log line); the boot cost assumes it is on (boot zeroes "
                     "every page), which overstates the time if it is off."});
    for (auto&& x : point_warnings(sweep))
        w.push_back(std::move(x));
    for (const auto& x : fit_warnings)
        if (!is_machine_warning(x.code))
            w.push_back(as_sentence(x));
    return w;
}

}  // namespace

std::vector<Warning> collect_warnings(std::optional<bool> init_on_alloc, const MeasuredSweep& sweep,
                                      const Recommendation& fit) {
    return collect_warnings(init_on_alloc, sweep, fit.warnings);
}

std::vector<Warning> judged_report_warnings(const Report& report, const SweepData& data) {
    const ReportRun& run = report.run.value();
    std::optional<double> confidence = report.recommendation.confidence;
    if (const auto fit = run.fit.confidence; fit && (!confidence || *fit < *confidence))
        confidence = fit;
    return collect_warnings(data.machine.init_on_alloc, run.sweep,
                            warnings_judged_again(run.fit, data, confidence));
}

ReportParts fitted_parts(Recommendation fit, const SweepData& data) {
    const KernelOptions& kernel = data.machine.kernel;
    ReportParts parts;
    parts.run.breakdown = boot_breakdown(fit, data, kernel);
    if (parts.run.breakdown)
        parts.run.what_if = what_if_rows(fit, *parts.run.breakdown, kernel);
    parts.boot_pool = {static_cast<std::uint64_t>(fit.pool_pages), data.page_size_kb,
                       fit.pool_source};
    parts.data = &data;
    parts.run.fit = std::move(fit);
    return parts;
}

Report make_report(ReportParts parts) {
    const std::optional<bool> init_on_alloc = parts.data->machine.init_on_alloc;
    Report report;
    report.recommendation = recommendation_of(parts.run.fit);
    report.kernel = {parts.data->machine.kernel_release, init_on_alloc,
                     parts.data->machine.online_cpus};
    report.boot_pool = parts.boot_pool;
    ReportRun& run = parts.run;
    run.sku = sku_key(parts.data->machine, run.sweep.page_size_kb);
    run.warnings = collect_warnings(init_on_alloc, run.sweep, run.fit);
    report.run = std::move(run);
    return report;
}

nlohmann::json to_json(const Report& report) {
    json doc = whole_report_json(report, report.run.value());
    if (report.verification)
        doc["verification"] = to_json(*report.verification);
    return doc;
}

nlohmann::json fit_output_json(const ReportParts& parts,
                               const std::optional<BootComparison>& boot_sweep) {
    json doc = to_json(parts.run.fit);
    add_blocks(doc, parts.run.breakdown, parts.run.what_if, parts.run.first_touch, boot_sweep);
    return doc;
}

}  // namespace hugetune::model
