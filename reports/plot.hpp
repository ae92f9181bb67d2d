// Throughput charts: a gnuplot rendering (SVG or PNG) for people reading a report, and a
// small text chart for the console summary. Both take plain data; neither runs a sweep.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hugetune {

struct PlotPoint {
    double threads_per_node = 0;
    double value = 0;  // median
    double low = 0;    // spread: the smallest and largest sample
    double high = 0;
};

struct PlotSeries {
    std::string label;  // e.g. "zero (USL)"
    std::vector<PlotPoint> measured;
    std::vector<std::pair<double, double>> fitted;  // (threads per node, value), dense
};

struct PlotData {
    std::string title;
    std::string y_label;  // e.g. "GiB/s per node"
    std::vector<PlotSeries> series;
    std::optional<double> recommended_threads_per_node;
    std::optional<double> default_threads_per_node;  // the kernel's default, per node
};

enum class PlotFormat { svg, png };

// The format from the file name's extension; nothing for anything but .svg and .png.
std::optional<PlotFormat> plot_format_for(const std::filesystem::path& file);

// gnuplot's inline-data script drawing `data` into `output`.
std::string gnuplot_script(const PlotData& data, PlotFormat format,
                           const std::filesystem::path& output);

// A text chart, `width` x `height` characters of plot area: '*' medians, '-' fitted curve,
// 'R' the recommended N, 'D' the kernel default, log2 x axis.
std::string text_chart(const PlotData& data, int width = 56, int height = 12);

}  // namespace hugetune
