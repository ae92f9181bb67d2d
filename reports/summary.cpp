// The console output for people: the report's summary and chart, the fit's summary, the
// breakdown and what-if rows and the measured boots; one printer of each, each taking the type
// its document is (the sweep's tables: reports/sweep_tables.hpp).
#include "reports/summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "model/cost_basis.hpp"
#include "model/documents/fit.hpp"
#include "model/fit/scaling_fit.hpp"
#include "model/text.hpp"
#include "reports/plot_data.hpp"
#include "reports/result_text.hpp"
#include "reports/sweep_tables.hpp"
#include "reports/text_chart.hpp"

namespace hugetune {
namespace {

// A value the document keeps as null when it is not finite reads as 0.
double finite_or_zero(double x) {
    return std::isfinite(x) ? x : 0;
}

// One model fitted, on one line after its label: which, sigma, kappa, R^2 and N* where the fit
// has them (a report keeps what is not finite as null, which reads as 0), and why it was chosen;
// "no fit" and why where none converged.
void model_line(std::ostringstream& s, const std::string& label, const model::ModelSelection& m) {
    if (!m.any_converged) {
        s << label << "no fit: " << m.reason << "\n";
        return;
    }
    const model::ScalingFit& f = m.chosen();
    s << label << model::to_string(f.model);
    if (std::isfinite(f.sigma))
        s << ": sigma " << significant_text(f.sigma, 4) << ", kappa "
          << significant_text(finite_or_zero(f.kappa), 4) << ", R^2 "
          << decimals_text(finite_or_zero(f.r2), 3);
    if (auto n = f.n_star())
        s << ", N* " << decimals_text(*n, 1);
    s << " (" << m.reason << ")\n";
}

// The answer's details, as `run --verbose` and `fit --verbose` print them: the verdict, the
// curve and its model (and each other phase's), the best value where the decision took fewer
// threads, the tolerance and every prediction.
void answer_details(std::ostringstream& s, const model::Recommendation& r) {
    if (!r.verdict.empty())
        s << "\nverdict     " << r.verdict << "\n";
    s << "curve       " << r.curve << " (" << model::describe(r.basis) << "), "
      << printable_text(r.key.microarch) << ", " << count_text(r.nodes, "node") << ", up to "
      << r.max_threads_per_node << " thread(s) per node\n";
    model_line(s, "model       ", r.model);
    for (const auto& p : r.phases) {
        if (p.phase == r.curve)
            continue;
        std::string label = "phase " + p.phase;
        label.resize(std::max<std::size_t>(label.size() + 1, 12), ' ');
        if (p.selection)
            model_line(s, label, *p.selection);
        else
            s << label << p.message << "\n";
    }
    if (r.best_hugepage_alloc_threads != r.hugepage_alloc_threads)
        s << "best        hugepage_alloc_threads=" << r.best_hugepage_alloc_threads
          << ", predicted " << seconds_text(r.predicted_best_seconds) << "\n";
    s << "tolerance   " << percent_text(r.tolerance, 1)
      << " (the fewest threads within it of the best)\n";
    s << "predictions (hugepage_alloc_threads: boot allocation of the pool)";
    for (std::size_t i = 0; i < r.predictions.size(); ++i) {
        const auto& p = r.predictions[i];
        s << (i % 6 == 0 ? "\n  " : "  ") << p.total_threads << ": " << seconds_text(p.seconds);
    }
    s << "\n";
}

bool has_warning(const model::Recommendation& r, std::string_view code) {
    return std::any_of(r.warnings.begin(), r.warnings.end(),
                       [&](const model::Warning& w) { return w.code == code; });
}

}  // namespace

std::vector<std::string> cannot_answer(const model::Recommendation& r,
                                       const std::vector<int>& grid) {
    std::vector<std::string> why;
    if (has_warning(r, "vm"))
        why.push_back("a virtual machine (every time holds the host's work)");
    const int hw = r.key.hw_threads_per_node;
    std::vector<int> real;
    for (int n : grid)
        if (n <= hw)
            real.push_back(n);
    if (hw > 0 && !grid.empty() && real.size() < model::kMinThreadCounts)
        why.push_back("only " + counts_text(real) + " of the measured threads per node (" +
                      counts_text(grid) + ") had hardware threads of their own (" +
                      std::to_string(hw) + " per node)");
    return why;
}

namespace {

// The pool the times are for, in words, with how to ask for another.
std::string pool_text(const model::Recommendation& r, const SettingWords& words) {
    if (r.pool_pages <= 0)
        return "";
    const auto pages = static_cast<std::uint64_t>(r.pool_pages);
    const std::string s =
        std::to_string(pages) + " x " + page_size_text(r.key.page_size_kb) + " (" +
        memory_text(r.pool_pages * static_cast<double>(r.key.page_size_kb) * 1024);
    if (r.pool_source == "1 TiB reference")
        return s + ") for reference: none is configured; " + words("boot_gib") + " sets yours";
    if (r.pool_source == "cmdline")
        return s + "), as the kernel command line asks";
    if (r.pool_source == "current pool")
        return s + "), the pool configured now";
    return s + "), as " + r.pool_source + " asks";
}

std::string prediction_text(const model::Prediction& p) {
    std::string s = seconds_text(p.seconds);
    if (p.seconds_low && p.seconds_high)
        s += interval_text(*p.seconds_low, *p.seconds_high);
    return s;
}

const model::Prediction* prediction_at(const model::Recommendation& r, int total) {
    for (const auto& p : r.predictions)
        if (p.total_threads == total)
            return &p;
    return nullptr;
}

std::string how_sure_text(const model::Recommendation& r) {
    if (!r.decided_by_rule.empty())
        return "decided by rule, not by data: " + r.decided_by_rule;
    if (!r.confidence)
        return "unknown: the data allow no resampling (one sample per thread count and no "
               "residual degrees of freedom)";
    std::string s = percent_text(*r.confidence) + " of resamples reach this decision";
    if (const auto& spread = r.confidence_spread; spread && spread->low && spread->high)
        s += " (" + percent_text(*spread->low) + ".." + percent_text(*spread->high) + " over " +
             std::to_string(spread->sweeps) + " resampled sweeps" +
             (spread->by_rule > 0 ? "; " + std::to_string(spread->by_rule) + " by rule" : "") + ")";
    if (has_warning(r, "poor_fit"))
        s += "; the curve fits the points poorly";
    return s;
}

std::string threads_word(int n) {
    return std::to_string(n) + (n == 1 ? " thread" : " threads");
}

// `label` (11 columns) and `text` wrapped at kSummaryWidth columns, the continuation lines
// indented under the text.
constexpr std::size_t kSummaryWidth = 100;

std::string labelled(std::string label, const std::string& text) {
    label.resize(11, ' ');
    const std::string indent(11, ' ');
    std::string out = label;
    std::istringstream words(text);
    std::string word;
    std::size_t column = label.size();
    bool first = true;
    while (words >> word) {
        if (!first && column + 1 + word.size() > kSummaryWidth) {
            out += "\n" + indent;
            column = indent.size();
            first = true;
        }
        if (!first) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        first = false;
    }
    return out + "\n";
}

// The answer, first: what to do, what it gives, for which pool, how sure, and whether this
// machine can answer at all; true when it printed that it cannot.
bool answer_lines(std::ostringstream& s, const model::Recommendation& r,
                  const std::vector<int>& grid, const SettingWords& words) {
    s << labelled("answer",
                  decision_text(r.decision, r.hugepage_alloc_threads, r.threads_per_node, r.nodes));
    std::string predicted = seconds_text(r.predicted_seconds);
    if (r.predicted_seconds_low && r.predicted_seconds_high)
        predicted += interval_text(*r.predicted_seconds_low, *r.predicted_seconds_high);
    predicted += " at " + threads_word(r.hugepage_alloc_threads);
    if (r.hugepage_alloc_threads == r.default_threads) {
        predicted += ", the kernel default";
    } else {
        predicted += "; " + threads_word(r.default_threads) + ", the kernel default: ";
        const auto* at_default = prediction_at(r, r.default_threads);
        predicted +=
            at_default ? prediction_text(*at_default) : seconds_text(r.predicted_default_seconds);
        if (r.decision == model::Decision::set)
            predicted += " (saving " + seconds_text(r.saving_seconds) + ")";
    }
    s << labelled("predicted", predicted);
    if (auto pool = pool_text(r, words); !pool.empty())
        s << labelled("pool", pool);
    s << labelled("how sure", how_sure_text(r));
    if (r.predicted_default_seconds < model::RecommendOptions{}.small_boot_seconds)
        s << labelled("gain", "little: " + seconds_text(r.predicted_default_seconds) +
                                  " at the kernel default; the setting hardly matters here");
    const auto why = cannot_answer(r, grid);
    if (!why.empty()) {
        const int largest = grid.empty() ? 0 : *std::max_element(grid.begin(), grid.end());
        s << labelled("machine", "this machine cannot answer this well: " + join(why, "; ") +
                                     ". What would: the sweep on bare metal with " +
                                     std::to_string(largest) +
                                     " hardware threads per node, or real boots (hugetune "
                                     "boot-sweep)");
    }
    return !why.empty();
}

// "hugepage_alloc_threads -> predicted boot": the grid's counts (with the answer, the default
// and the fastest), each with its interval.
void prediction_table(std::ostringstream& s, const model::Recommendation& r,
                      const std::vector<int>& grid) {
    std::vector<int> totals;
    for (int n : grid)
        totals.push_back(std::min(n * r.nodes, r.cpu_cap));
    totals.push_back(r.hugepage_alloc_threads);
    totals.push_back(r.default_threads);
    totals.push_back(r.best_hugepage_alloc_threads);
    std::sort(totals.begin(), totals.end());
    totals.erase(std::unique(totals.begin(), totals.end()), totals.end());
    double fitted_low = 0, fitted_high = 0;
    for (const auto& p : r.series) {
        fitted_low =
            fitted_low == 0 ? p.threads_per_node : std::min(fitted_low, p.threads_per_node);
        fitted_high = std::max(fitted_high, p.threads_per_node);
    }
    const bool from_curve = r.curve_fit && r.basis != model::CostBasis::alloc_only_flat;
    s << "\nhugepage_alloc_threads -> predicted boot allocation of the pool (90% interval)\n";
    for (int total : totals) {
        const auto* p = prediction_at(r, total);
        if (p == nullptr)
            continue;
        std::vector<std::string> marks;
        if (total == r.hugepage_alloc_threads)
            marks.push_back(r.decision == model::Decision::set ? "recommended" : "the answer");
        if (total == r.default_threads)
            marks.push_back("kernel default");
        if (total == r.best_hugepage_alloc_threads && total != r.hugepage_alloc_threads)
            marks.push_back("fastest");
        if (from_curve && (p->threads_per_node > fitted_high * 1.0001 ||
                           p->threads_per_node < fitted_low * 0.9999))
            marks.push_back("extrapolated");
        char line[200];
        std::snprintf(line, sizeof line, "  %6d  %-34s %s", total, prediction_text(*p).c_str(),
                      join(marks, ", ").c_str());
        std::string text = line;
        while (!text.empty() && text.back() == ' ')
            text.pop_back();
        s << text << "\n";
    }
}

// One line a warning: its first sentence or clause, cut to fit a line (the whole is in the
// report and under --verbose).
std::string first_clause(const std::string& message) {
    std::size_t cut = std::string::npos;
    for (const char* end : {"; ", ". "})
        cut = std::min(cut, message.find(end));
    std::string s = cut == std::string::npos ? message : message.substr(0, cut);
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    constexpr std::size_t kMost = kSummaryWidth - 24;
    if (s.size() > kMost) {
        const std::size_t space = s.rfind(' ', kMost);
        s = s.substr(0, space == std::string::npos ? kMost : space) + " ...";
    }
    return s;
}

// What the "cannot answer" line already says, and what follows from it there: noise, a poor
// fit, counts lost in the noise and resamples without a fit, whose advice (a larger sample, more
// repetitions, a quieter machine) would not help on such a machine.
bool said_by_machine_line(const std::string& code) {
    return code == "vm" || code == "oversubscribed" || code == "noisy" ||
           code == "alloc_only_unmeasurable" || code == "poor_fit" || code == "dropped_points" ||
           code == "failed_resamples";
}

void warning_lines(std::ostringstream& s, const std::vector<model::Warning>& warnings,
                   bool machine_line, bool verbose, const SettingWords& words) {
    std::vector<const model::Warning*> shown;
    std::vector<std::string> folded;
    for (const auto& w : warnings) {
        if (!verbose && machine_line && said_by_machine_line(w.code))
            folded.push_back(w.code);
        else
            shown.push_back(&w);
    }
    if (shown.empty() && folded.empty())
        return;
    s << "\n";
    if (!folded.empty())
        s << labelled("warnings", join(folded) + " (what the machine line sums up; whole with " +
                                      words("verbose") + ")");
    else
        s << "warnings\n";
    for (const auto* w : shown)
        s << "  [" << w->code << "] " << (verbose ? w->message : first_clause(w->message)) << "\n";
}

std::vector<int> grid_of(const std::vector<model::MeasuredPoint>& points) {
    std::vector<int> grid;
    for (const auto& p : points)
        grid.push_back(p.threads_per_node);
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    return grid;
}

// The prediction's own interval is its 90% bootstrap; one with the zero phase in it spans that
// and the zero phase's fastest to slowest repetition.
std::string estimate_text(const model::Estimate& e, bool bootstrap = false) {
    std::string s = seconds_text(e.seconds);
    if (e.low && e.high)
        s += bootstrap ? interval_text(*e.low, *e.high)
                       : " (" + seconds_text(*e.low) + ".." + seconds_text(*e.high) + ")";
    return s;
}

std::string at_text(const model::BreakdownAt& b) {
    return (b.at == "recommended" ? "at the decision, " : "at the kernel default, ") +
           std::to_string(b.hugepage_alloc_threads) + " thread(s)";
}

// Which measured phase holds which part: docs/kernel-facts.md "What each phase does under
// init_on_alloc".
void breakdown_lines(std::ostringstream& s, const model::BootBreakdown& b) {
    for (const auto& at : b.at) {
        s << (&at == &b.at.front() ? "breakdown  " : "           ") << at_text(at) << ": "
          << estimate_text(at.total, true);
        // Parts that do not add up to the whole are not shown as its parts.
        if (!at.separable) {
            s << ", not split: the zero phase alone takes longer than the predicted boot, so "
                 "alloc holds less than two zeroings here\n";
            continue;
        }
        s << " = allocation " << estimate_text(at.allocation);
        if (at.zeroing)
            s << " + zeroing (init_on_alloc) " << estimate_text(*at.zeroing);
        if (at.vmemmap)
            s << "; allocation includes vmemmap (HVO) " << estimate_text(*at.vmemmap);
        s << "\n";
    }
    if (b.init_on_alloc)
        s << "           zeroing: the zero phase's rate for the pool"
          << (b.init_on_alloc_assumed ? " (init_on_alloc unknown, taken as on)" : "")
          << "; allocation: the rest (grow minus zero at 1 thread, alloc minus twice zero above)\n";
    else
        s << "           init_on_alloc is off: the boot zeroes nothing, allocation is all of "
             "it\n";
    s << "           vmemmap (HVO): " << b.hvo_note << "\n"
      << "           ranges beside the parts: the 90% interval with the zero phase's fastest to "
         "slowest repetition\n";
}

void what_if_lines(std::ostringstream& s, const std::vector<model::WhatIf>& rows) {
    for (const auto& w : rows) {
        s << (&w == &rows.front() ? "what if    " : "           ") << w.parameter << "=" << w.value
          << " at " << w.hugepage_alloc_threads << " thread(s): "
          << (w.predicted ? estimate_text(*w.predicted) : std::string("not predicted")) << "\n"
          << "             trade-off: " << w.trade_off << "\n"
          << "             " << w.note << "\n";
    }
    if (!rows.empty())
        s << "           (hugetune never changes these; each is the operator's choice)\n";
}

void first_touch_lines(std::ostringstream& s, const model::FirstTouch& t) {
    s << "\nfirst touch of " << significant_text(t.gib, 4)
      << " GiB of the pool (the zero phase: each page zeroed by the thread that faults it)\n"
      << "  threads/node  threads        time  fastest..slowest repetition\n";
    for (const auto& r : t.rows) {
        char line[160];
        std::snprintf(line, sizeof line, "  %12d  %7d  %10s  %s\n", r.threads_per_node, r.threads,
                      seconds_text(r.time.seconds).c_str(),
                      r.time.low && r.time.high
                          ? (seconds_text(*r.time.low) + ".." + seconds_text(*r.time.high)).c_str()
                          : "-");
        s << line;
    }
    if (t.zeroable_hugepages)
        s << "  this kernel has per-node zeroable_hugepages: zeroing the pool's free pages ahead "
             "(write a count to it) could make the first touch free\n";
}

}  // namespace

std::string format_breakdown(const std::optional<model::BootBreakdown>& breakdown,
                             const std::vector<model::WhatIf>& what_if,
                             const std::optional<model::FirstTouch>& first_touch) {
    std::ostringstream s;
    if (breakdown)
        breakdown_lines(s, *breakdown);
    what_if_lines(s, what_if);
    if (first_touch)
        first_touch_lines(s, *first_touch);
    return s.str();
}

std::string format_report_summary(const model::Report& report, const SettingWords& words,
                                  bool verbose) {
    const model::ReportRun& run = report.run.value();
    const model::Recommendation& fit = run.fit;
    const std::vector<int> grid = grid_of(run.sweep.points);
    std::ostringstream s;
    s << "hugetune " << run.tool.version << " on host " << run.probe.hostname << " (CPU "
      << run.sku.microarch << ", " << count_text(run.sku.nodes, "node") << " x "
      << run.sku.hardware_threads_per_node << " hardware threads), "
      << page_size_text(run.sku.page_size_kb) << " pages, kernel "
      << report.kernel.release.value_or("?") << "\n\n";
    const bool machine_line = answer_lines(s, fit, grid, words);
    prediction_table(s, fit, grid);
    if (const std::string sampling = sampling_line(run.sweep); !sampling.empty())
        s << "\n" << sampling;
    if (!verbose) {
        warning_lines(s, run.warnings, machine_line, false, words);
        s << "\n(the measurements behind it, the model, the breakdown, the what-if rows and the "
             "charts: "
          << words("verbose") << ")\n";
        return s.str();
    }
    answer_details(s, fit);
    s << "\nthe raw measurements behind the prediction (sample "
      << (run.sweep.points.empty()
              ? std::string("-")
              : std::to_string(static_cast<std::uint64_t>(run.sweep.points[0].pages_per_node)) +
                    " pages per node")
      << ")\n"
      << format_phase_tables(run.sweep.points) << "\n"
      << placement_line(run.sweep, words) << "\n";
    s << format_breakdown(run.breakdown, run.what_if, run.first_touch);
    warning_lines(s, run.warnings, machine_line, true, words);
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

std::vector<int> thread_grid(const model::SweepData& data) {
    std::vector<int> grid;
    for (const auto& phase : data.phases)
        for (const auto& p : phase.points)
            grid.push_back(static_cast<int>(std::lround(p.threads_per_node)));
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    return grid;
}

std::string format_fit_summary(const model::Recommendation& r, const std::vector<int>& grid,
                               const SettingWords& words, bool verbose) {
    std::ostringstream s;
    const bool machine_line = answer_lines(s, r, grid, words);
    prediction_table(s, r, grid);
    if (!verbose) {
        warning_lines(s, r.warnings, machine_line, false, words);
        s << "\n(the model, every prediction, the breakdown and the what-if rows: "
          << words("verbose") << ")\n";
        return s.str();
    }
    answer_details(s, r);
    warning_lines(s, r.warnings, machine_line, true, words);
    return s.str();
}

std::string format_boot_comparison(const model::BootComparison& c) {
    std::ostringstream s;
    s << "Measured boots against the prediction (" << c.pages << " pages of "
      << page_size_text(c.page_size_kb) << "):\n";
    s << "  threads  boots  measured  predicted  measured/predicted\n";
    for (const auto& row : c.rows) {
        char line[128];
        std::snprintf(line, sizeof line, "  %7d  %5zu  %8s  %9s  %s\n", row.threads, row.boots,
                      seconds_text(row.measured_ms / 1000).c_str(),
                      seconds_text(row.predicted_ms / 1000).c_str(),
                      decimals_text(row.ratio, 2).c_str());
        s << line;
    }
    if (!c.what_if.empty()) {
        s << "Boots with a setting the other way against the what-if prediction:\n";
        s << "  setting                   threads  boots  measured  predicted (range)         "
             "measured/predicted\n";
        for (const auto& w : c.what_if) {
            const std::string setting =
                w.parameter.empty() ? "both other" : w.parameter + "=" + w.value;
            std::string predicted = "-";
            if (w.predicted) {
                predicted = seconds_text(w.predicted->ms / 1000);
                if (w.predicted->low_ms && w.predicted->high_ms)
                    predicted += " (" + seconds_text(*w.predicted->low_ms / 1000) + "-" +
                                 seconds_text(*w.predicted->high_ms / 1000) + ")";
            }
            char line[256];
            std::snprintf(line, sizeof line, "  %-24s  %7d%s  %5zu  %8s  %-24s  %s\n",
                          setting.c_str(), w.threads, w.recommended ? "*" : " ", w.boots,
                          seconds_text(w.measured_ms / 1000).c_str(), predicted.c_str(),
                          w.ratio ? decimals_text(*w.ratio, 2).c_str() : "-");
            s << line;
            if (!w.predicted)
                s << "    " << w.note << "\n";
        }
        s << "  (* the count the what-if row is at)\n";
    }
    for (const auto& u : c.unmatched)
        s << "  " << u << "\n";
    return s.str();
}

}  // namespace hugetune
