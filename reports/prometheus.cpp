#include "reports/prometheus.hpp"

#include "model/fleet/fleet.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace hugetune {
namespace {

// The exposition format escapes backslash, double quote and newline in label values, and
// backslash and newline in HELP text.
std::string escaped(const std::string& text, bool quote) {
    std::string out;
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '"' && quote)
            out += "\\\"";
        else
            out += c;
    }
    return out;
}

std::string sample_text(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    // The fewest digits that read back as the same double: 0.706, not 0.70599999999999996.
    char buf[32];
    for (int digits = 15; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, value);
        if (std::strtod(buf, nullptr) == value)
            break;
    }
    return buf;
}

}  // namespace

std::string prometheus_text(const std::vector<PrometheusSample>& samples) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const PrometheusSample*>> by_name;
    for (const auto& s : samples) {
        if (!by_name.count(s.name))
            order.push_back(s.name);
        by_name[s.name].push_back(&s);
    }
    std::string out;
    for (const auto& name : order) {
        const auto& group = by_name[name];
        out += "# HELP " + name + " " + escaped(group.front()->help, false) + "\n";
        out += "# TYPE " + name + " gauge\n";
        for (const auto* s : group) {
            out += name;
            if (!s->labels.empty()) {
                out += "{";
                for (std::size_t i = 0; i < s->labels.size(); ++i)
                    out += (i ? "," : "") + s->labels[i].first + "=\"" +
                           escaped(s->labels[i].second, true) + "\"";
                out += "}";
            }
            out += " " + sample_text(s->value) + "\n";
        }
    }
    return out;
}

std::vector<PrometheusSample> verification_samples(const model::Verification& v,
                                                   const std::optional<std::string>& sku_key) {
    std::vector<std::pair<std::string, std::string>> labels;
    if (sku_key)
        labels.emplace_back("sku", *sku_key);
    labels.emplace_back("kernel", v.kernel_release.value_or("unknown"));
    std::vector<PrometheusSample> out;
    out.push_back({"hugetune_boot_verified", "1 when the boot's allocation line confirms the value",
                   labels, v.verified ? 1.0 : 0.0});
    const auto add = [&](const auto& value, double scale, const char* name, const char* help) {
        if (value)
            out.push_back({name, help, labels, static_cast<double>(*value) * scale});
    };
    add(v.measured_ms, 1e-3, "hugetune_boot_allocation_seconds",
        "the kernel's own HugeTLB allocation time of the last boot");
    add(v.threads, 1, "hugetune_boot_allocation_threads",
        "the thread count the kernel's allocation line shows");
    add(v.pool_predicted_ms, 1e-3, "hugetune_boot_allocation_predicted_seconds",
        "the report's prediction rescaled to the booted pool");
    add(v.ratio, 1, "hugetune_boot_allocation_ratio", "measured over predicted boot allocation");
    // Why a boot is not verified, one sample per problem code, so that a dashboard tells a
    // shortfall or an implausible time from a value not applied.
    for (const auto& p : v.problems) {
        auto with_code = labels;
        with_code.emplace_back("code", p.code);
        out.push_back({"hugetune_boot_verify_problem",
                       "1 for each reason the boot is not verified, by its problem code", with_code,
                       1.0});
    }
    return out;
}

std::vector<PrometheusSample> fleet_samples(const std::vector<model::fleet::FleetAnswer>& answers) {
    std::vector<PrometheusSample> out;
    for (const auto& a : answers) {
        const std::vector<std::pair<std::string, std::string>> labels = {
            {"sku", model::fleet::to_string(a.sku)}, {"status", model::fleet::to_string(a.status)}};
        const auto add = [&](std::optional<double> value, const char* name, const char* help) {
            if (value)
                out.push_back({name, help, labels, *value});
        };
        add(static_cast<double>(a.hugepage_alloc_threads), "hugetune_fleet_recommended_threads",
            "the SKU's recommended hugepage_alloc_threads");
        add(a.predicted_seconds, "hugetune_fleet_predicted_seconds",
            "predicted boot allocation at the recommended value");
        add(a.hosts, "hugetune_fleet_hosts", "hosts of the SKU in the database");
        add(a.runs, "hugetune_fleet_runs", "reports of the SKU in the database");
        add(a.verified_boots, "hugetune_fleet_verified_boots", "verified boots of the SKU");
        add(a.verification_ratio, "hugetune_fleet_verification_ratio",
            "median measured over predicted of the SKU's verified boots");
    }
    return out;
}

}  // namespace hugetune
