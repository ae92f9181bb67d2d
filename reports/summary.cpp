#include "reports/summary.hpp"
#include "model/fit/scaling_fit.hpp"
#include "model/text.hpp"
#include "reports/json_access.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace hugetune {
namespace {

using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string phase_meaning(const std::string& phase) {
    if (phase == "alloc")
        return "fresh surplus pages, allocated and zeroed by the faulting threads (twice with "
               "init_on_alloc)";
    if (phase == "zero")
        return "pool pages faulted: zeroing alone";
    if (phase == "grow")
        return "one thread per node grows the pool: what the boot does per page";
    return "";
}

double number_or(const json& j, const char* key, double fallback) {
    const json& v = at_or_null(j, key);
    return v.is_number() ? v.get<double>() : fallback;
}

// Points of one phase, sorted by threads per node.
std::map<std::string, std::vector<const json*>> points_by_phase(const json& points) {
    std::map<std::string, std::vector<const json*>> by_phase;
    if (!points.is_array())
        return by_phase;
    for (const auto& p : points)
        by_phase[p.value("phase", std::string("?"))].push_back(&p);
    for (auto& [phase, list] : by_phase)
        std::sort(list.begin(), list.end(), [](const json* a, const json* b) {
            return a->value("threads_per_node", 0) < b->value("threads_per_node", 0);
        });
    return by_phase;
}

std::pair<double, double> sample_range(const json& point) {
    double lo = 0, hi = 0;
    bool first = true;
    for (const auto& s : at_or_null(point, "samples_seconds")) {
        if (!s.is_number())
            continue;
        double v = s.get<double>();
        lo = first ? v : std::min(lo, v);
        hi = first ? v : std::max(hi, v);
        first = false;
    }
    return {lo, hi};
}

// Phase order as the sweep runs them: the cost that matters first.
const std::vector<std::string> kPhaseOrder = {"alloc", "zero", "grow"};

std::optional<double> optional_number(const json& j, const char* key) {
    const json& v = at_or_null(j, key);
    return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
}

std::optional<BootPoint> mark_from(const json& rec, const char* threads_key,
                                   const char* seconds_key) {
    const auto threads = optional_number(rec, threads_key);
    const auto seconds = optional_number(rec, seconds_key);
    if (!threads || !seconds)
        return std::nullopt;
    return BootPoint{*threads, *seconds, std::nullopt, std::nullopt};
}

// The predicted boot time per kernel value, its band, the measured points and the two marks.
BootPanel boot_panel_from_report(const json& report) {
    BootPanel boot;
    const json& fit = at_or_null(report, "fit");
    for (const auto& p : at_or_null(fit, "predictions")) {
        const auto threads = optional_number(p, "hugepage_alloc_threads");
        const auto seconds = optional_number(p, "seconds");
        if (threads && seconds)
            boot.predicted.push_back({*threads, *seconds, optional_number(p, "seconds_low"),
                                      optional_number(p, "seconds_high")});
    }
    for (const auto& p : at_or_null(fit, "measured_boot_seconds")) {
        const auto threads = optional_number(p, "hugepage_alloc_threads");
        const auto seconds = optional_number(p, "seconds");
        if (threads && seconds)
            boot.measured.push_back({*threads, *seconds, std::nullopt, std::nullopt});
    }
    const json& rec = at_or_null(report, "recommendation");
    boot.recommended = mark_from(rec, "hugepage_alloc_threads", "predicted_seconds");
    boot.kernel_default = mark_from(rec, "default_threads", "predicted_default_seconds");
    return boot;
}

// The decision as the report states it; a report without one set its value.
std::string decision_line(const json& rec) {
    const std::string value = rec.value("kernel_cmdline", std::string("?")) + " (" +
                              significant_text(number_or(rec, "threads_per_node", 0), 4) +
                              " per node x " + std::to_string(rec.value("nodes", 0)) + " node(s))";
    return rec.value("decision", std::string("set")) == "keep_default"
               ? "keep the kernel default, " + value
               : "set " + value;
}

}  // namespace

