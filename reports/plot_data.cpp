#include "reports/plot_data.hpp"

#include <algorithm>
#include <string>

#include "model/documents/fit.hpp"
#include "model/fit/scaling_fit.hpp"
#include "model/text.hpp"
#include "reports/sweep_tables.hpp"

namespace hugetune {
namespace {

using model::MeasuredPoint;

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::optional<model::Prediction> mark_from(const std::optional<std::uint64_t>& threads,
                                           const std::optional<double>& seconds) {
    if (!threads || !seconds)
        return std::nullopt;
    return model::Prediction{.total_threads = static_cast<int>(*threads),
                             .seconds = *seconds,
                             .seconds_low = std::nullopt,
                             .seconds_high = std::nullopt};
}

// The predicted boot time per kernel value, its band, the measured points and the two marks.
BootPanel boot_panel_from_report(const model::Report& report) {
    BootPanel boot;
    const model::Recommendation& fit = report.run->fit;
    boot.predicted = fit.predictions;
    boot.measured = fit.measured;
    for (auto& p : boot.measured)
        p.seconds_low = p.seconds_high = std::nullopt;
    boot.hardware_threads = report.run->sku.hardware_threads_per_node * report.run->sku.nodes;
    const model::ReportRecommendation& rec = report.recommendation;
    boot.recommended = mark_from(rec.hugepage_alloc_threads, rec.predicted_seconds);
    boot.kernel_default = mark_from(rec.default_threads, rec.predicted_default_seconds);
    return boot;
}

// The throughput curve fitted to one phase of a sweep, where one was: lambda in pages per second
// per node, what the plot can draw.
const model::ScalingFit* phase_curve(const model::Recommendation& fit, const std::string& phase) {
    if (fit.lambda_unit != model::kPagesPerSecondPerNode)
        return nullptr;
    for (const auto& p : fit.phases)
        if (p.phase == phase && p.selection && p.selection->any_converged)
            return &p.selection->chosen();
    return nullptr;
}

// One phase's measured points and, when the report has its curve, the fitted throughput.
PlotSeries phase_series(const model::ReportRun& run, const std::string& phase,
                        const std::vector<const MeasuredPoint*>& points, double& max_n) {
    PlotSeries series;
    series.label = phase;
    for (const MeasuredPoint* p : points) {
        const double median = p->median_seconds;
        if (median <= 0)
            continue;
        const double gibps = p->gib_per_second;
        const double bytes =
            gibps * median * kGiB;  // the work of every point of a sweep is the same
        auto [lo, hi] = sample_range(*p);
        const double n = p->threads_per_node;
        max_n = std::max(max_n, n);
        series.measured.push_back({n, gibps, hi > 0 ? bytes / hi / kGiB : gibps,
                                   lo > 0 ? bytes / lo / kGiB : gibps, p->oversubscribed});
    }
    // The fitted throughput X(N) (model::ScalingFit), lambda in pages per second per node:
    // bytes per second over all nodes is X x page x nodes.
    const model::ScalingFit* curve = phase_curve(run.fit, phase);
    const double node_bytes_per_page =
        static_cast<double>(run.sku.page_size_kb) * 1024 * run.sku.nodes;
    if (curve && curve->lambda > 0 && node_bytes_per_page > 0 && points.size() > 1) {
        series.label += " (" + model::to_string(curve->model) + ")";
        for (double n = 1; n <= max_n * 1.0001; n *= 1.05)
            series.fitted.emplace_back(n, curve->throughput(n) * node_bytes_per_page / kGiB);
    }
    return series;
}

std::string threads_text(int threads) {
    return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// The predicted boot at one value in the parts the summary names (breakdown_lines below), with
// the same rule: parts that do not add up to the whole are not drawn as its parts.
BreakdownBar breakdown_bar(const model::BreakdownAt& at) {
    BreakdownBar bar;
    bar.label = (at.at == "recommended" ? "decision\n" : "kernel default\n") +
                threads_text(at.hugepage_alloc_threads);
    bar.low = at.total.low;
    bar.high = at.total.high;
    if (!at.separable) {
        bar.segments.push_back({BarPart::unsplit, at.total.seconds});
        bar.note = "not split:\nzero phase > boot";
        return bar;
    }
    double allocation = at.allocation.seconds;
    if (at.vmemmap && at.vmemmap->seconds <= allocation) {
        allocation -= at.vmemmap->seconds;
        bar.segments.push_back({BarPart::allocation, allocation});
        bar.segments.push_back({BarPart::vmemmap, at.vmemmap->seconds});
    } else {
        bar.segments.push_back({BarPart::allocation, allocation});
        if (at.vmemmap)
            bar.note = "vmemmap part larger\nthan allocation: not drawn";
    }
    if (at.zeroing)
        bar.segments.push_back({BarPart::zeroing, at.zeroing->seconds});
    return bar;
}

BreakdownBar what_if_bar(const model::WhatIf& w) {
    BreakdownBar bar;
    bar.label = w.parameter + "=" + w.value + "\n" + threads_text(w.hugepage_alloc_threads);
    if (!w.predicted) {
        bar.note = "not predicted\n(see the summary)";
        return bar;
    }
    bar.segments.push_back({BarPart::what_if, w.predicted->seconds});
    bar.low = w.predicted->low;
    bar.high = w.predicted->high;
    return bar;
}

BreakdownPanel breakdown_panel_from_report(const model::ReportRun& run) {
    BreakdownPanel panel;
    if (!run.breakdown)
        return panel;
    const model::BootBreakdown& b = *run.breakdown;
    for (const auto& at : b.at)
        panel.bars.push_back(breakdown_bar(at));
    for (const auto& w : run.what_if)
        panel.bars.push_back(what_if_bar(w));
    panel.allocation_includes_vmemmap = !b.hvo_measured && b.hvo.value_or(true);
    return panel;
}

}  // namespace

PlotData plot_data_from_report(const model::Report& report) {
    const model::ReportRun& run = report.run.value();
    PlotData d;
    d.title = "host " + run.probe.hostname + ", CPU " + run.probe.cpu_microarch + ", " +
              page_size_text(run.sku.page_size_kb) + " pages";
    d.y_label = "GiB/s, all nodes";
    auto by_phase = points_by_phase(run.sweep.points);
    double max_n = 1;
    // The grow phase is one point, without the fault's zeroing (a hundred times faster than the
    // others when init_on_alloc is off): on a shared axis it would flatten them, so it stays in the
    // tables.
    for (const std::string phase : {"alloc", "zero"}) {
        auto it = by_phase.find(phase);
        if (it == by_phase.end())
            continue;
        PlotSeries series = phase_series(run, phase, it->second, max_n);
        if (!series.measured.empty())
            d.series.push_back(std::move(series));
    }
    d.boot = boot_panel_from_report(report);
    d.breakdown = breakdown_panel_from_report(run);
    d.recommended_threads_per_node = report.recommendation.threads_per_node;
    d.default_threads_per_node = report.recommendation.default_threads_per_node;
    return d;
}

}  // namespace hugetune
