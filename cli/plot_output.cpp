#include "cli/plot_output.hpp"

#include "cli/cli.hpp"

namespace hugetune::cli {

std::filesystem::path plot_option(const std::string& value) {
    if (!plot_format_for(value))
        usage_error("--plot", "'" + value + "' needs the extension .svg or .png");
    return value;
}

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
