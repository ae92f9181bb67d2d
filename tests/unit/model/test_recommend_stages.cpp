// The recommendation's stages one at a time (model/recommend/): each returns its value, so each
// is checked on values made by hand.
#include <doctest/doctest.h>

#include "model/recommend/bootstrap.hpp"
#include "model/recommend/judge.hpp"
#include "model/recommend/machine.hpp"
#include "model/recommend/pick.hpp"
#include "model/recommend/remarks.hpp"
#include "model/recommend/series.hpp"
#include "model/recommend/verdict.hpp"
#include "tests/unit/support/model_test_data.hpp"

using namespace hugetune::model;
using namespace hugetune::model::recommend;

namespace {

ThreadLimits limits(int cpu_cap, int max_threads_per_node, int default_threads) {
    ThreadLimits t;
    t.cpu_cap = cpu_cap;
    t.max_threads_per_node = max_threads_per_node;
    t.default_threads = default_threads;
    t.min_measured = 1;
    t.max_measured = 8;
    return t;
}

std::vector<int> totals(const PoolPredictor& p) {
    std::vector<int> out;
    for (const auto& c : p.candidates)
        out.push_back(c.total);
    return out;
}

Bootstrap ran(int resamples, int usable, int agreeing) {
    Bootstrap b;
    b.method = BootstrapMethod::repetitions;
    b.resamples = resamples;
    b.usable_resamples = usable;
    b.agreeing_resamples = agreeing;
    return b;
}

bool has_code(const Remarks& r, const std::string& code) {
    for (const auto& w : r.warnings)
        if (w.code == code)
            return true;
    return false;
}

}  // namespace

TEST_CASE("candidates: every per-node count, and the kernel default where it falls") {
    SUBCASE("the default is one of the counts: not added twice") {
        // 2 nodes, 32 CPUs: the default 8 in total is 4 per node.
        const auto p = candidates(false, {}, limits(32, 16, 8), {2, 32, 1});
        CHECK(p.candidates.size() == 16);
        CHECK(p.default_index == 3);
        CHECK(p.candidates[p.default_index].threads_per_node == 4);
    }
    SUBCASE("a default below one per node: a fraction, first") {
        const auto p = candidates(false, {}, limits(2, 1, 1), {2, 2, 1});
        CHECK(totals(p) == std::vector<int>{1, 2});
        CHECK(p.default_index == 0);
        CHECK(p.candidates[0].threads_per_node == doctest::Approx(0.5));
    }
    SUBCASE("totals capped at the CPUs, the default between the counts") {
        // 4 nodes, 10 CPUs: 1 per node is 4, 2 per node is 8, 3 per node capped at 10.
        const auto p = candidates(false, {}, limits(10, 3, 6), {4, 10, 1});
        CHECK(totals(p) == std::vector<int>{4, 6, 8, 10});
        CHECK(p.default_index == 1);
        CHECK(p.candidates[1].threads_per_node == doctest::Approx(1.5));
    }
    SUBCASE("a fallback offers the measured counts only, up to the limit") {
        const std::vector<Point> series = {{1, 9}, {2, 5}, {4, 3}, {8, 2}, {8, 2.1}};
        const auto p = candidates(true, series, limits(8, 4, 2), {1, 8, 1});
        CHECK(totals(p) == std::vector<int>{1, 2, 4});
    }
}

TEST_CASE("decide: the default stays within the tolerance or when the boot is short") {
    RecommendOptions o;
    o.small_boot_seconds = 5;
    SUBCASE("a faster count beyond the tolerance is set, the fewest within it") {
        const auto c = decide({100, 60, 40.5, 40, 45}, 0, o);
        CHECK(c.decision == Decision::set);
        CHECK(c.best == 3);
        CHECK(c.pick == 2);  // 40.5 is within 2% of 40
    }
    SUBCASE("the default within the tolerance of the best") {
        const auto c = decide({100, 40.5, 40, 45}, 1, o);
        CHECK(c.decision == Decision::keep_default);
        CHECK(c.pick == 1);
        CHECK(c.best == 2);
    }
    SUBCASE("a short boot keeps the default however much faster the best") {
        const auto c = decide({4, 1, 0.5}, 0, o);
        CHECK(c.decision == Decision::keep_default);
        CHECK(c.pick == 0);
    }
}

