#include "model/boot_comparison.hpp"

#include <cmath>
#include <tuple>

#include "model/fit/resampling.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

// The prediction's own settings: init_on_alloc as its cost basis took it, HVO as the sweep ran.
std::pair<std::optional<bool>, std::optional<bool>> predicted_settings(const Recommendation& r,
                                                                       const WhatIfBasis& basis) {
    if (basis.sweep == nullptr)
        return {std::nullopt, std::nullopt};
    std::optional<bool> ioa = basis.sweep->machine.init_on_alloc;
    if (r.basis == CostBasis::alloc_zeroed_once)
        ioa = true;
    else if (r.basis == CostBasis::alloc_only || r.basis == CostBasis::alloc_only_flat)
        ioa = false;
    const std::optional<bool> hvo =
        basis.sweep->hvo_pass ? std::optional(basis.sweep->hvo_pass->as_is) : basis.kernel.hvo;
    return {ioa, hvo};
}

std::optional<double> milliseconds(const std::optional<double>& seconds) {
    return seconds ? std::optional(*seconds * 1000) : std::nullopt;
}

bool differs(const std::optional<bool>& a, const std::optional<bool>& b) {
    return a && b && *a != *b;
}

struct Measured {
    int threads = 1;
    std::size_t boots = 0;
    double seconds = 0;
};

std::vector<Measured> measured_by_count(const PhaseSeries& series, int nodes) {
    std::vector<Measured> out;
    for (const Point& median : medians_per_count(series.points)) {
        Measured m;
        m.threads = static_cast<int>(std::lround(median.threads_per_node * nodes));
        for (const Point& p : series.points)
            m.boots += p.threads_per_node == median.threads_per_node ? 1 : 0;
        m.seconds = median.seconds;
        out.push_back(m);
    }
    return out;
}

std::string setting_words(const BootSettingSeries& s) {
    const auto text = [](const std::optional<bool>& v, const char* on, const char* off) {
        return v ? std::string(*v ? on : off) : std::string("unknown");
    };
    return "init_on_alloc " + text(s.init_on_alloc, "1", "0") + ", HVO " + text(s.hvo, "on", "off");
}

void add_what_if(BootComparison& c, const Recommendation& r, const WhatIfBasis& basis,
                 const BootSettingSeries& set, const std::string& parameter, int nodes) {
    for (const Measured& m : measured_by_count(set.boots, nodes)) {
        BootWhatIfRow row;
        row.parameter = parameter;
        row.threads = m.threads;
        row.recommended = m.threads == r.hugepage_alloc_threads;
        row.boots = m.boots;
        row.measured_ms = m.seconds * 1000;
        if (parameter.empty()) {
            row.note =
                "init_on_alloc and HVO both differ from the sweep's; each what-if row "
                "changes one";
            c.what_if.push_back(row);
            continue;
        }
        row.note = "no what-if prediction: the sweep's phases do not split the boot";
        for (const WhatIf& w : what_if_rows_at(r, *basis.sweep, basis.kernel, m.threads,
                                               static_cast<double>(c.pages))) {
            if (w.parameter != parameter)
                continue;
            row.value = w.value;
            if (w.predicted)
                row.predicted =
                    PredictedMs{w.predicted->seconds * 1000, milliseconds(w.predicted->low),
                                milliseconds(w.predicted->high)};
            row.note = w.note;
            if (w.predicted && w.predicted->seconds > 0)
                row.ratio = m.seconds / w.predicted->seconds;
        }
        if (row.value.empty())
            row.value = parameter == "init_on_alloc"
                            ? (set.init_on_alloc.value_or(false) ? "1" : "0")
                            : (set.hvo.value_or(false) ? "on" : "off");
        c.what_if.push_back(row);
    }
}

}  // namespace

BootComparison compare_with_boots(const Recommendation& r, const SweepData& boots,
                                  const WhatIfBasis& basis) {
    BootComparison c;
    c.page_size_kb = boots.page_size_kb;
    c.pages = boots.machine.boot_pool_pages.value_or(0);
    c.kernel_release = boots.machine.kernel_release;
    if (r.key.page_size_kb != 0 && r.key.page_size_kb != boots.page_size_kb)
        throw InputError(boots.input, std::nullopt,
                         "the boot sweep booted " + page_size_text(boots.page_size_kb) +
                             " pages, the sweep measured " + page_size_text(r.key.page_size_kb) +
                             "; compare a sweep of the same page size");
    std::tie(c.init_on_alloc, c.hvo) = predicted_settings(r, basis);
    const int nodes = boots.machine.nodes.value_or(1);
    std::vector<BootSettingSeries> settings = boots.boot_settings;
    if (settings.empty())
        if (const PhaseSeries* series = boots.phase(kPhaseBoot))
            settings.push_back({boots.machine.init_on_alloc, std::nullopt, *series});
    bool compared = false;
    for (const BootSettingSeries& set : settings) {
        const bool ioa_differs = differs(set.init_on_alloc, c.init_on_alloc);
        const bool hvo_differs = differs(set.hvo, c.hvo);
        if (!ioa_differs && !hvo_differs && !compared) {
            compared = true;
            for (const Measured& m : measured_by_count(set.boots, nodes)) {
                BootComparisonRow row;
                row.threads = m.threads;
                row.boots = m.boots;
                const double predicted =
                    predict_boot_seconds(r, row.threads, static_cast<double>(c.pages));
                row.measured_ms = m.seconds * 1000;
                row.predicted_ms = predicted * 1000;
                row.ratio = predicted > 0 ? m.seconds / predicted : 0;
                c.rows.push_back(row);
            }
        } else if ((ioa_differs || hvo_differs) && basis.sweep != nullptr) {
            const std::string parameter = ioa_differs && hvo_differs ? ""
                                          : ioa_differs              ? "init_on_alloc"
                                                                     : "hugetlb_free_vmemmap";
            add_what_if(c, r, basis, set, parameter, nodes);
        } else {
            c.unmatched.push_back(setting_words(set) + ": not compared (" +
                                  (compared ? "the boots at the prediction's settings are those of "
                                              "an earlier setting"
                                            : "no sweep to predict the setting from") +
                                  ")");
        }
    }
    return c;
}

}  // namespace hugetune::model
