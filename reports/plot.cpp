#include "reports/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace hugetune {
namespace fs = std::filesystem;

namespace {

// gnuplot strings in single quotes: a quote is doubled.
std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "''";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out + "'";
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

std::optional<PlotFormat> plot_format_for(const fs::path& file) {
    auto ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (ext == ".svg")
        return PlotFormat::svg;
    if (ext == ".png")
        return PlotFormat::png;
    return std::nullopt;
}

std::string gnuplot_script(const PlotData& data, PlotFormat format, const fs::path& output) {
    std::ostringstream s;
    s << "# Drawn by hugetune; render with: gnuplot <this file>\n";
    if (format == PlotFormat::svg)
        s << "set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'\n";
    else
        s << "set terminal pngcairo size 1200,750 enhanced font 'sans,12' background '#ffffff'\n";
    s << "set output " << quoted(output.string()) << "\n";
    s << "set title " << quoted(data.title) << " noenhanced\n";
    s << "set xlabel 'threads per NUMA node'\n";
    s << "set ylabel " << quoted(data.y_label) << "\n";
    s << "set logscale x 2\nset grid\nset key bottom right box opaque\nset yrange [0:*]\n";
    double xmax = 1;
    for (const auto& series : data.series) {
        for (const auto& p : series.measured)
            xmax = std::max(xmax, p.threads_per_node);
        for (const auto& p : series.fitted)
            xmax = std::max(xmax, p.first);
    }
    s << "set xrange [0.8:" << number(xmax * 1.25) << "]\n";
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const auto& series = data.series[i];
        s << "$measured" << i << " << EOD\n";
        for (const auto& p : series.measured)
            s << number(p.threads_per_node) << ' ' << number(p.value) << ' ' << number(p.low) << ' '
              << number(p.high) << "\n";
        s << "EOD\n$fitted" << i << " << EOD\n";
        for (const auto& [x, y] : series.fitted)
            s << number(x) << ' ' << number(y) << "\n";
        s << "EOD\n";
    }
    if (data.recommended_threads_per_node) {
        double x = *data.recommended_threads_per_node;
        s << "set arrow from " << number(x) << ", graph 0 to " << number(x)
          << ", graph 1 nohead lw 2 lc rgb '#2a9d3f'\n";
        s << "set label 'recommended N=" << number(x) << "' at " << number(x)
          << ", graph 0.95 offset 0.5,0 tc rgb '#2a9d3f'\n";
    }
    if (data.default_threads_per_node) {
        double x = *data.default_threads_per_node;
        s << "set arrow from " << number(x) << ", graph 0 to " << number(x)
          << ", graph 1 nohead dt 2 lw 2 lc rgb '#b5651d'\n";
        s << "set label 'kernel default N=" << number(x) << "' at " << number(x)
          << ", graph 0.88 offset 0.5,0 tc rgb '#b5651d'\n";
    }
    s << "plot ";
    if (data.series.empty())
        s << "NaN notitle";
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const auto& series = data.series[i];
        if (i)
            s << ", \\\n     ";
        int color = static_cast<int>(i) + 1;
        s << "$measured" << i << " using 1:2:3:4 with yerrorbars pt 7 lc " << color << " title "
          << quoted(series.label + " measured");
        if (!series.fitted.empty())
            s << ", \\\n     $fitted" << i << " using 1:2 with lines lw 2 lc " << color << " title "
              << quoted(series.label + " fit");
    }
    s << "\n";
    return s.str();
}

std::string text_chart(const PlotData& data, int width, int height) {
    double xmax = 1, ymax = 0;
    for (const auto& series : data.series) {
        for (const auto& p : series.measured) {
            xmax = std::max(xmax, p.threads_per_node);
            ymax = std::max(ymax, p.value);
        }
        for (const auto& [x, y] : series.fitted) {
            xmax = std::max(xmax, x);
            ymax = std::max(ymax, y);
        }
    }
    if (ymax <= 0 || width < 8 || height < 3)
        return "";
    std::vector<std::string> grid(static_cast<std::size_t>(height),
                                  std::string(static_cast<std::size_t>(width), ' '));
    double lx = std::log2(xmax);
    auto col = [&](double x) {
        double f = lx > 0 ? std::log2(std::max(1.0, x)) / lx : 0;
        return std::clamp(static_cast<int>(std::lround(f * (width - 1))), 0, width - 1);
    };
    auto row = [&](double y) {
        double f = y / ymax;
        return std::clamp(height - 1 - static_cast<int>(std::lround(f * (height - 1))), 0,
                          height - 1);
    };
    auto put = [&](int r, int c, char ch) {
        grid[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] = ch;
    };
    // Marks: a column of '|' (recommended) or ':' (default), named by a letter above the chart.
    std::string header(static_cast<std::size_t>(width), ' ');
    auto mark = [&](const std::optional<double>& x, char ch) {
        if (!x)
            return;
        for (int r = 0; r < height; ++r)
            put(r, col(*x), ch == 'R' ? '|' : ':');
        header[static_cast<std::size_t>(col(*x))] = ch;
    };
    mark(data.default_threads_per_node, 'D');
    mark(data.recommended_threads_per_node, 'R');
    for (const auto& series : data.series)
        for (const auto& [x, y] : series.fitted)
            put(row(y), col(x), '-');
    for (const auto& series : data.series)
        for (const auto& p : series.measured)
            put(row(p.value), col(p.threads_per_node), '*');

    std::ostringstream s;
    while (!header.empty() && header.back() == ' ')
        header.pop_back();
    if (!header.empty())
        s << std::string(10, ' ') << header << "\n";
    char label[32];
    for (int r = 0; r < height; ++r) {
        double y = ymax * (height - 1 - r) / (height - 1);
        if (r == 0 || r == height - 1 || r == (height - 1) / 2)
            std::snprintf(label, sizeof label, "%8.3g |", y);
        else
            std::snprintf(label, sizeof label, "%8s |", "");
        std::string row_text = label + grid[static_cast<std::size_t>(r)];
        row_text.erase(row_text.find_last_not_of(' ') + 1);
        s << row_text << "\n";
    }
    s << std::string(9, ' ') << '+' << std::string(static_cast<std::size_t>(width), '-') << "\n";
    std::string axis(static_cast<std::size_t>(width) + 16, ' ');
    for (double x = 1; x <= xmax * 1.0001; x *= 2) {
        std::string t = number(x);
        auto at = static_cast<std::size_t>(10 + col(x));
        if (at + t.size() <= axis.size())
            axis.replace(at, t.size(), t);
    }
    while (!axis.empty() && axis.back() == ' ')
        axis.pop_back();
    s << axis << "   threads per node (log2)\n";
    return s.str();
}

}  // namespace hugetune
