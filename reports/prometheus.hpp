// Metrics in the Prometheus text exposition format, as node_exporter's textfile collector reads
// them from `*.prom` files: `# HELP` and `# TYPE` once per metric, then one line per sample,
// `name{label="value",...} number`. Bytes only; the command line writes the file atomically.
//
// Every metric hugetune writes (`verify --prometheus`, the verify unit's textfile, which is
// verify's, and `fleet export --format prometheus`) is defined once, in kMetrics: its name,
// type, help text and label names. A sample names its definition and gives only the label
// values, so one name never carries two help texts or two label sets (docs/fleet.md
// "Outputs").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/documents/fleet_answer.hpp"
#include "model/documents/verification.hpp"

namespace hugetune {

enum class Metric : std::uint8_t {
    boot_verified,
    boot_allocation_seconds,
    boot_allocation_threads,
    boot_expected_threads,
    boot_allocation_predicted_seconds,
    boot_allocation_ratio,
    boot_verify_problem,
    verify_exit_code,
    verify_timestamp_seconds,
    fleet_sku_status,
    fleet_recommended_threads,
    fleet_predicted_seconds,
    fleet_confidence_ratio,
    fleet_hosts,
    fleet_runs,
    fleet_verified_boots,
    fleet_verification_ratio,
    fleet_latest_report_timestamp_seconds,
    fleet_export_timestamp_seconds,
};

struct MetricDefinition {
    Metric metric;
    std::string_view name;  // hugetune_..., its unit as the suffix (_seconds, _threads, _ratio)
    std::string_view type;  // every one is a gauge: each file says how things stand now
    std::string_view help;
    std::vector<std::string_view> labels;
};

// Every metric, in the order of Metric.
const std::vector<MetricDefinition>& metric_definitions();
const MetricDefinition& definition(Metric metric);

struct PrometheusSample {
    Metric metric;
    std::vector<std::string> label_values;  // one per label name of the definition, in order
    double value = 0;
};

// Samples of one metric are grouped under its HELP and TYPE, in first-seen order. A sample
// whose label values do not match its definition's label names is a programming error.
std::string prometheus_text(const std::vector<PrometheusSample>& samples);

// A `verification` block (hugetune verify) as metrics, labelled with the SKU key (empty
// without a report, which Prometheus reads as the label not set) and the booted kernel's
// release. Null values give no sample (the expected thread count is known only from apply's
// ledger or a report); each problem gives hugetune_boot_verify_problem{code} 1. Then
// verify's exit code and the time it ran (unix seconds).
std::vector<PrometheusSample> verification_samples(const model::Verification& verification,
                                                   const std::optional<std::string>& sku_key,
                                                   int exit_code, std::int64_t now_unix_seconds);

// What a verify that could not judge the boot writes: its exit code and the time.
std::vector<PrometheusSample> verify_failure_samples(int exit_code, std::int64_t now_unix_seconds);

// One SKU: its answer, none when its runs could not be fitted, and when its newest report was
// made, when known.
struct FleetMetricInput {
    std::string sku_key;
    std::optional<model::fleet::FleetAnswer> answer;
    std::optional<std::int64_t> latest_report_unix_seconds;
};

// Per SKU: its status as one sample per status value and kSkuErrorStatus (1 for the SKU's, 0
// for the others), so that a SKU without an answer still says so and a change of status moves
// two samples whatever the statuses; then, for a SKU with an answer, the recommended value,
// predicted seconds, confidence, hosts, runs, verified boots and their ratio, and its newest
// report's time; then the export's own time.
std::vector<PrometheusSample> fleet_samples(const std::vector<FleetMetricInput>& skus,
                                            std::int64_t now_unix_seconds);

}  // namespace hugetune
