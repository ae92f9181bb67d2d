#include "reports/plot_scale.hpp"

#include <algorithm>
#include <cstdio>

#include "model/text.hpp"

namespace hugetune {

double x_of(const model::Prediction& p) {
    return static_cast<double>(p.total_threads);
}

std::vector<model::Prediction> drawn_measured(const BootPanel& boot) {
    std::vector<model::Prediction> out;
    for (const auto& p : boot.measured)
        if (!boot.hardware_threads || p.total_threads <= *boot.hardware_threads)
            out.push_back(p);
    return out;
}

bool measured_left_out(const BootPanel& boot) {
    return drawn_measured(boot).size() < boot.measured.size();
}

double boot_xmax(const BootPanel& boot) {
    double xmax = 1;
    for (const auto& p : boot.predicted)
        xmax = std::max(xmax, x_of(p));
    for (const auto& p : drawn_measured(boot))
        xmax = std::max(xmax, x_of(p));
    return xmax;
}

BootScale boot_scale(const BootPanel& boot) {
    double curve = 0, band = 0, measured = 0, decided = 0;
    for (const auto& p : boot.predicted) {
        curve = std::max(curve, p.seconds);
        band = std::max(band, p.seconds_high.value_or(0));
    }
    for (const auto& p : drawn_measured(boot))
        measured = std::max(measured, p.seconds);
    for (const auto& mark : {boot.recommended, boot.kernel_default})
        if (mark)
            decided = std::max(decided, mark->seconds);
    const double reach = std::max({curve, band, measured, decided});
    const double cap = decided > 0 ? kDecidedSpan * decided : curve;
    BootScale scale;
    scale.top = cap > 0 ? std::min(reach, cap) : reach;
    auto cut = [&](double part) {
        return part > scale.top ? std::optional<double>(part) : std::nullopt;
    };
    scale.band_reach = cut(band);
    scale.curve_reach = cut(curve);
    scale.measured_reach = cut(measured);
    return scale;
}

std::string clipped_text(double top, double reach) {
    return "clipped at " + seconds_text(top) + " (reaches " + seconds_text(reach) + ")";
}

std::string left_out_text(const BootPanel& boot) {
    return "only on the " + std::to_string(boot.hardware_threads.value_or(0)) +
           " hardware threads (more time-share them)";
}

bool any_time_shared(const PlotSeries& series) {
    return std::any_of(series.measured.begin(), series.measured.end(),
                       [](const PlotPoint& p) { return p.time_shared; });
}

std::string plot_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace hugetune
