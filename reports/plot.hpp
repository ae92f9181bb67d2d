// The charts of a report: the predicted boot allocation time the decision rests on, with its
// bootstrap band and the recommended and default values marked, and the measured phases'
// throughput: what they draw, as plain data. Drawn by gnuplot (reports/gnuplot_script.hpp: SVG
// or PNG) and as text charts for the console summary (reports/text_chart.hpp); none runs a
// sweep.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/recommend.hpp"

namespace hugetune {

struct PlotPoint {
    double threads_per_node = 0;
    double value = 0;  // median
    double low = 0;    // spread: the smallest and largest sample
    double high = 0;
    // Measured with more threads than the machine has hardware threads: time-shared, drawn
    // apart ('o', an open marker) from the points the fit rests on.
    bool time_shared = false;
};

struct PlotSeries {
    std::string label;  // e.g. "zero (USL)"
    std::vector<PlotPoint> measured;
    std::vector<std::pair<double, double>> fitted;  // (threads per node, value), dense
};

// The boot and breakdown panels are scaled to what is decided: their y axis reaches at most
// kDecidedSpan times the larger of the decision's and the kernel default's predicted time (the
// boot panel without either: the predicted curve's top). What reaches higher (a wide bootstrap
// band, the curve at few threads, a what-if bar such as init_on_alloc's) is cut there, and the
// chart says where and how far it reaches: the boot panel's key and the text chart's legend
// ("band clipped at 8.96 s (reaches 2 min 6 s)"), the breakdown panel with a break across the
// cut bar and its value written above it. One linear rule rather than a log axis: the marks and
// the stacked parts of a bar keep their proportions, and the text chart reads the same way as
// the picture.
inline constexpr double kDecidedSpan = 4;

// The boot allocation per value of the kernel parameter, as the model predicts it
// (model::Prediction: drawn at its total_threads, with its 5%..95% band where it has one).
struct BootPanel {
    std::vector<model::Prediction> predicted;  // ascending threads
    std::vector<model::Prediction> measured;   // the fitted series' medians, scaled to the pool
    std::optional<model::Prediction> recommended;
    std::optional<model::Prediction> kernel_default;
    // The machine's hardware threads over all nodes: measured points at more threads were
    // time-shared and are not drawn. Nothing: all are drawn.
    std::optional<int> hardware_threads;
};

// What a part of a breakdown bar stands for (docs/kernel-facts.md "Which phase holds which part
// of the boot"): each has its own colour and key entry.
enum class BarPart {
    allocation,  // allocation proper (HVO's vmemmap work included where it was not measured)
    vmemmap,     // HVO's vmemmap work, measured by the sweep's HVO pass
    zeroing,     // the allocator's zeroing under init_on_alloc
    unsplit,     // the whole prediction, where the measured phases do not split it
    what_if,     // a what-if row's prediction
};

struct BarSegment {
    BarPart part = BarPart::allocation;
    double seconds = 0;
};

// One bar: a predicted boot stacked from 0 in its parts, or a what-if row's prediction, with the
// whole's interval. No segments: not predicted (the note says so on the chart).
struct BreakdownBar {
    std::string label;  // under the bar; '\n' breaks the line
    std::vector<BarSegment> segments;
    std::optional<double> low, high;
    std::string note;  // written above the bar; empty: none
};

struct BreakdownPanel {
    std::vector<BreakdownBar> bars;  // the decision, the default, then the what-if rows
    // The allocation part holds HVO's vmemmap work that no measurement separated.
    bool allocation_includes_vmemmap = false;
};

struct PlotData {
    std::string title;
    BootPanel boot;
    // Where the predicted boot allocation goes and what each lever would make of it; no bars:
    // no panel (a report without a breakdown).
    BreakdownPanel breakdown;
    std::string y_label;  // of the phase panel, e.g. "GiB/s per node"
    std::vector<PlotSeries> series;
    std::optional<double> recommended_threads_per_node;
    std::optional<double> default_threads_per_node;  // the kernel's default, per node
};

// One host of a SKU: its median alloc time per thread count over all its runs.
struct HostLine {
    std::string host;
    std::vector<std::pair<double, double>> points;  // (hugepage_alloc_threads, seconds per GiB
                                                    // per node), ascending
    bool outlier = false;
    std::string reasons;  // why it is an outlier, in words; empty when it is not
};

// A SKU of the fleet: its answer's predicted boot allocation with the band and the marks
// (BootPanel), above every host's measured alloc phase.
struct FleetPlotData {
    std::string title;
    BootPanel boot;
    std::vector<HostLine> hosts;  // by host name
};

}  // namespace hugetune
