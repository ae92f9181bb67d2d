#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "reports/gnuplot_script.hpp"
#include "reports/plot.hpp"
#include "reports/text_chart.hpp"
#include "tests/unit/support/plot_data.hpp"

using namespace hugetune;
using hugetune::test::sample_data;

TEST_CASE("plot: format from the extension") {
    CHECK(plot_format_for("a.svg") == PlotFormat::svg);
    CHECK(plot_format_for("dir/a.PNG") == PlotFormat::png);
    CHECK_FALSE(plot_format_for("a.pdf").has_value());
    CHECK_FALSE(plot_format_for("a").has_value());
}

TEST_CASE("plot: the gnuplot script carries data, marks and a quoted title") {
    auto script = gnuplot_script(sample_data(), PlotFormat::svg, "/tmp/o'ut.svg");
    CHECK(script.find("set terminal svg") != std::string::npos);
    CHECK(script.find("set output '/tmp/o''ut.svg'") != std::string::npos);
    CHECK(script.find("set multiplot layout 1,1 title 'host''s skylake-sp, 2 MiB pages'") !=
          std::string::npos);
    CHECK(script.find("$measured0 << EOD\n1 10 9.5 10.5\n") != std::string::npos);
    CHECK(script.find("recommended N=8") != std::string::npos);
    CHECK(script.find("kernel default N=9") != std::string::npos);
    CHECK(script.find("with yerrorbars") != std::string::npos);
    CHECK(gnuplot_script(sample_data(), PlotFormat::png, "x.png").find("pngcairo") !=
          std::string::npos);
}

TEST_CASE("plot: the phase chart marks medians, the fit and the recommendation") {
    auto chart = phase_chart(sample_data(), 40, 10);
    CHECK(chart.find('*') != std::string::npos);
    CHECK(chart.find('-') != std::string::npos);
    CHECK(chart.find('R') != std::string::npos);
    CHECK(chart.find("threads per node") != std::string::npos);
    CHECK(phase_chart(PlotData{}, 40, 10).empty());
    CHECK(boot_chart(PlotData{}, 40, 10).empty());
}

TEST_CASE("plot: the boot chart draws the band, the curve, the points and both marks") {
    PlotData d;
    for (double n : {1.0, 2.0, 4.0, 8.0, 16.0})
        d.boot.predicted.push_back({n, static_cast<int>(n), 10 / n + n / 4, 0.9 * (10 / n + n / 4),
                                    1.1 * (10 / n + n / 4)});
    d.boot.measured = {{1, 1, 10.2, {}, {}}, {4, 4, 3.4, {}, {}}, {16, 16, 4.7, {}, {}}};
    d.boot.recommended = model::Prediction{4, 4, 3.5, {}, {}};
    d.boot.kernel_default = model::Prediction{8, 8, 3.25, {}, {}};
    const auto chart = boot_chart(d, 40, 12);
    CHECK(chart.find('.') != std::string::npos);
    CHECK(chart.find('-') != std::string::npos);
    CHECK(chart.find('*') != std::string::npos);
    CHECK(chart.find("R recommended hugepage_alloc_threads=4: 3.50 s") != std::string::npos);
    CHECK(chart.find("D kernel default hugepage_alloc_threads=8: 3.25 s") != std::string::npos);
    CHECK(chart.find("11.3 s |") != std::string::npos);  // the y axis carries its unit
    d.boot.recommended = d.boot.kernel_default;
    CHECK(boot_chart(d, 40, 12).find("R=D") != std::string::npos);
    const auto script = gnuplot_script(d, PlotFormat::svg, "x.svg");
    CHECK(script.find("with filledcurves") != std::string::npos);
    CHECK(script.find("(the same value)") != std::string::npos);
}

