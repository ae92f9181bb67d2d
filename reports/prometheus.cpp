#include "reports/prometheus.hpp"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "model/fleet/fleet.hpp"

namespace hugetune {
namespace {

constexpr std::string_view kGauge = "gauge";

// The exposition format escapes backslash, double quote and newline in label values, and
// backslash and newline in HELP text.
std::string escaped(std::string_view text, bool quote) {
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

std::vector<MetricDefinition> make_definitions() {
    const std::vector<std::string_view> boot = {"sku", "kernel"}, fleet = {"sku", "status"};
    return {
        {Metric::boot_verified, "hugetune_boot_verified", kGauge,
         "1 when the boot's allocation line confirms the value", boot},
        {Metric::boot_allocation_seconds, "hugetune_boot_allocation_seconds", kGauge,
         "the kernel's own HugeTLB allocation time of the last boot", boot},
        {Metric::boot_allocation_threads, "hugetune_boot_allocation_threads", kGauge,
         "the thread count the kernel's allocation line shows", boot},
        {Metric::boot_expected_threads, "hugetune_boot_expected_threads", kGauge,
         "the hugepage_alloc_threads hugetune expected: the applied value, else the report's",
         boot},
        {Metric::boot_allocation_predicted_seconds, "hugetune_boot_allocation_predicted_seconds",
         kGauge, "the report's prediction rescaled to the booted pool", boot},
        {Metric::boot_allocation_ratio, "hugetune_boot_allocation_ratio", kGauge,
         "measured over predicted boot allocation", boot},
        {Metric::boot_verify_problem,
         "hugetune_boot_verify_problem",
         kGauge,
         "1 for each reason the boot is not verified, by its problem code",
         {"sku", "kernel", "code"}},
        {Metric::verify_exit_code,
         "hugetune_verify_exit_code",
         kGauge,
         "exit status of hugetune verify: 0 verified, 1 not verified, 2 or more could not judge",
         {}},
        {Metric::verify_timestamp_seconds,
         "hugetune_verify_timestamp_seconds",
         kGauge,
         "when hugetune verify ran, in unix seconds",
         {}},
        {Metric::fleet_sku_status, "hugetune_fleet_sku_status", kGauge,
         "1 for the SKU's status, 0 for each other status", fleet},
        {Metric::fleet_recommended_threads, "hugetune_fleet_recommended_threads", kGauge,
         "the SKU's recommended hugepage_alloc_threads", fleet},
        {Metric::fleet_predicted_seconds, "hugetune_fleet_predicted_seconds", kGauge,
         "predicted boot allocation at the recommended value", fleet},
        {Metric::fleet_confidence_ratio, "hugetune_fleet_confidence_ratio", kGauge,
         "the bootstrap's confidence in the recommended value, 0 to 1", fleet},
        {Metric::fleet_hosts, "hugetune_fleet_hosts", kGauge, "hosts of the SKU in the database",
         fleet},
        {Metric::fleet_runs, "hugetune_fleet_runs", kGauge, "reports of the SKU in the database",
         fleet},
        {Metric::fleet_verified_boots, "hugetune_fleet_verified_boots", kGauge,
         "verified boots of the SKU", fleet},
        {Metric::fleet_verification_ratio, "hugetune_fleet_verification_ratio", kGauge,
         "median measured over predicted of the SKU's verified boots", fleet},
        {Metric::fleet_latest_report_timestamp_seconds,
         "hugetune_fleet_latest_report_timestamp_seconds", kGauge,
         "when the SKU's newest report was made, in unix seconds", fleet},
        {Metric::fleet_export_timestamp_seconds,
         "hugetune_fleet_export_timestamp_seconds",
         kGauge,
         "when hugetune fleet export wrote these metrics, in unix seconds",
         {}},
    };
}

}  // namespace

const std::vector<MetricDefinition>& metric_definitions() {
    static const std::vector<MetricDefinition> definitions = make_definitions();
    return definitions;
}

const MetricDefinition& definition(Metric metric) {
    const auto& all = metric_definitions();
    const auto i = static_cast<std::size_t>(metric);
    assert(i < all.size() && all[i].metric == metric);
    return all[i];
}

std::string prometheus_text(const std::vector<PrometheusSample>& samples) {
    std::vector<Metric> order;
    std::map<Metric, std::vector<const PrometheusSample*>> by_metric;
    for (const auto& s : samples) {
        if (!by_metric.count(s.metric))
            order.push_back(s.metric);
        by_metric[s.metric].push_back(&s);
    }
    std::string out;
    for (const Metric metric : order) {
        const MetricDefinition& d = definition(metric);
        const std::string name(d.name);
        out += "# HELP " + name + " " + escaped(d.help, false) + "\n";
        out += "# TYPE " + name + " " + std::string(d.type) + "\n";
        for (const auto* s : by_metric[metric]) {
            assert(s->label_values.size() == d.labels.size());
            out += name;
            if (!d.labels.empty()) {
                out += "{";
                for (std::size_t i = 0; i < d.labels.size(); ++i)
                    out += (i ? "," : "") + std::string(d.labels[i]) + "=\"" +
                           escaped(s->label_values[i], true) + "\"";
                out += "}";
            }
            out += " " + sample_text(s->value) + "\n";
        }
    }
    return out;
}

std::vector<PrometheusSample> verify_failure_samples(int exit_code, std::int64_t now_unix_seconds) {
    return {{Metric::verify_exit_code, {}, static_cast<double>(exit_code)},
            {Metric::verify_timestamp_seconds, {}, static_cast<double>(now_unix_seconds)}};
}

std::vector<PrometheusSample> verification_samples(const model::Verification& v,
                                                   const std::optional<std::string>& sku_key,
                                                   int exit_code, std::int64_t now_unix_seconds) {
    const std::vector<std::string> labels = {sku_key.value_or(""),
                                             v.kernel_release.value_or("unknown")};
    std::vector<PrometheusSample> out;
    out.push_back({Metric::boot_verified, labels, v.verified ? 1.0 : 0.0});
    const auto add = [&](const auto& value, double scale, Metric metric) {
        if (value)
            out.push_back({metric, labels, static_cast<double>(*value) * scale});
    };
    add(v.measured_ms, 1e-3, Metric::boot_allocation_seconds);
    add(v.threads, 1, Metric::boot_allocation_threads);
    add(v.expected_threads, 1, Metric::boot_expected_threads);
    add(v.pool_predicted_ms, 1e-3, Metric::boot_allocation_predicted_seconds);
    add(v.ratio, 1, Metric::boot_allocation_ratio);
    // Why a boot is not verified, one sample per problem code, so that a dashboard tells a
    // shortfall or an implausible time from a value not applied.
    for (const auto& p : v.problems) {
        auto with_code = labels;
        with_code.push_back(p.code);
        out.push_back({Metric::boot_verify_problem, with_code, 1.0});
    }
    for (auto& s : verify_failure_samples(exit_code, now_unix_seconds))
        out.push_back(std::move(s));
    return out;
}

std::vector<PrometheusSample> fleet_samples(const std::vector<FleetMetricInput>& skus,
                                            std::int64_t now_unix_seconds) {
    std::vector<PrometheusSample> out;
    for (const auto& [key, answer, latest] : skus) {
        // One sample per status value, so that an alert matches status="..." == 1 whichever
        // status the SKU had before, and changes() of them counts its changes of status.
        for (const auto value : model::fleet::kSkuStatuses)
            out.push_back({Metric::fleet_sku_status,
                           {key, model::fleet::to_string(value)},
                           answer && value == answer->status ? 1.0 : 0.0});
        out.push_back({Metric::fleet_sku_status,
                       {key, std::string(model::fleet::kSkuErrorStatus)},
                       answer ? 0.0 : 1.0});
        if (!answer)
            continue;
        const auto& a = *answer;
        const std::vector<std::string> labels = {key, model::fleet::to_string(a.status)};
        const auto add = [&](std::optional<double> value, Metric metric) {
            if (value)
                out.push_back({metric, labels, *value});
        };
        add(static_cast<double>(a.hugepage_alloc_threads), Metric::fleet_recommended_threads);
        add(a.predicted_seconds, Metric::fleet_predicted_seconds);
        add(a.confidence, Metric::fleet_confidence_ratio);
        add(a.hosts, Metric::fleet_hosts);
        add(a.runs, Metric::fleet_runs);
        add(a.verified_boots, Metric::fleet_verified_boots);
        add(a.verification_ratio, Metric::fleet_verification_ratio);
        if (latest)
            add(static_cast<double>(*latest), Metric::fleet_latest_report_timestamp_seconds);
    }
    out.push_back(
        {Metric::fleet_export_timestamp_seconds, {}, static_cast<double>(now_unix_seconds)});
    return out;
}

}  // namespace hugetune