std::string format_phase_tables(const json& sweep_points) {
    std::ostringstream s;
    auto by_phase = points_by_phase(sweep_points);
    std::vector<std::string> phases = kPhaseOrder;
    for (const auto& [phase, list] : by_phase)
        if (std::find(phases.begin(), phases.end(), phase) == phases.end())
            phases.push_back(phase);
    bool first = true;
    for (const auto& phase : phases) {
        auto it = by_phase.find(phase);
        if (it == by_phase.end())
            continue;
        if (!first)
            s << "\n";
        first = false;
        s << "phase " << phase;
        if (auto meaning = phase_meaning(phase); !meaning.empty())
            s << ": " << meaning;
        s << "\n  threads/node      median    spread     GiB/s  notes\n";
        for (const json* p : it->second) {
            double median = p->value("median_seconds", 0.0);
            auto [lo, hi] = sample_range(*p);
            std::string spread = median > 0 ? percent_text((hi - lo) / median, 1) : "-";
            std::string notes;
            if (p->value("oversubscribed", false))
                notes += "  oversubscribed";
            if (p->value("shortfall_pages", 0) > 0)
                notes += "  shortfall " + std::to_string(p->value("shortfall_pages", 0)) + " pages";
            char line[160];
            std::snprintf(line, sizeof line, "  %12d  %10s  %8s  %8.2f%s\n",
                          p->value("threads_per_node", 0), seconds_text(median).c_str(),
                          spread.c_str(), p->value("gib_per_second", 0.0), notes.c_str());
            s << line;
        }
    }
    return s.str();
}

std::string format_sweep_summary(const json& sweep) {
    std::ostringstream s;
    const json& points = at_or_null(sweep, "points");
    if (points.is_array() && !points.empty())
        s << "sample " << points[0].value("pages_per_node", 0ull) << " x "
          << page_size_text(points[0].value("page_size_kb", 2048ull)) << " pages per node, "
          << at_or_null(at_or_null(sweep, "parameters"), "nodes").size() << " node(s)\n\n";
    if (auto tables = format_phase_tables(points); !tables.empty())
        s << tables << "\nspread: (slowest - fastest) / median over the repetitions\n";
    for (const auto& w : at_or_null(sweep, "warnings"))
        if (w.is_string())
            s << "note: " << w.get<std::string>() << "\n";
    return s.str();
}

PlotData plot_data_from_report(const json& report) {
    PlotData d;
    const json& rec = at_or_null(report, "recommendation");
    const json& fit = at_or_null(report, "fit");
    std::uint64_t page_kb = at_or_null(report, "sku").value("page_size_kb", 2048ull);
    d.title = report["host"].value("hostname", std::string("?")) + ": " +
              report["cpu"].value("microarch", std::string("unknown")) + ", " +
              page_size_text(page_kb) + " pages";
    d.y_label = "GiB/s, all nodes";
    auto by_phase = points_by_phase(at_or_null(report["sweep"], "points"));
    const double page_bytes = static_cast<double>(page_kb) * 1024;
    const double nodes = at_or_null(report, "sku").value("nodes", 1);
    double max_n = 1;
    // The grow phase is one point, without the fault's zeroing (a hundred times faster than the
    // others when init_on_alloc is off): on a shared axis it would flatten them, so it stays in the
    // tables.
    for (const std::string phase : {"alloc", "zero"}) {
        auto it = by_phase.find(phase);
        if (it == by_phase.end())
            continue;
        PlotSeries series;
        series.label = phase;
        double bytes = 0;
        for (const json* p : it->second) {
            double median = p->value("median_seconds", 0.0);
            if (median <= 0)
                continue;
            double gibps = p->value("gib_per_second", 0.0);
            bytes = gibps * median * kGiB;  // the work of every point of a sweep is the same
            auto [lo, hi] = sample_range(*p);
            double n = p->value("threads_per_node", 0);
            max_n = std::max(max_n, n);
            series.measured.push_back(
                {n, gibps, hi > 0 ? bytes / hi / kGiB : gibps, lo > 0 ? bytes / lo / kGiB : gibps});
        }
        // The fitted throughput X(N) (model::ScalingFit), lambda in pages per second per node:
        // bytes per second over all nodes is X x page x nodes.
        const json& model =
            at_or_null(at_or_null(at_or_null(fit, "phases"), phase.c_str()), "model");
        model::ScalingFit curve;
        curve.lambda = number_or(model, "lambda", 0);
        curve.sigma = number_or(model, "sigma", 0);
        curve.kappa = number_or(model, "kappa", 0);
        double node_bytes_per_page = page_bytes * nodes;
        bool per_page = model.value("lambda_unit", std::string()) == "pages per second per node";
        if (per_page && curve.lambda > 0 && node_bytes_per_page > 0 && it->second.size() > 1) {
            series.label += " (" + model.value("name", std::string("fit")) + ")";
            for (double n = 1; n <= max_n * 1.0001; n *= 1.05) {
                series.fitted.emplace_back(n, curve.throughput(n) * node_bytes_per_page / kGiB);
            }
        }
        if (!series.measured.empty())
            d.series.push_back(std::move(series));
    }
    d.boot = boot_panel_from_report(report);
    if (rec.is_object()) {
        if (rec.contains("threads_per_node"))
            d.recommended_threads_per_node = number_or(rec, "threads_per_node", 1);
        if (rec.contains("default_threads_per_node"))
            d.default_threads_per_node = number_or(rec, "default_threads_per_node", 1);
    }
    return d;
}

