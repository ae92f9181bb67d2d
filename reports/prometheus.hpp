// Metrics in the Prometheus text exposition format, as node_exporter's textfile collector reads
// them from `*.prom` files: `# HELP` and `# TYPE` once per metric, then one line per sample,
// `name{label="value",...} number`. Bytes only; the command line writes the file atomically.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/documents/fleet_answer.hpp"
#include "model/documents/verification.hpp"

namespace hugetune {

struct PrometheusSample {
    std::string name;  // hugetune_..., with its unit as the suffix (_seconds, _threads, _ratio)
    std::string help;
    std::vector<std::pair<std::string, std::string>> labels;
    double value = 0;
};

// Samples of one name are grouped under its HELP and TYPE (gauge), in first-seen order.
std::string prometheus_text(const std::vector<PrometheusSample>& samples);

// A `verification` block (hugetune verify) as metrics, labelled with the SKU key (when a
// report gave one) and the booted kernel's release. Null values give no sample; each problem
// gives hugetune_boot_verify_problem{code=...} 1.
std::vector<PrometheusSample> verification_samples(const model::Verification& verification,
                                                   const std::optional<std::string>& sku_key);

// Per SKU answer: the recommended value, predicted seconds, hosts, runs, verified boots and
// their ratio.
std::vector<PrometheusSample> fleet_samples(const std::vector<model::fleet::FleetAnswer>& answers);

}  // namespace hugetune
