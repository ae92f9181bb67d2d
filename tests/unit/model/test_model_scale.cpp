// Large inputs: the fit works on per-count summaries, the bootstrap on a bounded per-count pool,
// and the readers refuse inputs past their documented size.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "model/fit/model_selection.hpp"
#include "model/fit/resampling.hpp"
#include "model/fit/scaling_fit.hpp"
#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"
#include "tests/unit/support/model_test_data.hpp"

using namespace hugetune::model;
using testdata::usl_points;

namespace {

const std::vector<double> kCounts = {1, 2, 4, 8, 16, 32, 64, 128};

// One point per count standing for all its repetitions: the geometric mean (the mean in the
// log space the fit works in), weighted by how many there were.
std::vector<Point> summary_points(std::span<const Point> points) {
    std::vector<Point> out;
    for (const auto& c : summarize_counts(points))
        out.push_back({c.threads_per_node, std::exp(c.mean_log_seconds), c.weight});
    return out;
}

double relative_difference(double a, double b) {
    return std::abs(a - b) / std::max(std::abs(a), std::abs(b));
}

void check_same_fit(const ScalingFit& all, const ScalingFit& summary) {
    REQUIRE(all.ok());
    REQUIRE(summary.ok());
    CHECK(relative_difference(all.lambda, summary.lambda) < 1e-7);
    CHECK(relative_difference(all.sigma, summary.sigma) < 1e-6);
    CHECK(std::abs(all.kappa - summary.kappa) < 1e-6 * std::max(all.kappa, 1e-6));
    for (double n : kCounts)
        CHECK(relative_difference(all.seconds(n), summary.seconds(n)) < 1e-7);
}

}  // namespace

