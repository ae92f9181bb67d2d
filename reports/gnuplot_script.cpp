#include "reports/gnuplot_script.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "model/text.hpp"
#include "reports/plot_scale.hpp"

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

// gnuplot strings in double quotes, where "\n" breaks a line: a label of several lines.
std::string double_quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out + "\"";
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

namespace {

constexpr const char* kRecommendedColour = "#2a9d3f";
constexpr const char* kDefaultColour = "#b5651d";
constexpr double kBootXmin = 0.8;  // left edge of the boot panel: 1 thread, with a margin

bool has_band(const BootPanel& boot) {
    return std::any_of(boot.predicted.begin(), boot.predicted.end(),
                       [](const model::Prediction& p) { return p.seconds_low && p.seconds_high; });
}

// A marked value: a vertical line, a point on the curve and a label with its predicted time,
// written away from the right edge when the line is in the right half of the log x range.
void boot_mark(std::ostringstream& s, const model::Prediction& mark, double xmax,
               const std::string& name, const char* colour, double label_height, const char* dash,
               bool coincide) {
    const std::string text = name + " hugepage_alloc_threads=" + plot_number(x_of(mark)) + ": " +
                             seconds_text(mark.seconds) + (coincide ? " (the same value)" : "");
    const bool right_half = std::log(x_of(mark) / kBootXmin) > 0.5 * std::log(xmax / kBootXmin);
    s << "set arrow from " << plot_number(x_of(mark)) << ", graph 0 to " << plot_number(x_of(mark))
      << ", graph 1 nohead " << dash << "lw 2 lc rgb '" << colour << "'\n";
    s << "set label " << quoted(text) << " at " << plot_number(x_of(mark)) << ", graph "
      << plot_number(label_height) << (right_half ? " right offset -0.5,0" : " offset 0.5,0")
      << " front tc rgb '" << colour << "' noenhanced\n";
}

void boot_panel(std::ostringstream& s, const BootPanel& boot) {
    const BootScale scale = boot_scale(boot);
    const std::vector<model::Prediction> measured = drawn_measured(boot);
    s << "set title 'predicted boot allocation of the pool'\n";
    s << "set xlabel 'hugepage_alloc_threads (total)' noenhanced\nset ylabel 'seconds'\n";
    // The key below the panel leaves the labelled marks free wherever they fall.
    s << "set logscale x 2\nset grid\nset key below horizontal box\n";
    if (scale.top > 0)
        s << "set yrange [0:" << plot_number(scale.top) << "]\n";
    else
        s << "set yrange [0:*]\n";
    const double xmax = boot_xmax(boot) * 1.25;
    s << "set xrange [" << plot_number(kBootXmin) << ":" << plot_number(xmax) << "]\n";
    s << "$boot << EOD\n";
    for (const auto& p : boot.predicted)
        s << plot_number(x_of(p)) << ' ' << plot_number(p.seconds) << ' '
          << plot_number(p.seconds_low.value_or(p.seconds)) << ' '
          << plot_number(p.seconds_high.value_or(p.seconds)) << "\n";
    s << "EOD\n$boot_measured << EOD\n";
    for (const auto& p : measured)
        s << plot_number(x_of(p)) << ' ' << plot_number(p.seconds) << "\n";
    s << "EOD\n$boot_marks << EOD\n";
    for (const auto& mark : {boot.recommended, boot.kernel_default})
        if (mark)
            s << plot_number(x_of(*mark)) << ' ' << plot_number(mark->seconds) << "\n";
    s << "EOD\n";
    const bool coincide = boot.recommended && boot.kernel_default &&
                          x_of(*boot.recommended) == x_of(*boot.kernel_default);
    if (boot.recommended)
        boot_mark(s, *boot.recommended, xmax, "recommended", kRecommendedColour, 0.95, "", false);
    if (boot.kernel_default)
        boot_mark(s, *boot.kernel_default, xmax, "kernel default", kDefaultColour, 0.87, "dt 2 ",
                  coincide);
    auto title = [&](const std::string& name, const std::optional<double>& reach) {
        return quoted(reach ? name + ", " + clipped_text(scale.top, *reach) : name);
    };
    s << "plot ";
    if (has_band(boot))
        s << "$boot using 1:3:4 with filledcurves fc rgb '#9ecae1' fs transparent solid 0.5 "
             "noborder title "
          << title("5%..95% bootstrap band", scale.band_reach) << " noenhanced, \\\n     ";
    s << "$boot using 1:2 with lines lw 2 lc rgb '#1f4e79' title "
      << title("predicted", scale.curve_reach) << " noenhanced";
    if (!measured.empty())
        s << ", \\\n     $boot_measured using 1:2 with points pt 7 lc rgb '#444444' title "
          << title(measured_left_out(boot) ? "measured, scaled to the pool, " + left_out_text(boot)
                                           : std::string("measured, scaled to the pool"),
                   scale.measured_reach)
          << " noenhanced";
    s << ", \\\n     $boot_marks using 1:2 with points pt 6 ps 2 lw 2 lc rgb '#000000' notitle\n";
    s << "unset arrow\nunset label\n";
}

void phase_panel(std::ostringstream& s, const PlotData& data) {
    s << "set title 'measured phases'\n";
    s << "set xlabel 'threads per NUMA node'\n";
    s << "set ylabel " << quoted(data.y_label) << "\n";
    s << "set logscale x 2\nset grid\nset key default\nset key bottom right box opaque\n"
         "set yrange [0:*]\n";
    double xmax = 1;
    for (const auto& series : data.series) {
        for (const auto& p : series.measured)
            xmax = std::max(xmax, p.threads_per_node);
        for (const auto& p : series.fitted)
            xmax = std::max(xmax, p.first);
    }
    s << "set xrange [0.5:" << plot_number(xmax * 1.25) << "]\n";
    for (std::size_t i = 0; i < data.series.size(); ++i) {
        const auto& series = data.series[i];
        for (const bool time_shared : {false, true}) {
            s << (time_shared ? "$time_shared" : "$measured") << i << " << EOD\n";
            for (const auto& p : series.measured)
                if (p.time_shared == time_shared)
                    s << plot_number(p.threads_per_node) << ' ' << plot_number(p.value) << ' '
                      << plot_number(p.low) << ' ' << plot_number(p.high) << "\n";
            s << "EOD\n";
        }
        s << "$fitted" << i << " << EOD\n";
        for (const auto& [x, y] : series.fitted)
            s << plot_number(x) << ' ' << plot_number(y) << "\n";
        s << "EOD\n";
    }
    if (data.recommended_threads_per_node) {
        double x = *data.recommended_threads_per_node;
        s << "set arrow from " << plot_number(x) << ", graph 0 to " << plot_number(x)
          << ", graph 1 nohead lw 2 lc rgb '" << kRecommendedColour << "'\n";
        s << "set label 'recommended N=" << plot_number(x) << "' at " << plot_number(x)
          << ", graph 0.95 offset 0.5,0 tc rgb '" << kRecommendedColour << "'\n";
    }
    if (data.default_threads_per_node) {
        double x = *data.default_threads_per_node;
        s << "set arrow from " << plot_number(x) << ", graph 0 to " << plot_number(x)
          << ", graph 1 nohead dt 2 lw 2 lc rgb '" << kDefaultColour << "'\n";
        s << "set label 'kernel default N=" << plot_number(x) << "' at " << plot_number(x)
          << ", graph 0.88 offset 0.5,0 tc rgb '" << kDefaultColour << "'\n";
    }
    s << "plot ";
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
        if (any_time_shared(series))
            s << ", \\\n     $time_shared" << i << " using 1:2:3:4 with yerrorbars pt 6 ps 1.5 lc "
              << color << " notitle";
    }
    if (std::any_of(data.series.begin(), data.series.end(), any_time_shared))
        s << ", \\\n     NaN with points pt 6 ps 1.5 lc rgb '#444444' title "
          << quoted(kTimeSharedText);
    s << "\nunset arrow\nunset label\n";
}