namespace {

// A 2-CPU machine whose bootstrap band reaches minutes at one thread while the decision and the
// default are a few seconds; measured also at 4 and 16 threads, time-shared.
PlotData wide_band() {
    PlotData d;
    d.boot.predicted = {{1, 1, 3.9, 3.0, 126.0}, {2, 2, 2.24, 1.8, 60.0}};
    d.boot.measured = {
        {1, 1, 5.0, {}, {}}, {2, 2, 4.4, {}, {}}, {4, 4, 3.0, {}, {}}, {16, 16, 9.0, {}, {}}};
    d.boot.recommended = model::Prediction{2, 2, 2.24, {}, {}};
    d.boot.kernel_default = model::Prediction{1, 1, 3.9, {}, {}};
    d.boot.hardware_threads = 2;
    return d;
}

// The rows of a text chart's plot area, without the axis labels.
std::vector<std::string> chart_rows(const std::string& chart) {
    std::vector<std::string> rows;
    std::istringstream in(chart);
    for (std::string line; std::getline(in, line);)
        if (const auto bar = line.find(" |"); bar != std::string::npos)
            rows.push_back(line.substr(bar + 2));
    return rows;
}

std::size_t count_in(const std::vector<std::string>& rows, char c) {
    std::size_t n = 0;
    for (const auto& row : rows)
        n += static_cast<std::size_t>(std::count(row.begin(), row.end(), c));
    return n;
}

}  // namespace

TEST_CASE("plot: the boot panel is scaled to what is decided, the band clipped and said so") {
    const PlotData d = wide_band();
    // kDecidedSpan x the default's 3.9 s, the larger of the two marks.
    const auto chart = boot_chart(d, 40, 12);
    CHECK(chart.find("15.6 s |") != std::string::npos);
    CHECK(chart.find(". band clipped at 15.6 s (reaches 2 min 6 s)\n") != std::string::npos);
    CHECK(chart.find("- predicted clipped") == std::string::npos);
    const auto rows = chart_rows(chart);
    REQUIRE(rows.size() == 12);
    // The marks stand clear of the 0 s row: the default a quarter of the way up.
    CHECK(rows.back().find('R') == std::string::npos);
    CHECK(rows[8].find('D') != std::string::npos);
    CHECK(rows[0].find('.') != std::string::npos);  // the band runs to the top, cut

    const auto script = gnuplot_script(d, PlotFormat::svg, "x.svg");
    CHECK(script.find("set yrange [0:15.6]\n") != std::string::npos);
    CHECK(script.find("title '5%..95% bootstrap band, clipped at 15.6 s (reaches 2 min 6 s)'") !=
          std::string::npos);

    // The predicted curve itself cut where the marks are far below it.
    PlotData steep = d;
    steep.boot.predicted.front().seconds = 40;
    steep.boot.predicted.front().seconds_low = 30.0;
    steep.boot.kernel_default->total_threads = 2;
    steep.boot.kernel_default->seconds = 2.24;
    const auto steep_chart = boot_chart(steep, 40, 12);
    CHECK(steep_chart.find("8.96 s |") != std::string::npos);
    CHECK(steep_chart.find("- predicted clipped at 8.96 s (reaches 40.0 s)\n") !=
          std::string::npos);
    CHECK(gnuplot_script(steep, PlotFormat::svg, "x.svg")
              .find("title 'predicted, clipped at 8.96 s (reaches 40.0 s)'") != std::string::npos);

    // A band that fits is not cut, and the axis ends at the tallest thing drawn.
    PlotData narrow = d;
    narrow.boot.predicted = {{1, 1, 3.9, 3.5, 4.5}, {2, 2, 2.24, 2.0, 2.6}};
    const auto narrow_chart = boot_chart(narrow, 40, 12);
    CHECK(narrow_chart.find("clipped") == std::string::npos);
    CHECK(narrow_chart.find("5.00 s |") != std::string::npos);
    CHECK(gnuplot_script(narrow, PlotFormat::svg, "x.svg").find("set yrange [0:5]\n") !=
          std::string::npos);
}

TEST_CASE("plot: the boot panel draws measured points only on hardware threads") {
    PlotData d = wide_band();
    const auto chart = boot_chart(d, 40, 12);
    CHECK(count_in(chart_rows(chart), '*') == 2);
    CHECK(chart.find("* measured only on the 2 hardware threads (more time-share them)\n") !=
          std::string::npos);
    // The x axis ends at the machine's threads, not at the left-out points.
    CHECK(chart.find("16") == std::string::npos);
    const auto script = gnuplot_script(d, PlotFormat::svg, "x.svg");
    CHECK(script.find("$boot_measured << EOD\n1 5\n2 4.4\nEOD\n") != std::string::npos);
    CHECK(script.find("measured, scaled to the pool, only on the 2 hardware threads") !=
          std::string::npos);

    d.boot.hardware_threads.reset();
    CHECK(count_in(chart_rows(boot_chart(d, 40, 12)), '*') == 4);
    CHECK(gnuplot_script(d, PlotFormat::svg, "x.svg")
              .find("$boot_measured << EOD\n1 5\n2 4.4\n4 3\n16 9\nEOD\n") != std::string::npos);
}

