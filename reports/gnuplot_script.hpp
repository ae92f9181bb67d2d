// A report's and a fleet SKU's charts as gnuplot scripts with their data inline (SVG or PNG):
// the bytes only; the command line writes the file and runs gnuplot (tuner/system/gnuplot.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "reports/plot.hpp"

namespace hugetune {

enum class PlotFormat { svg, png };

// The format from the file name's extension; nothing for anything but .svg and .png.
std::optional<PlotFormat> plot_format_for(const std::filesystem::path& file);

// gnuplot's inline-data script drawing `data` into `output`: the boot panel, the breakdown
// panel and the phase panel, each left out when it has nothing to draw. The breakdown panel
// writes each bar's value above it; a bar taller than kDecidedSpan times the decision's and the
// default's bars is cut at that height, with a white break across it.
std::string gnuplot_script(const PlotData& data, PlotFormat format,
                           const std::filesystem::path& output);

// The fleet's picture of one SKU: the boot panel, then a panel with one line per host, the
// outliers drawn red, dashed and named with their reasons in the key.
std::string fleet_gnuplot_script(const FleetPlotData& data, PlotFormat format,
                                 const std::filesystem::path& output);

}  // namespace hugetune