struct BarStyle {
    BarPart part;
    const char* colour;
    const char* data;  // the inline data block's name
};

constexpr BarStyle kBarStyles[] = {
    {BarPart::allocation, "#4c72b0", "$bar_allocation"},
    {BarPart::vmemmap, "#8172b2", "$bar_vmemmap"},
    {BarPart::zeroing, "#dd8452", "$bar_zeroing"},
    {BarPart::unsplit, "#999999", "$bar_unsplit"},
    {BarPart::what_if, "#55a868", "$bar_what_if"},
};

std::string bar_part_title(BarPart part, const BreakdownPanel& panel) {
    switch (part) {
        case BarPart::allocation:
            return panel.allocation_includes_vmemmap
                       ? "allocation (with HVO's vmemmap work if on, not measured apart)"
                       : "allocation proper";
        case BarPart::vmemmap:
            return "vmemmap optimisation (HVO), measured by the HVO pass";
        case BarPart::zeroing:
            return "zeroing (init_on_alloc)";
        case BarPart::unsplit:
            return "predicted, not split";
        case BarPart::what_if:
            return "what-if prediction";
    }
    return "";
}

constexpr double kBarHalfWidth = 0.3;
// The y range is this many times the tallest bar or interval: the key sits in the space above
// them, leaving the panel's width and the two-line labels under the bars to the bars.
constexpr double kBarHeadroom = 1.8;