TEST_CASE("settle: the decision's predictions, the default per node, the saving") {
    const std::vector<Prediction> p = {
        {0.5, 1, 30, 28, 33}, {1, 2, 20, 19, 22}, {2, 4, 12, {}, {}}};
    SUBCASE("set: the saving against the default") {
        const auto out = settle({Decision::set, 2, 2}, p, 0, 2);
        CHECK(out.chosen.total_threads == 4);
        CHECK(out.at_default.seconds_low == 28);
        CHECK(out.default_threads_per_node == doctest::Approx(0.5));
        CHECK(out.saving_seconds == doctest::Approx(18));
    }
    SUBCASE("keep the default: no saving, whatever the best") {
        const auto out = settle({Decision::keep_default, 1, 2}, p, 1, 2);
        CHECK(out.chosen.total_threads == 2);
        CHECK(out.best.total_threads == 4);
        CHECK(out.saving_seconds == 0);
    }
}

TEST_CASE("with_intervals: 5%..95% of the resamples, widened to hold the prediction") {
    const std::vector<Prediction> p = {{1, 1, 10, {}, {}}, {2, 2, 5, {}, {}}};
    Bootstrap b = ran(21, 21, 21);
    b.seconds.resize(2);
    for (int i = 0; i <= 20; ++i) {
        b.seconds[0].push_back(11 + i);   // all above the prediction: low widened to 10
        b.seconds[1].push_back(i * 0.5);  // 0..10: 0.5 and 9.5
    }
    const auto out = with_intervals(p, b);
    CHECK(out[0].seconds_low == 10);
    CHECK(out[0].seconds_high == doctest::Approx(30));
    CHECK(out[1].seconds_low == doctest::Approx(0.5));
    CHECK(out[1].seconds_high == doctest::Approx(9.5));
    SUBCASE("no usable resample: no interval") {
        const auto none = with_intervals(p, ran(100, 0, 0));
        CHECK_FALSE(none[0].seconds_low);
        CHECK_FALSE(none[1].seconds_high);
    }
}

TEST_CASE("judge_uncertainty: the share agreeing, absent where a rule decided, and its warnings") {
    RecommendOptions o;
    const FittedModels fitted;
    const auto basis = CostBasis::alloc_zeroed_once;
    SUBCASE("no bootstrap: no confidence, and a warning saying why") {
        const auto u = judge_uncertainty(Bootstrap{}, fitted, basis, o);
        CHECK_FALSE(u.confidence);
        CHECK(u.by_rule.empty());
        CHECK(has_code(u.remarks, "no_uncertainty"));
    }
    SUBCASE("unusable resamples count as disagreeing; a few only make a note") {
        const auto u = judge_uncertainty(ran(1000, 990, 900), fitted, basis, o);
        REQUIRE(u.confidence);
        CHECK(*u.confidence == doctest::Approx(0.9));
        CHECK(u.remarks.warnings.empty());
        CHECK(u.remarks.notes ==
              std::vector<std::string>{"10 bootstrap resample(s) gave no usable fit"});
    }
    SUBCASE("more than 5% unusable: a warning") {
        const auto u = judge_uncertainty(ran(1000, 900, 900), fitted, basis, o);
        CHECK(has_code(u.remarks, "failed_resamples"));
        CHECK(u.remarks.notes.empty());
    }
    SUBCASE("below the threshold: low confidence, the share as it is") {
        const auto u = judge_uncertainty(ran(1000, 1000, 500), fitted, basis, o);
        REQUIRE(u.confidence);
        CHECK(*u.confidence == doctest::Approx(0.5));
        CHECK(has_code(u.remarks, "low_confidence"));
    }
    SUBCASE("a series held flat: decided by rule, no confidence even when every resample agrees") {
        const auto u =
            judge_uncertainty(ran(1000, 1000, 1000), fitted, CostBasis::alloc_only_flat, o);
        CHECK_FALSE(u.confidence);
        CHECK(u.by_rule.find("no gain from threads") != std::string::npos);
        CHECK(u.remarks.warnings.empty());
    }
    SUBCASE("no curve converged: decided by rule") {
        FittedModels fallback;
        fallback.fallback = true;
        const auto u = judge_uncertainty(ran(1000, 1000, 1000), fallback, basis, o);
        CHECK_FALSE(u.confidence);
        CHECK(u.by_rule.find("fastest measured count") != std::string::npos);
    }
}

TEST_CASE("judge_fit: poor only when R^2 is low and the points lie far off") {
    FittedModels fits;
    fits.model.chose_usl = true;
    fits.model.usl.r2 = 0.5;
    fits.model.usl.residuals = {0.2, -0.2, 0.2, -0.2};
    fits.model.usl.fitted_points = 4;
    fits.model.usl.rss = 4 * 0.04;
    CHECK(has_code(judge_fit(fits).remarks, "poor_fit"));
    fits.model.usl.rss = 4 * 0.0001;  // 1% off the curve: predicts well despite the R^2
    CHECK_FALSE(has_code(judge_fit(fits).remarks, "poor_fit"));
    fits.fallback = true;
    fits.model.usl.rss = 4 * 0.04;
    CHECK_FALSE(has_code(judge_fit(fits).remarks, "poor_fit"));
}

