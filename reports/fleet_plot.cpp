#include "reports/fleet_plot.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include "model/text.hpp"

namespace hugetune {
namespace {

// The answer's fit: its predictions per value with their band, its pooled medians scaled to the
// pool, the recommended and default values.
BootPanel boot_of(const model::fleet::FleetAnswer& a) {
    if (!a.recommendation)
        throw std::logic_error("the plot of SKU " + model::fleet::to_string(a.sku) +
                               " was given its answer without the fit");
    const model::Recommendation& fit = *a.recommendation;
    BootPanel boot;
    boot.predicted = fit.predictions;
    boot.measured = fit.measured;
    for (auto& p : boot.measured)
        p.seconds_low = p.seconds_high = std::nullopt;
    boot.hardware_threads = a.sku.hardware_threads_per_node * a.sku.nodes;
    boot.recommended =
        model::Prediction{.total_threads = static_cast<int>(a.hugepage_alloc_threads),
                          .seconds = a.predicted_seconds,
                          .seconds_low = a.predicted_seconds_low,
                          .seconds_high = a.predicted_seconds_high};
    boot.kernel_default = model::Prediction{.total_threads = fit.default_threads,
                                            .seconds = fit.predicted_default_seconds,
                                            .seconds_low = std::nullopt,
                                            .seconds_high = std::nullopt};
    return boot;
}

// The host's curve as check_hosts judges it (model::fleet::host_curve: median log seconds per
// page of the alloc phase per thread count per node), in seconds per GiB per node and by the
// total thread count, the boot panel's axis.
std::vector<std::pair<double, double>> host_points(const model::fleet::HostRuns& host,
                                                   const model::SkuKey& sku) {
    const double pages_per_gib = 1024.0 * 1024.0 / static_cast<double>(sku.page_size_kb);
    std::vector<std::pair<double, double>> out;
    for (const auto& [threads_per_node, log_seconds_per_page] : model::fleet::host_curve(host))
        out.emplace_back(threads_per_node * sku.nodes,
                         std::exp(log_seconds_per_page) * pages_per_gib);
    return out;
}

}  // namespace

FleetPlotData fleet_plot_data(const model::fleet::FleetAnswer& answer,
                              const std::vector<model::fleet::HostRuns>& hosts,
                              const std::vector<model::fleet::HostCheck>& checks) {
    FleetPlotData d;
    d.title = model::fleet::to_string(answer.sku) + ": " + count_text(answer.hosts, "host") + ", " +
              count_text(answer.runs, "run") + ", " + model::fleet::to_string(answer.status);
    d.boot = boot_of(answer);
    std::map<std::string, const model::fleet::HostCheck*> check_of;
    for (const auto& c : checks)
        check_of[c.host] = &c;
    for (const auto& h : hosts) {
        HostLine line{h.host, host_points(h, answer.sku), false, ""};
        if (const auto it = check_of.find(h.host); it != check_of.end() && it->second->outlier) {
            line.outlier = true;
            line.reasons = join(it->second->reasons, "; ");
            for (const auto& e : answer.excluded)
                if (e.host == h.host)
                    line.reasons += "; left out of the fit";
        }
        d.hosts.push_back(std::move(line));
    }
    return d;
}

}  // namespace hugetune