double bar_top(const BreakdownBar& bar) {
    double top = 0;
    for (const auto& segment : bar.segments)
        top += segment.seconds;
    return top;
}

bool is_what_if(const BreakdownBar& bar) {
    return std::any_of(bar.segments.begin(), bar.segments.end(),
                       [](const BarSegment& segment) { return segment.part == BarPart::what_if; });
}

// Where the bars are cut (kDecidedSpan): at that many times the tallest of the decision's and
// the default's bars; nothing where every bar fits below.
std::optional<double> bar_cut(const BreakdownPanel& panel) {
    double decided = 0, tallest = 0;
    for (const auto& bar : panel.bars) {
        tallest = std::max(tallest, bar_top(bar));
        if (!is_what_if(bar))
            decided = std::max(decided, bar_top(bar));
    }
    if (decided > 0 && tallest > kDecidedSpan * decided)
        return kDecidedSpan * decided;
    return std::nullopt;
}

// A white slanted band across a cut bar just below the cut: the usual mark of a broken axis.
void bar_break(std::ostringstream& s, std::size_t at, double cut) {
    const double x = static_cast<double>(at), w = kBarHalfWidth + 0.05;
    const double y = 0.9 * cut, rise = 0.03 * cut, gap = 0.025 * cut;
    s << "set object polygon from " << plot_number(x - w) << ',' << plot_number(y) << " to "
      << plot_number(x + w) << ',' << plot_number(y + rise) << " to " << plot_number(x + w) << ','
      << plot_number(y + rise + gap) << " to " << plot_number(x - w) << ',' << plot_number(y + gap)
      << " to " << plot_number(x - w) << ',' << plot_number(y)
      << " front fillcolor rgb '#ffffff' fillstyle solid 1.0 noborder\n";
}

