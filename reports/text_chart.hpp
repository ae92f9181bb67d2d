// A report's charts as text, for the console summary: the same scale and words as the gnuplot
// script (reports/plot_scale.hpp), in characters.
#pragma once

#include <string>

#include "reports/plot.hpp"

namespace hugetune {

// The boot panel as text, `width` x `height` characters of plot area: '-' the predicted time,
// '.' its bootstrap band, '*' measured points (on hardware threads only), 'R' the recommended
// and 'D' the default value ("R=D" when they coincide) with a legend giving their times and
// what the y axis cuts (kDecidedSpan); log2 x axis. Empty when there is nothing to draw.
std::string boot_chart(const PlotData& data, int width = 56, int height = 12);

// The phase panel as text: '*' medians, 'o' time-shared medians (with a legend line), '-'
// fitted curve, 'R' the recommended N, 'D' the kernel default, log2 x axis.
std::string phase_chart(const PlotData& data, int width = 56, int height = 12);

}  // namespace hugetune
