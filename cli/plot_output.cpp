#include "cli/plot_output.hpp"

namespace hugetune::cli {

GnuplotResult render_plot(const PlotData& data, const std::filesystem::path& output) {
    const auto format = plot_format_for(output).value_or(PlotFormat::svg);
    return render_with_gnuplot(
        [&](const std::filesystem::path& into) { return gnuplot_script(data, format, into); },
        output);
}

GnuplotResult render_plot(const FleetPlotData& data, const std::filesystem::path& output) {
    const auto format = plot_format_for(output).value_or(PlotFormat::svg);
    return render_with_gnuplot(
        [&](const std::filesystem::path& into) { return fleet_gnuplot_script(data, format, into); },
        output);
}

}  // namespace hugetune::cli