std::string format_report_summary(const json& report) {
    std::ostringstream s;
    const json& sku = at_or_null(report, "sku");
    const json& kernel = at_or_null(report, "kernel");
    const json& rec = at_or_null(report, "recommendation");
    const json& fit = at_or_null(report, "fit");
    s << "hugetune " << report["tool"].value("version", std::string("?")) << " on "
      << report["host"].value("hostname", std::string("?")) << ": "
      << sku.value("microarch", std::string("unknown")) << ", " << sku.value("nodes", 0)
      << " node(s) x " << sku.value("hardware_threads_per_node", 0) << " hardware threads, "
      << page_size_text(sku.value("page_size_kb", 2048ull)) << " pages, kernel "
      << kernel.value("release", std::string("?")) << "\n\n";
    s << format_phase_tables(at_or_null(at_or_null(report, "sweep"), "points")) << "\n";

    const json& model = at_or_null(fit, "model");
    if (model.is_object()) {
        s << "model      " << model.value("name", std::string("none")) << " on the "
          << model.value("curve", std::string("?")) << " curve";
        if (model["sigma"].is_number())
            s << ": sigma " << significant_text(model["sigma"].get<double>(), 4) << ", kappa "
              << significant_text(number_or(model, "kappa", 0), 4) << ", R^2 "
              << decimals_text(number_or(model, "r2", 0), 3);
        s << "\n";
        if (auto sel = model.value("selection", std::string()); !sel.empty())
            s << "           " << sel << "\n";
    }
    if (rec.is_object()) {
        s << "decision   " << decision_line(rec);
        if (rec["confidence"].is_number())
            s << ", confidence " << percent_text(rec["confidence"].get<double>());
        s << "\n";
        const json& pool = at_or_null(report, "boot_pool");
        if (pool.is_object())
            s << "boot pool  " << pool.value("pages", 0ull) << " x "
              << page_size_text(pool.value("page_size_kb", 2048ull)) << " ("
              << pool.value("source", std::string("?")) << ")\n";
        s << "predicted  " << seconds_text(number_or(rec, "predicted_seconds", 0));
        const json& interval = at_or_null(rec, "predicted_seconds_interval");
        if (interval.is_array() && interval.size() == 2 && interval[0].is_number() &&
            interval[1].is_number())
            s << " (90% " << seconds_text(interval[0].get<double>()) << ".."
              << seconds_text(interval[1].get<double>()) << ")";
        s << " at the decision, " << seconds_text(number_or(rec, "predicted_default_seconds", 0))
          << " at the kernel default of " << rec.value("default_threads", 0)
          << " thread(s); saving " << seconds_text(number_or(rec, "saving_seconds", 0)) << "\n";
        if (auto verdict = rec.value("verdict", std::string()); !verdict.empty())
            s << "verdict    " << verdict << "\n";
    }
    const json& warnings = at_or_null(report, "warnings");
    if (warnings.is_array() && !warnings.empty()) {
        s << "\nwarnings\n";
        for (const auto& w : warnings)
            s << "  [" << w.value("code", std::string("?")) << "] "
              << w.value("message", std::string()) << "\n";
    }
    const PlotData plot = plot_data_from_report(report);
    if (auto chart = boot_chart(plot); !chart.empty())
        s << "\npredicted boot allocation of the pool (- predicted, . 5%..95% bootstrap, "
             "* measured)\n"
          << chart;
    if (auto chart = phase_chart(plot); !chart.empty())
        s << "\nthroughput, GiB/s over all nodes (* measured, - fit, R recommended, D default)\n"
          << chart;
    return s.str();
}

}  // namespace hugetune
