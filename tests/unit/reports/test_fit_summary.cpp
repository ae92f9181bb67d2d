// `fit`'s console output and the boot table: the decision worded as the JSON states it, in the
// phrases `run`'s summary uses too.
#include <doctest/doctest.h>

#include "model/alloc_threads.hpp"
#include "model/boot_comparison.hpp"
#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"
#include "model/text.hpp"
#include "reports/result_text.hpp"
#include "reports/summary.hpp"
#include "tests/unit/support/report_data.hpp"

using namespace hugetune;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

model::Recommendation fixed_fit(double tolerance) {
    model::RecommendOptions options;
    options.tolerance = tolerance;
    return model::recommend_from_sweep(model::parse_sweep_json(test::fixed_sweep()), options);
}

}  // namespace

TEST_CASE("fit summary: the answer first, its prediction and interval as the JSON has them") {
    for (const double tolerance : {0.02, 0.99}) {
        CAPTURE(tolerance);
        const model::Recommendation r = fixed_fit(tolerance);
        const std::vector<int> grid = {1, 2, 4, 8, 16, 32};
        const std::string text = format_fit_summary(r, grid);
        const std::string decision =
            decision_text(r.decision, r.hugepage_alloc_threads, r.threads_per_node, r.nodes);
        CHECK(text.starts_with("answer     " + decision + "\n"));
        CHECK(decision.starts_with(r.decision == model::Decision::set
                                       ? "set " + alloc_threads_setting(r.hugepage_alloc_threads)
                                       : "keep the kernel default"));
        CHECK(contains(text, "\npredicted  " + seconds_text(r.predicted_seconds)));
        if (r.predicted_seconds_low && r.predicted_seconds_high)
            CHECK(
                contains(text, interval_text(*r.predicted_seconds_low, *r.predicted_seconds_high)));
        CHECK(contains(text, "\nhow sure   "));
        // The verdict sentence and the model wait for --verbose.
        CHECK_FALSE(contains(text, r.verdict));
        const std::string verbose = format_fit_summary(r, grid, {}, true);
        CHECK(verbose.starts_with(text.substr(0, text.find("\n\n"))));
        CHECK(contains(verbose, "verdict     " + r.verdict + "\n"));
        CHECK(contains(verbose, "\nmodel       "));
    }
    // A 99% tolerance leaves nothing worth changing.
    CHECK(fixed_fit(0.99).decision == model::Decision::keep_default);
}

TEST_CASE("decision text: with and without the node count") {
    CHECK(decision_text(model::Decision::set, 24, 12, 2) ==
          "set hugepage_alloc_threads=24 (12 per node x 2 nodes)");
    CHECK(decision_text(model::Decision::set, 8, 8, 1) ==
          "set hugepage_alloc_threads=8 (8 per node x 1 node)");
    CHECK(decision_text(model::Decision::keep_default, 2, 1, std::nullopt) ==
          "keep the kernel default, hugepage_alloc_threads=2 (1 per node)");
    CHECK(interval_text(1.2, 1.35) == " (90% 1.20 s..1.35 s)");
}

TEST_CASE("boot comparison: one row per measured value") {
    model::BootComparison c;
    c.pages = 1000;
    c.page_size_kb = 2048;
    c.rows.push_back({8, 2, 500, 400, 1.25});
    const std::string text = format_boot_comparison(c);
    CHECK(text.starts_with("Measured boots against the prediction (1000 pages of 2 MiB):\n"));
    CHECK(contains(text, "measured/predicted\n"));
    CHECK(contains(text, "        8      2  500.0 ms   400.0 ms  1.25\n"));
}
