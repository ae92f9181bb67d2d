#include "reports/fleet_plot.hpp"

#include <cmath>
#include <map>

#include "model/text.hpp"

namespace hugetune {
namespace {

using nlohmann::json;

std::optional<double> number_at(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

// The answer's predictions per value (model::to_json(Recommendation)'s "predictions"), its
// pooled medians, and the recommended and default values.
BootPanel boot_of(const model::fleet::FleetAnswer& a) {
    BootPanel boot;
    const json& r = a.recommendation;
    const auto series = [&](const char* key, bool band) {
        std::vector<BootPoint> out;
        const auto it = r.find(key);
        if (it == r.end() || !it->is_array())
            return out;
        for (const auto& p : *it) {
            const auto threads = number_at(p, "hugepage_alloc_threads");
            const auto seconds = number_at(p, "seconds");
            if (!threads || !seconds)
                continue;
            out.push_back({*threads, *seconds, band ? number_at(p, "seconds_low") : std::nullopt,
                           band ? number_at(p, "seconds_high") : std::nullopt});
        }
        return out;
    };
    boot.predicted = series("predictions", true);
    boot.measured = series("measured_boot_seconds", false);
    boot.recommended = BootPoint{static_cast<double>(a.hugepage_alloc_threads), a.predicted_seconds,
                                 a.predicted_seconds_low, a.predicted_seconds_high};
    if (const auto rec = r.find("recommendation"); rec != r.end() && rec->is_object()) {
        const auto threads = number_at(*rec, "default_threads");
        const auto seconds = number_at(*rec, "predicted_default_seconds");
        if (threads && seconds)
            boot.kernel_default = BootPoint{*threads, *seconds, std::nullopt, std::nullopt};
    }
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

std::string joined(const std::vector<std::string>& clauses) {
    std::string out;
    for (const auto& c : clauses)
        out += (out.empty() ? "" : "; ") + c;
    return out;
}

}  // namespace

FleetPlotData fleet_plot_data(const model::fleet::FleetAnswer& answer,
                              const std::vector<model::fleet::HostRuns>& hosts,
                              const std::vector<model::fleet::HostCheck>& checks) {
    FleetPlotData d;
    d.title = model::fleet::to_string(answer.sku) + ": " + std::to_string(answer.hosts) +
              " hosts, " + std::to_string(answer.runs) + " runs, " +
              model::fleet::to_string(answer.status);
    d.boot = boot_of(answer);
    std::map<std::string, const model::fleet::HostCheck*> check_of;
    for (const auto& c : checks)
        check_of[c.host] = &c;
    for (const auto& h : hosts) {
        HostLine line{h.host, host_points(h, answer.sku), false, ""};
        if (const auto it = check_of.find(h.host); it != check_of.end() && it->second->outlier) {
            line.outlier = true;
            line.reasons = joined(it->second->reasons);
        }
        d.hosts.push_back(std::move(line));
    }
    return d;
}

}  // namespace hugetune
