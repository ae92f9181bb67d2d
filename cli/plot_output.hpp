// `--plot FILE`: the report's chart (reports/plot) rendered by gnuplot (tuner/system/gnuplot).
#pragma once

#include <filesystem>
#include <string>

#include "reports/gnuplot_script.hpp"
#include "tuner/system/gnuplot.hpp"

namespace hugetune::cli {

// --plot FILE of `run` and `fit`.
inline constexpr const char* kPlotOptionHelp =
    "draw the predicted boot time with its band, where it goes (the breakdown and the what-if "
    "rows) and the measured phases into FILE (.svg or .png) with gnuplot";

// The value of --plot: UsageError "--plot: 'FILE' needs the extension .svg or .png" otherwise.
std::filesystem::path plot_option(const std::string& value);

// The format follows FILE's extension (.svg or .png; anything else draws SVG).
GnuplotResult render_plot(const PlotData& data, const std::filesystem::path& output);
GnuplotResult render_plot(const FleetPlotData& data, const std::filesystem::path& output);

}  // namespace hugetune::cli