// Stacked bars: each part a box from the parts below it to its own top, the whole's interval an
// error bar over the stack, the whole's value and a note above a bar (the note on the axis for a
// bar without a prediction). A bar taller than the cut is drawn to the cut, broken below it,
// without its interval; its value says how tall it is.
void breakdown_panel(std::ostringstream& s, const BreakdownPanel& panel) {
    s << "set title 'where the predicted boot allocation goes, and what each setting would make "
         "of it'\n";
    const std::optional<double> cut = bar_cut(panel);
    const double limit = cut.value_or(std::numeric_limits<double>::infinity());
    double ymax = 0;
    for (const auto& bar : panel.bars)
        ymax = std::max({ymax, std::min(bar_top(bar), limit), bar.high.value_or(0)});
    if (cut)
        ymax = std::min(ymax, *cut);
    s << "unset logscale x\nunset xlabel\nset ylabel 'seconds'\nset grid ytics\nset grid "
         "noxtics\nset key inside right top vertical box opaque\n";
    if (ymax > 0)
        s << "set yrange [0:" << plot_number(ymax * kBarHeadroom) << "]\n";
    else
        s << "set yrange [0:*]\n";
    s << "set xrange [0.4:" << plot_number(static_cast<double>(panel.bars.size()) + 0.6) << "]\n";
    std::vector<std::string> tics;
    for (std::size_t i = 0; i < panel.bars.size(); ++i)
        tics.push_back(double_quoted(panel.bars[i].label) + " " + std::to_string(i + 1));
    s << "set xtics (" << join(tics) << ") noenhanced\n";
    if (cut)
        s << "set label "
          << quoted("bars above " + seconds_text(*cut) + " (" + plot_number(kDecidedSpan) +
                    " x the larger of the decision and the default) are cut there")
          << " at graph 0.01, graph 0.95 left font ',10' noenhanced\n";
    std::vector<std::string> plots;
    for (const BarStyle& style : kBarStyles) {
        std::ostringstream rows;
        for (std::size_t i = 0; i < panel.bars.size(); ++i) {
            double bottom = 0;
            for (const auto& segment : panel.bars[i].segments) {
                const double top = std::min(bottom + segment.seconds, limit);
                if (segment.part == style.part && top > bottom)
                    rows << i + 1 << ' ' << plot_number(bottom) << ' ' << plot_number(top) << "\n";
                bottom = top;
            }
        }
        if (rows.str().empty())
            continue;
        s << style.data << " << EOD\n" << rows.str() << "EOD\n";
        plots.push_back(std::string(style.data) + " using 1:(($2+$3)/2):($1-" +
                        plot_number(kBarHalfWidth) + "):($1+" + plot_number(kBarHalfWidth) +
                        "):2:3 with boxxyerror fs solid 0.85 border lc rgb '#333333' fc rgb '" +
                        style.colour + "' title " + quoted(bar_part_title(style.part, panel)) +
                        " noenhanced");
    }
    std::ostringstream intervals;
    for (std::size_t i = 0; i < panel.bars.size(); ++i) {
        const BreakdownBar& bar = panel.bars[i];
        const double top = bar_top(bar);
        const bool broken = top > limit;
        if (broken)
            bar_break(s, i + 1, limit);
        if (!bar.segments.empty() && !broken && bar.low && bar.high)
            intervals << i + 1 << ' ' << plot_number(top) << ' ' << plot_number(*bar.low) << ' '
                      << plot_number(*bar.high) << "\n";
        // The value above the bar and its interval, the note above the value, or on the axis
        // where there is no bar; lines are centred on the point, so each lifts a label by half.
        if (bar.segments.empty()) {
            if (!bar.note.empty())
                s << "set label " << double_quoted(bar.note) << " at " << i + 1
                  << ", graph 0.06 center font ',10' noenhanced\n";
            continue;
        }
        const double above = broken ? limit : std::max(top, bar.high.value_or(0));
        s << "set label " << quoted(seconds_text(top)) << " at " << i + 1 << ", first "
          << plot_number(above) << " offset 0,1.1 center font ',10' noenhanced\n";
        if (!bar.note.empty()) {
            const auto lines = 1 + std::count(bar.note.begin(), bar.note.end(), '\n');
            s << "set label " << double_quoted(bar.note) << " at " << i + 1 << ", first "
              << plot_number(above) << " offset 0,"
              << plot_number(1.7 + 0.5 * static_cast<double>(lines))
              << " center font ',10' noenhanced\n";
        }
    }
    if (!intervals.str().empty()) {
        s << "$bar_intervals << EOD\n" << intervals.str() << "EOD\n";
        plots.push_back(
            "$bar_intervals using 1:2:3:4 with yerrorbars pt 0 lw 1.5 lc rgb '#000000' "
            "title 'interval'");
    }
    if (plots.empty())
        plots.push_back("NaN notitle");
    s << "plot ";
    for (std::size_t i = 0; i < plots.size(); ++i)
        s << (i ? ", \\\n     " : "") << plots[i];
    s << "\nunset label\nunset object\nset xtics autofreq\nset grid xtics\n";
}

}  // namespace

