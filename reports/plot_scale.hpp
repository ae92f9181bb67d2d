// What the gnuplot script (reports/gnuplot_script.hpp) and the text charts
// (reports/text_chart.hpp) draw alike: where a value stands on the boot panel's x axis, which
// measured points are drawn, the boot panel's scale and the words for what it cuts, so that
// the picture and the console's chart read the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/plot.hpp"

namespace hugetune {

// Where the boot panel draws a value: at its total thread count, the kernel parameter.
double x_of(const model::Prediction& p);

// The measured points drawn: those on hardware threads (BootPanel::hardware_threads).
std::vector<model::Prediction> drawn_measured(const BootPanel& boot);
// Some measured point is not drawn.
bool measured_left_out(const BootPanel& boot);
// The largest value the boot panel draws, 1 at least.
double boot_xmax(const BootPanel& boot);

// The boot panel's y axis, scaled to what is decided (kDecidedSpan), and how far each part it
// cuts reaches; nothing where a part fits.
struct BootScale {
    double top = 0;
    std::optional<double> band_reach, curve_reach, measured_reach;
};

BootScale boot_scale(const BootPanel& boot);

// The same words in the picture's key and in the text chart's legend: a cut part, the measured
// points left out.
std::string clipped_text(double top, double reach);
std::string left_out_text(const BootPanel& boot);

inline constexpr const char* kTimeSharedText = "time-shared (more threads than hardware threads)";
bool any_time_shared(const PlotSeries& series);

// A number as both write it: up to six significant digits ("0.8", "32", "1.25e+06").
std::string plot_number(double v);

}  // namespace hugetune
