// `--plot FILE`: the report's chart (reports/plot) rendered by gnuplot (tuner/system/gnuplot).
#pragma once

#include <filesystem>

#include "reports/plot.hpp"
#include "tuner/system/gnuplot.hpp"

namespace hugetune::cli {

// The format follows FILE's extension (.svg or .png; anything else draws SVG).
GnuplotResult render_plot(const PlotData& data, const std::filesystem::path& output);
GnuplotResult render_plot(const FleetPlotData& data, const std::filesystem::path& output);

}  // namespace hugetune::cli