namespace {

void terminal(std::ostringstream& s, PlotFormat format, const fs::path& output, int panels,
              int key_rows = 0) {
    s << "# Drawn by hugetune; render with: gnuplot <this file>\n";
    if (format == PlotFormat::svg)
        s << "set terminal svg size 960," << 120 + 480 * panels + 36 * key_rows
          << " dynamic enhanced font 'sans,12' background '#ffffff'\n";
    else
        s << "set terminal pngcairo size 1200," << 150 + 600 * panels + 45 * key_rows
          << " enhanced font 'sans,12' background '#ffffff'\n";
    s << "set output " << quoted(output.string()) << "\n";
}

constexpr const char* kOutlierColour = "#c0392b";
// Up to this many hosts each is named in the key; a larger SKU's hosts that are not outliers
// share one grey entry, so that the key stays readable.
constexpr std::size_t kNamedHosts = 12;

bool hosts_named(const FleetPlotData& data) {
    return data.hosts.size() <= kNamedHosts;
}

int hosts_key_rows(const FleetPlotData& data) {
    if (hosts_named(data))
        return static_cast<int>(data.hosts.size());
    return 1 + static_cast<int>(std::count_if(data.hosts.begin(), data.hosts.end(),
                                              [](const HostLine& h) { return h.outlier; }));
}

void hosts_panel(std::ostringstream& s, const FleetPlotData& data) {
    s << "set title 'measured alloc phase, each host: median over its runs'\n";
    s << "set xlabel 'hugepage_alloc_threads (total)' noenhanced\n";
    s << "set ylabel 'seconds per GiB per node'\n";
    s << "set logscale x 2\nset grid\nset key below vertical maxcols 1 left Left reverse box\n"
         "set yrange [0:*]\n";
    double xmax = 1;
    for (const auto& h : data.hosts)
        for (const auto& p : h.points)
            xmax = std::max(xmax, p.first);
    s << "set xrange [" << plot_number(kBootXmin) << ":" << plot_number(xmax * 1.25) << "]\n";
    for (std::size_t i = 0; i < data.hosts.size(); ++i) {
        s << "$host" << i << " << EOD\n";
        for (const auto& [x, y] : data.hosts[i].points)
            s << plot_number(x) << ' ' << plot_number(y) << "\n";
        s << "EOD\n";
    }
    if (data.boot.recommended) {
        const double x = x_of(*data.boot.recommended);
        s << "set arrow from " << plot_number(x) << ", graph 0 to " << plot_number(x)
          << ", graph 1 nohead lw 2 lc rgb '" << kRecommendedColour << "'\n";
    }
    s << "plot ";
    if (data.hosts.empty())
        s << "NaN notitle";
    const bool named = hosts_named(data);
    bool grey_titled = false;
    for (std::size_t i = 0; i < data.hosts.size(); ++i) {
        const auto& h = data.hosts[i];
        if (i)
            s << ", \\\n     ";
        s << "$host" << i << " using 1:2 with linespoints ";
        if (h.outlier) {
            s << "dt 2 lw 2 pt 9 ps 1.5 lc rgb '" << kOutlierColour << "' title "
              << quoted(h.host + " (outlier: " + h.reasons + ")");
        } else if (named) {
            s << "lw 1 pt 7 ps 0.6 lc " << (i % 8) + 1 << " title " << quoted(h.host);
        } else {
            s << "lw 1 pt 7 ps 0.4 lc rgb '#999999' ";
            const std::size_t outliers = static_cast<std::size_t>(hosts_key_rows(data) - 1);
            s << (grey_titled ? std::string("notitle")
                              : "title " + quoted(std::to_string(data.hosts.size() - outliers) +
                                                  " hosts that are not outliers"));
            grey_titled = true;
        }
        s << " noenhanced";
    }
    s << "\nunset arrow\nunset label\n";
}

}  // namespace

std::string fleet_gnuplot_script(const FleetPlotData& data, PlotFormat format,
                                 const fs::path& output) {
    std::ostringstream s;
    terminal(s, format, output, 2, hosts_key_rows(data));
    s << "set multiplot layout 2,1 title " << quoted(data.title) << " noenhanced\n";
    if (data.boot.predicted.empty())
        s << "set title 'predicted boot allocation of the pool'\nplot NaN notitle\n";
    else
        boot_panel(s, data.boot);
    hosts_panel(s, data);
    s << "unset multiplot\n";
    return s.str();
}

std::string gnuplot_script(const PlotData& data, PlotFormat format, const fs::path& output) {
    const bool boot = !data.boot.predicted.empty();
    const bool breakdown = !data.breakdown.bars.empty();
    const bool phases = !data.series.empty();
    const int panels = std::max(1, (boot ? 1 : 0) + (breakdown ? 1 : 0) + (phases ? 1 : 0));
    std::ostringstream s;
    terminal(s, format, output, panels);
    s << "set multiplot layout " << panels << ",1 title " << quoted(data.title) << " noenhanced\n";
    if (boot)
        boot_panel(s, data.boot);
    if (breakdown)
        breakdown_panel(s, data.breakdown);
    if (phases)
        phase_panel(s, data);
    if (!boot && !breakdown && !phases)
        s << "plot NaN notitle\n";
    s << "unset multiplot\n";
    return s.str();
}

}  // namespace hugetune
