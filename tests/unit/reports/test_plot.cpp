#include <doctest/doctest.h>

#include "reports/plot.hpp"

using namespace hugetune;

namespace {

PlotData sample_data() {
    PlotData d;
    d.title = "host's skylake-sp, 2 MiB pages";
    d.y_label = "GiB/s per node";
    PlotSeries s;
    s.label = "alloc";
    for (double n : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
        double x = 10 * n / (1 + 0.05 * (n - 1) + 0.01 * n * (n - 1));
        s.measured.push_back({n, x, x * 0.95, x * 1.05});
    }
    for (double n = 1; n <= 32; n *= 1.1)
        s.fitted.emplace_back(n, 10 * n / (1 + 0.05 * (n - 1) + 0.01 * n * (n - 1)));
    d.series.push_back(s);
    d.recommended_threads_per_node = 8;
    d.default_threads_per_node = 9;
    return d;
}

}  // namespace

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
