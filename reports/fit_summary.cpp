// The console output of `hugetune fit` and the table of measured boots that `fit` and `run`
// both print: the model's numbers, worded for people.
#include "reports/fit_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "model/cost_basis.hpp"
#include "model/text.hpp"
#include "reports/result_text.hpp"

namespace hugetune {

std::string format_fit_summary(const model::Recommendation& r) {
    std::ostringstream s;
    s << r.verdict << "\n\n";
    s << "curve       " << r.curve << " (" << model::describe(r.basis) << "), "
      << printable_text(r.key.microarch) << ", " << r.nodes << " node(s), up to "
      << r.max_threads_per_node << " thread(s) per node\n";
    const auto describe = [&](const std::string& label, const model::ModelSelection& m) {
        if (!m.any_converged) {
            s << label << "no fit: " << m.reason << "\n";
            return;
        }
        const model::ScalingFit& f = m.chosen();
        s << label << model::to_string(f.model) << ": sigma " << significant_text(f.sigma, 4)
          << ", kappa " << significant_text(f.kappa, 4) << ", R^2 " << decimals_text(f.r2, 3);
        if (auto n = f.n_star())
            s << ", N* " << decimals_text(*n, 1);
        s << " (" << m.reason << ")\n";
    };
    describe("model       ", r.model);
    for (const auto& p : r.phases) {
        if (p.phase == r.curve)
            continue;
        std::string label = "phase " + p.phase;
        label.resize(std::max<std::size_t>(label.size() + 1, 12), ' ');
        if (p.selection)
            describe(label, *p.selection);
        else
            s << label << p.message << "\n";
    }
    s << "recommend   "
      << decision_text(r.decision, r.hugepage_alloc_threads, r.threads_per_node, std::nullopt)
      << "\n";
    s << "predicted   " << seconds_text(r.predicted_seconds);
    if (r.predicted_seconds_low && r.predicted_seconds_high)
        s << interval_text(*r.predicted_seconds_low, *r.predicted_seconds_high);
    s << "\n";
    s << "default     " << r.default_threads << " thread(s) ("
      << significant_text(r.default_threads_per_node, 4) << " per node), predicted "
      << seconds_text(r.predicted_default_seconds) << "; saving " << seconds_text(r.saving_seconds)
      << "\n";
    if (r.best_hugepage_alloc_threads != r.hugepage_alloc_threads)
        s << "best        hugepage_alloc_threads=" << r.best_hugepage_alloc_threads
          << ", predicted " << seconds_text(r.predicted_best_seconds) << "\n";
    const bool poor_fit = std::any_of(r.warnings.begin(), r.warnings.end(),
                                      [](const model::Warning& w) { return w.code == "poor_fit"; });
    s << "confidence  "
      << (r.confidence ? percent_text(*r.confidence) + " of " + std::to_string(r.resamples) +
                             " resamples (" + r.bootstrap_method +
                             ") reach the same decision at a " + percent_text(r.tolerance, 1) +
                             " tolerance" + (poor_fit ? ", times the poor fit's R^2" : "")
                       : std::string("unknown"))
      << "\n";
    s << "predictions (hugepage_alloc_threads: boot allocation of the pool)";
    for (std::size_t i = 0; i < r.predictions.size(); ++i) {
        const auto& p = r.predictions[i];
        s << (i % 6 == 0 ? "\n  " : "  ") << p.total_threads << ": " << seconds_text(p.seconds);
    }
    s << "\n";
    for (const auto& w : r.warnings)
        s << "warning: " << w.message << "\n";
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
                      seconds_text(row.measured_seconds).c_str(),
                      seconds_text(row.predicted_seconds).c_str(),
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
                predicted = seconds_text(w.predicted->seconds);
                if (w.predicted->low && w.predicted->high)
                    predicted += " (" + seconds_text(*w.predicted->low) + "-" +
                                 seconds_text(*w.predicted->high) + ")";
            }
            char line[256];
            std::snprintf(line, sizeof line, "  %-24s  %7d%s  %5zu  %8s  %-24s  %s\n",
                          setting.c_str(), w.threads, w.recommended ? "*" : " ", w.boots,
                          seconds_text(w.measured_seconds).c_str(), predicted.c_str(),
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