TEST_CASE("judge_pick: beyond the measured counts, and little to gain") {
    RecommendOptions o;
    Outcome out;
    out.chosen = {12, 24, 3, {}, {}};
    const FittedModels fits;
    const auto r = judge_pick(out, limits(24, 12, 6), fits, CostBasis::boot_table, o);
    CHECK(has_code(r, "extrapolated"));
    REQUIRE(r.notes.size() == 1);
    CHECK(r.notes[0].find("little to gain") != std::string::npos);
    // A series held flat claims nothing beyond its one count.
    CHECK(judge_pick(out, limits(24, 12, 6), fits, CostBasis::alloc_only_flat, o).warnings.empty());
}

TEST_CASE("bootstrap_method: repetitions where every phase has them, else residuals or none") {
    SweepData d;
    d.phases.push_back(
        {"boot", 0, hugetune::model::testdata::usl_points({1, 2, 4, 8}, 0.1, 0.01), {}});
    const CostSeries one_each = choose_cost_series(d);
    ScalingFit fit;
    fit.residuals = {0, 0, 0, 0};
    fit.parameters = 3;
    CHECK(bootstrap_method(one_each, fit) == BootstrapMethod::residuals);
    fit.parameters = 4;  // no residual degrees of freedom left
    CHECK(bootstrap_method(one_each, fit) == BootstrapMethod::none);
    d.phases[0].points = hugetune::model::testdata::usl_points({1, 2, 4, 8}, 0.1, 0.01, 3, 0.02);
    // A boot table's rows are not known to be rounds: its repetitions are drawn per count.
    CHECK(bootstrap_method(choose_cost_series(d), std::nullopt) == BootstrapMethod::repetitions);
    CHECK(to_string(BootstrapMethod::hosts_then_repetitions) == "hosts, then repetitions");
    CHECK(to_string(BootstrapMethod::none).empty());
}

TEST_CASE("choose_boot_pool: the option, the command line, the pool now, else 1 TiB") {
    SweepData d;
    d.page_size_kb = 2048;
    const PhaseSeries sweep{"alloc", 128, {}, {}};
    RecommendOptions o;
    const auto reference = choose_boot_pool(d, o, sweep);
    CHECK(reference.source == "1 TiB reference");
    CHECK(reference.pages == 524288);
    CHECK(reference.remarks.notes.size() == 1);
    d.machine.current_pool_pages = 100;
    CHECK(choose_boot_pool(d, o, sweep).source == "current pool");
    d.machine.boot_pool_pages = 200;
    CHECK(choose_boot_pool(d, o, sweep).pages == 200);
    o.pool_pages = 300;
    CHECK(choose_boot_pool(d, o, sweep).source == "option");
    CHECK(choose_boot_pool(d, o, {"boot", 0, {}, {}}).pages == 0);  // a table is its own work
}

TEST_CASE("joined: every stage's notes and warnings, in the stages' order") {
    const Remarks a{{"a1", "a2"}, {{"w1", "x"}}}, b{{}, {{"w2", "y"}}}, c{{"c1"}, {}};
    const auto all = joined({&a, &b, &c});
    CHECK(all.notes == std::vector<std::string>{"a1", "a2", "c1"});
    REQUIRE(all.warnings.size() == 2);
    CHECK(all.warnings[1].code == "w2");
}

TEST_CASE("verdict: one sentence from the outcome and the confidence") {
    RecommendOptions o;
    Outcome out;
    out.decision = Decision::set;
    out.chosen = {8, 16, 20, {}, {}};
    out.at_default = {4, 8, 30, {}, {}};
    out.best = out.chosen;
    out.saving_seconds = 10;
    CHECK(verdict({out, 0.95, 8, false}, o) ==
          "Set hugepage_alloc_threads=16 (8 per node): predicted 20.0 s vs 30.0 s at the kernel "
          "default of 8 thread(s) (saving 10.0 s), confidence 95%.");
    CHECK(verdict({out, std::nullopt, 8, true}, o).starts_with("No curve could be fitted"));
    out.decision = Decision::keep_default;
    out.chosen = out.at_default;
    CHECK(verdict({out, 0.95, 8, false}, o).starts_with("Keep the kernel default"));
}