TEST_CASE("a 200,000-row fit equals the fit of its per-count summary") {
    // 25,000 repetitions at each of 8 counts, 5% noise.
    const auto points = usl_points(kCounts, 0.08, 0.0015, 25'000, 0.05, 7);
    REQUIRE(points.size() == 200'000);
    const auto summary = summary_points(points);
    REQUIRE(summary.size() == kCounts.size());
    check_same_fit(fit_usl(points), fit_usl(summary));
    check_same_fit(fit_amdahl(points), fit_amdahl(summary));
    // Quality counts every repetition: AICc sees 200,000 points, and the summary's fit misses
    // only the spread within each count.
    const auto all = fit_usl(points);
    CHECK(all.fitted_points == points.size());
    CHECK(all.residuals.empty());  // past kMaxKeptResiduals: rss and r2 stand for them
    REQUIRE(all.aicc);
    double within = 0;
    for (const auto& c : summarize_counts(points))
        within += c.log_sum_squares;
    CHECK(relative_difference(all.rss, fit_usl(summary).rss + within) < 1e-9);
}

TEST_CASE("a weighted point counts as that many repetitions of its value") {
    const std::vector<Point> repeated = {{1, 10}, {1, 10}, {1, 10}, {2, 6}, {2, 6},
                                         {4, 4},  {8, 3},  {8, 3},  {8, 3}, {8, 3}};
    const std::vector<Point> weighted = {{1, 10, 3}, {2, 6, 2}, {4, 4, 1}, {8, 3, 4}};
    const auto a = fit_amdahl(repeated), b = fit_amdahl(weighted);
    check_same_fit(a, b);
    CHECK(a.rss == doctest::Approx(b.rss).epsilon(1e-9));
    REQUIRE(a.aicc);
    REQUIRE(b.aicc);
    CHECK(*a.aicc == doctest::Approx(*b.aicc).epsilon(1e-9));
    CHECK(medians_per_count(weighted).at(3).seconds == 3);
    CHECK(has_repetitions(weighted) == has_repetitions(repeated));
}

TEST_CASE("a count's median is the same from repetitions as from their weights") {
    // Unit weights take a selection, other weights a sort: both must give the middle value, or
    // the mean of the two middle values when the count has an even number of repetitions.
    Resampler rng(7);
    for (const std::size_t size : {1U, 2U, 3U, 4U, 9U, 10U, 1001U, 1002U}) {
        std::vector<Point> unit, doubled;
        std::vector<double> values;
        for (std::size_t i = 0; i < size; ++i) {
            const double seconds = 1 + static_cast<double>(rng.index(50));  // ties on purpose
            unit.push_back({2, seconds});
            doubled.push_back({2, seconds, 2});
            values.push_back(seconds);
        }
        std::sort(values.begin(), values.end());
        const double expected =
            size % 2 == 1 ? values[size / 2] : (values[size / 2 - 1] + values[size / 2]) / 2;
        CAPTURE(size);
        CHECK(medians_per_count(unit).at(0).seconds == expected);
        CHECK(medians_per_count(doubled).at(0).seconds == expected);
        CHECK(median(values) == expected);
    }
}

TEST_CASE("a pooled resample drawn as medians gives the medians of the resample itself") {
    // Hosts of a few repetitions per count, some lacking a count, values with ties; drawn hosts
    // repeat. draw_medians must give medians_per_count(draw) value for value and leave the
    // generator where draw leaves it. The last seeds pool thousands of hosts, of which a
    // resample draws kMaxResampledHosts: their medians are found by selection among the ranks
    // drawn, not by counting every rank.
    for (std::uint64_t seed = 1; seed <= 44; ++seed) {
        Resampler make(seed);
        std::vector<Point> points;
        std::vector<std::size_t> ends;
        const std::size_t hosts =
            seed <= 40 ? 1 + make.index(12) : 4 * kMaxResampledHosts + 1 + make.index(3000);
        for (std::size_t h = 0; h < hosts; ++h) {
            for (const double n : {1.0, 2.0, 4.0, 8.0}) {
                if (n == 4 && h % 3 == 1)
                    continue;  // this host never measured 4 threads
                const std::size_t reps = 1 + make.index(5);
                for (std::size_t r = 0; r < reps; ++r)
                    points.push_back({n, 1 + static_cast<double>(make.index(20)) / 4 / n});
            }
            ends.push_back(points.size());
        }
        const HostRepetitionPool pool(points, ends);
        REQUIRE(pool.exact());
        Resampler a(seed * 7), b(seed * 7);
        for (int resample = 0; resample < 20; ++resample) {
            const auto drawn = draw_hosts(pool.hosts(), a);
            CHECK(draw_hosts(pool.hosts(), b) == drawn);
            CHECK(drawn.size() == std::min(hosts, kMaxResampledHosts));
            const auto expected = medians_per_count(pool.draw(drawn, a));
            const auto got = pool.draw_medians(drawn, b);
            CAPTURE(seed);
            CAPTURE(resample);
            REQUIRE(got.size() == expected.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                CHECK(got[i].threads_per_node == expected[i].threads_per_node);
                CHECK(got[i].seconds == expected[i].seconds);
                CHECK(got[i].weight == expected[i].weight);
            }
        }
        CHECK(a.index(1000000) == b.index(1000000));
    }
}

TEST_CASE("a pooled series ranked on several threads resamples as on one") {
    // Enough samples that the counts are ranked side by side, with ties among them: the ranks,
    // and so every resample's medians, must not depend on how many threads ranked them.
    Resampler make(5);
    std::vector<Point> points;
    std::vector<std::size_t> ends;
    for (std::size_t h = 0; h < 12000; ++h) {
        for (const double n : {1.0, 2.0, 4.0, 8.0})
            for (int r = 0; r < 3; ++r)
                points.push_back({n, 1 + static_cast<double>(make.index(50)) / 8 / n});
        ends.push_back(points.size());
    }
    const HostRepetitionPool one(points, ends, 1), several(points, ends, 4);
    REQUIRE(several.exact());
    REQUIRE(several.hosts() == one.hosts());
    Resampler a(11), b(11);
    for (int resample = 0; resample < 10; ++resample) {
        const auto drawn = draw_hosts(one.hosts(), a);
        CHECK(draw_hosts(several.hosts(), b) == drawn);
        const auto x = one.draw_medians(drawn, a);
        const auto y = several.draw_medians(drawn, b);
        REQUIRE(x.size() == y.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            CHECK(x[i].threads_per_node == y[i].threads_per_node);
            CHECK(x[i].seconds == y[i].seconds);
        }
    }
}

TEST_CASE("small series resample exactly as every repetition drawn in turn") {
    // At most kExactResampleSamples the pool is the samples themselves: the draws are the
    // classic bootstrap, so committed results with fixed seeds stay as they were.
    const auto points = usl_points(kCounts, 0.05, 0.002, 5, 0.05, 5);
    Resampler a(42), b(42);
    const auto pooled = RepetitionPool(points).draw(a);
    std::vector<Point> classic;
    for (double n : kCounts) {
        std::vector<double> at_n;
        for (const auto& p : points)
            if (p.threads_per_node == n)
                at_n.push_back(p.seconds);
        for (std::size_t i = 0; i < at_n.size(); ++i)
            classic.push_back({n, at_n[b.index(at_n.size())]});
    }
    REQUIRE(pooled.size() == classic.size());
    for (std::size_t i = 0; i < pooled.size(); ++i) {
        CHECK(pooled[i].threads_per_node == classic[i].threads_per_node);
        CHECK(pooled[i].seconds == classic[i].seconds);
        CHECK(pooled[i].weight == 1);
    }
}

TEST_CASE("a large series resamples to a bounded pool with the spread of its repetitions") {
    const std::size_t per_count = 100'000;
    const double noise = 0.1;
    const auto points = usl_points({1, 2, 4}, 0.05, 0.001, static_cast<int>(per_count), noise, 3);
    const RepetitionPool pool(points);
    Resampler rng(9);
    // The bootstrap spread of a count's mean log seconds is the spread of one repetition over
    // sqrt(repetitions); its median spreads about sqrt(pi / 2) times as much (normal noise).
    std::vector<double> means, medians;
    for (int b = 0; b < 400; ++b) {
        const auto resample = pool.draw(rng);
        CHECK(resample.size() <= 3 * kResampleBlocksPerCount);
        const auto counts = summarize_counts(resample);
        REQUIRE(counts.size() == 3);
        CHECK(relative_difference(counts[0].weight, static_cast<double>(per_count)) < 0.02);
        means.push_back(counts[0].mean_log_seconds);
        medians.push_back(std::log(medians_per_count(resample)[0].seconds));
    }
    const auto spread = [](const std::vector<double>& v) {
        double mean = 0, squares = 0;
        for (double x : v)
            mean += x;
        mean /= static_cast<double>(v.size());
        for (double x : v)
            squares += (x - mean) * (x - mean);
        return std::sqrt(squares / static_cast<double>(v.size() - 1));
    };
    const double expected_mean_spread = noise / std::sqrt(static_cast<double>(per_count));
    CHECK(spread(means) == doctest::Approx(expected_mean_spread).epsilon(0.15));
    CHECK(spread(medians) ==
          doctest::Approx(expected_mean_spread * std::sqrt(std::acos(-1.0) / 2)).epsilon(0.35));
}

TEST_CASE("a recommendation from 200,000 repetitions matches the one from their summary") {
    const auto points = usl_points(kCounts, 0.08, 0.0015, 25'000, 0.05, 11, 0.5);
    SweepData data;
    data.source = "csv";
    data.phases.push_back({std::string(kPhaseBoot), 0, points, {}});
    RecommendOptions options;
    options.resamples = 200;
    const auto r = recommend_from_sweep(data, options);
    SweepData summary = data;
    summary.phases[0].points = summary_points(points);
    const auto s = recommend_from_sweep(summary, options);
    CHECK(r.threads_per_node == s.threads_per_node);
    CHECK(r.predicted_seconds == doctest::Approx(s.predicted_seconds).epsilon(1e-3));
    REQUIRE(r.confidence);
    CHECK(r.bootstrap_method == "repetitions");
    CHECK(r.usable_resamples == options.resamples);
}

TEST_CASE("csv: more rows than the bound is refused naming the bound and the fix") {
    std::string text = "threads_per_node,seconds\n";
    for (std::size_t i = 0; i < kMaxInputSamples; ++i)
        text += i % 2 == 0 ? "1,10\n" : (i % 3 == 0 ? "2,6\n" : "4,4\n");
    CHECK_NOTHROW(parse_csv_table(text));
    text += "8,3\n";
    try {
        parse_csv_table(text);
        FAIL("no error for a table past the bound");
    } catch (const InputError& e) {
        CHECK(e.line() == static_cast<int>(kMaxInputSamples) + 2);
        const std::string message = e.what();
        CHECK(message.find("more than 1000000 data rows") != std::string::npos);
        CHECK(message.find("fewer repetitions") != std::string::npos);
    }
}

TEST_CASE("sweep: more samples than the bound is refused at the point that passes it") {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/tests/data/sweep-zen4-2node.json");
    REQUIRE(in);
    auto doc = nlohmann::json::parse(in);
    auto& samples = doc["points"][1]["samples_seconds"];
    const double seconds = samples[0].get<double>();
    samples = nlohmann::json::array();
    for (std::size_t i = 0; i < kMaxInputSamples; ++i)
        samples.push_back(seconds);
    try {
        parse_sweep_json(doc);
        FAIL("no error for a sweep past the bound");
    } catch (const InputError& e) {
        const std::string message = e.what();
        CHECK(message.find("points[1].samples_seconds: more than 1000000 samples") == 0);
        CHECK(message.find("fewer repetitions") != std::string::npos);
    }
}

TEST_CASE("a large series with one lone sample resamples residuals per thread count") {
    // Every count but the first has repetitions: the bootstrap falls back to residuals, and past
    // kExactResampleSamples each count is one weighted point instead of every row.
    auto points = usl_points({2, 4, 8, 16}, 0.05, 0.001, 10'000, 0.05, 13);
    points.push_back({1, testdata::usl_seconds(1, 0.05, 0.001, 100)});
    const auto fit = fit_usl(points);
    REQUIRE(fit.ok());
    const ResidualPool pool(points, fit);
    Resampler rng(5);
    const auto resample = pool.draw(rng);
    REQUIRE(resample.size() == 5);
    CHECK(resample[0].weight == 1);
    CHECK(resample[1].weight == 10'000);
    for (const auto& p : resample)
        CHECK(relative_difference(p.seconds, fit.seconds(p.threads_per_node)) < 0.2);
    // A small series draws exactly as before: one point per measurement.
    const auto small = usl_points({1, 2, 4, 8, 16}, 0.05, 0.001, 1, 0.05, 13);
    const auto small_fit = fit_usl(small);
    Resampler a(8), b(8);
    const auto pooled = ResidualPool(small, small_fit).draw(a);
    REQUIRE(pooled.size() == small.size());
    CHECK(pooled[2].seconds == resample_residuals(small, small_fit, b)[2].seconds);
}

TEST_CASE("the bootstrap gives the same figures on one thread as on several") {
    // Each resample draws from a generator seeded with its own index, so which thread draws it
    // changes nothing; 3 repetitions per count, noisy enough that the
    // resamples' predictions scatter.
    const auto points = usl_points(kCounts, 0.08, 0.0015, 3, 0.2, 5, 0.5);
    SweepData data;
    data.source = "csv";
    data.phases.push_back({std::string(kPhaseBoot), 0, points, {}});
    RecommendOptions options;
    options.resamples = 500;
    options.threads = 1;
    const auto one = recommend_from_sweep(data, options);
    REQUIRE(one.confidence);
    CHECK(*one.confidence > 0);
    // The resamples scatter: an interval that were one value would compare nothing.
    CHECK(std::any_of(one.predictions.begin(), one.predictions.end(), [](const Prediction& p) {
        return p.seconds_low && *p.seconds_high > *p.seconds_low * 1.01;
    }));
    for (const int threads : {2, 5, 0}) {
        CAPTURE(threads);
        options.threads = threads;
        const auto many = recommend_from_sweep(data, options);
        CHECK(many.confidence == one.confidence);
        CHECK(many.usable_resamples == one.usable_resamples);
        REQUIRE(many.predictions.size() == one.predictions.size());
        for (std::size_t i = 0; i < one.predictions.size(); ++i) {
            CHECK(many.predictions[i].seconds_low == one.predictions[i].seconds_low);
            CHECK(many.predictions[i].seconds_high == one.predictions[i].seconds_high);
        }
    }
    // Another seed draws other resamples: the figures above are not fixed by the data alone.
    options.seed = 2;
    const auto other = recommend_from_sweep(data, options);
    bool differs = other.confidence != one.confidence;
    for (std::size_t i = 0; i < one.predictions.size(); ++i)
        differs = differs || other.predictions[i].seconds_low != one.predictions[i].seconds_low;
    CHECK(differs);
}
