#include <doctest/doctest.h>

#include "reports/plot.hpp"
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