TEST_CASE("plot: time-shared phase points are drawn apart from the measured ones") {
    PlotData d = sample_data();
    d.series[0].measured.back().time_shared = true;  // 32 threads per node
    const auto chart = phase_chart(d, 40, 10);
    const auto rows = chart_rows(chart);
    CHECK(count_in(rows, 'o') == 1);
    CHECK(count_in(rows, '*') == 5);
    CHECK(chart.find("o time-shared (more threads than hardware threads)\n") != std::string::npos);
    const auto script = gnuplot_script(d, PlotFormat::svg, "x.svg");
    const auto measured = script.find("$measured0 << EOD\n");
    const auto shared = script.find("$time_shared0 << EOD\n32 ");
    REQUIRE(measured != std::string::npos);
    REQUIRE(shared != std::string::npos);
    CHECK(script.substr(measured, shared - measured).find("\n32 ") == std::string::npos);
    CHECK(script.find("$time_shared0 using 1:2:3:4 with yerrorbars pt 6") != std::string::npos);
    CHECK(script.find("title 'time-shared (more threads than hardware threads)'") !=
          std::string::npos);

    const auto plain = gnuplot_script(sample_data(), PlotFormat::svg, "x.svg");
    CHECK(plain.find("time-shared") == std::string::npos);
    CHECK(phase_chart(sample_data(), 40, 10).find("time-shared") == std::string::npos);
}

TEST_CASE("plot: the breakdown panel writes each bar's value and cuts what-if bars far above") {
    PlotData d;
    d.breakdown.bars = {
        {"decision\n2 threads",
         {{BarPart::allocation, 0.3}, {BarPart::zeroing, 1.94}},
         2.1,
         2.5,
         ""},
        {"kernel default\n1 thread", {{BarPart::unsplit, 3.1}}, 2.9, 3.3, "not split"},
        {"init_on_alloc=1\n2 threads", {{BarPart::what_if, 124}}, 110.0, 140.0, ""},
    };
    const auto script = gnuplot_script(d, PlotFormat::svg, "x.svg");
    // Cut at kDecidedSpan x the default's 3.1 s; the key's headroom above it.
    CHECK(script.find("set yrange [0:22.32]\n") != std::string::npos);
    CHECK(script.find("$bar_what_if << EOD\n3 0 12.4\nEOD\n") != std::string::npos);
    CHECK(script.find("set object polygon from 2.65,11.16") != std::string::npos);
    CHECK(script.find(
              "bars above 12.4 s (4 x the larger of the decision and the default) are cut there") !=
          std::string::npos);
    // Every bar's value, the cut one's written at the cut.
    CHECK(script.find("set label '2.24 s' at 1, first 2.5 offset") != std::string::npos);
    CHECK(script.find("set label '3.10 s' at 2, first 3.3 offset") != std::string::npos);
    CHECK(script.find("set label '2 min 4 s' at 3, first 12.4 offset") != std::string::npos);
    CHECK(script.find("set label \"not split\" at 2, first 3.3 offset 0,2.2") != std::string::npos);
    // The cut bar's interval is not drawn; the others' are.
    CHECK(script.find("$bar_intervals << EOD\n1 2.24 2.1 2.5\n2 3.1 2.9 3.3\nEOD\n") !=
          std::string::npos);

    // Bars that fit are drawn whole, unbroken, with their values.
    const auto whole = gnuplot_script(test::sample_data_with_breakdown(), PlotFormat::svg, "x");
    CHECK(whole.find("set object polygon") == std::string::npos);
    CHECK(whole.find("are cut there") == std::string::npos);
    CHECK(whole.find("set label '3.00 s' at 1") != std::string::npos);
    CHECK(whole.find("set label '500.0 ms' at 3") != std::string::npos);
}
