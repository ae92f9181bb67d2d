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
    CHECK(script.find("set title 'host''s skylake-sp, 2 MiB pages'") != std::string::npos);
    CHECK(script.find("$measured0 << EOD\n1 10 9.5 10.5\n") != std::string::npos);
    CHECK(script.find("recommended N=8") != std::string::npos);
    CHECK(script.find("kernel default N=9") != std::string::npos);
    CHECK(script.find("with yerrorbars") != std::string::npos);
    CHECK(gnuplot_script(sample_data(), PlotFormat::png, "x.png").find("pngcairo") !=
          std::string::npos);
}

TEST_CASE("plot: text chart marks medians, the fit and the recommendation") {
    auto chart = text_chart(sample_data(), 40, 10);
    CHECK(chart.find('*') != std::string::npos);
    CHECK(chart.find('-') != std::string::npos);
    CHECK(chart.find('R') != std::string::npos);
    CHECK(chart.find("threads per node") != std::string::npos);
    CHECK(text_chart(PlotData{}, 40, 10).empty());
}
