// The node_exporter textfile format: HELP and TYPE once per metric from its one definition,
// escaped label values, the fewest digits that read back as the same number, and no sample
// for a missing value.
#include <doctest/doctest.h>

#include <regex>
#include <set>

#include "reports/prometheus.hpp"

using namespace hugetune;

TEST_CASE("prometheus: every metric is defined once, with a valid name and label names") {
    const std::regex name("[a-zA-Z_:][a-zA-Z0-9_:]*"), label("[a-zA-Z_][a-zA-Z0-9_]*");
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < metric_definitions().size(); ++i) {
        const MetricDefinition& d = metric_definitions()[i];
        CAPTURE(d.name);
        CHECK(static_cast<std::size_t>(d.metric) == i);
        CHECK(&definition(d.metric) == &d);
        CHECK(names.insert(d.name).second);
        CHECK(std::regex_match(std::string(d.name), name));
        CHECK(d.name.substr(0, 9) == "hugetune_");
        CHECK(d.type == "gauge");
        CHECK(!d.help.empty());
        std::set<std::string_view> labels(d.labels.begin(), d.labels.end());
        CHECK(labels.size() == d.labels.size());
        for (const auto l : d.labels)
            CHECK(std::regex_match(std::string(l), label));
    }
}

TEST_CASE("prometheus: samples of one metric share their HELP and TYPE") {
    const std::string text = prometheus_text({{Metric::fleet_hosts, {"a", "settled"}, 0.706},
                                              {Metric::verify_exit_code, {}, 2},
                                              {Metric::fleet_hosts, {"b\"\\\nx", "s"}, 1e-3}});
    CHECK(text ==
          "# HELP hugetune_fleet_hosts hosts of the SKU in the database\n"
          "# TYPE hugetune_fleet_hosts gauge\n"
          "hugetune_fleet_hosts{sku=\"a\",status=\"settled\"} 0.706\n"
          "hugetune_fleet_hosts{sku=\"b\\\"\\\\\\nx\",status=\"s\"} 0.001\n"
          "# HELP hugetune_verify_exit_code exit status of hugetune verify: 0 verified, 1 not "
          "verified, 2 or more could not judge\n"
          "# TYPE hugetune_verify_exit_code gauge\nhugetune_verify_exit_code 2\n");
}

TEST_CASE("prometheus: a verification block, its nulls left out, with verify's exit and time") {
    hugetune::model::Verification v;
    v.verified = true;
    v.measured_ms = 1500;
    v.threads = 8;
    v.kernel_release = "6.15.0";
    const std::string text =
        prometheus_text(verification_samples(v, "zen4/2n/32t/64g/2048k", 0, 1796190647));
    CHECK(
        text.find("hugetune_boot_verified{sku=\"zen4/2n/32t/64g/2048k\",kernel=\"6.15.0\"} 1\n") !=
        std::string::npos);
    CHECK(text.find("hugetune_boot_allocation_seconds{sku=\"zen4/2n/32t/64g/2048k\","
                    "kernel=\"6.15.0\"} 1.5\n") != std::string::npos);
    CHECK(text.find("hugetune_boot_allocation_threads{") != std::string::npos);
    CHECK(text.find("expected") == std::string::npos);
    CHECK(text.find("predicted") == std::string::npos);
    CHECK(text.find("ratio") == std::string::npos);
    CHECK(text.find("\nhugetune_verify_exit_code 0\n") != std::string::npos);
    CHECK(text.find("\nhugetune_verify_timestamp_seconds 1796190647\n") != std::string::npos);
}

TEST_CASE("prometheus: without a report the sku label is empty, so every sample has one set") {
    hugetune::model::Verification v;
    v.measured_ms = 5210;
    v.threads = 32;
    v.kernel_release = "6.15.0";
    v.expected_threads = 16;
    v.problems = {{"pool_shortfall", "allocated 385296 of 385920"},
                  {"implausible_ratio", "outside"}};
    const std::string text = prometheus_text(verification_samples(v, std::nullopt, 1, 0));
    CHECK(text.find("hugetune_boot_verified{sku=\"\",kernel=\"6.15.0\"} 0\n") != std::string::npos);
    // The value applied beside the one booted, for a dashboard to show both.
    CHECK(text.find("hugetune_boot_allocation_threads{sku=\"\",kernel=\"6.15.0\"} 32\n"
                    "# HELP hugetune_boot_expected_threads ") != std::string::npos);
    CHECK(text.find("hugetune_boot_expected_threads{sku=\"\",kernel=\"6.15.0\"} 16\n") !=
          std::string::npos);
    CHECK(text.find("# TYPE hugetune_boot_verify_problem gauge\n"
                    "hugetune_boot_verify_problem{sku=\"\",kernel=\"6.15.0\",code=\"pool_"
                    "shortfall\"} 1\n"
                    "hugetune_boot_verify_problem{sku=\"\",kernel=\"6.15.0\",code=\"implausible_"
                    "ratio\"} 1\n") != std::string::npos);
}

TEST_CASE("prometheus: a SKU's status is one sample per status value") {
    model::fleet::FleetAnswer answer;
    answer.sku = {"zen4", 2, 32, 64, 2048, std::nullopt};
    answer.status = model::fleet::SkuStatus::needs_more_hosts;
    answer.confidence = 0.69;
    const FleetMetricInput sku{"zen4/2n/32t/64g/2048k", answer, 1796120631};
    const std::string text = prometheus_text(fleet_samples({sku}, 1796190647));
    const std::string key = "sku=\"zen4/2n/32t/64g/2048k\"";
    CHECK(text.find("hugetune_fleet_sku_status{" + key + ",status=\"error\"} 0\n") !=
          std::string::npos);
    for (const auto status : model::fleet::kSkuStatuses) {
        const std::string value = status == answer.status ? "1" : "0";
        CHECK(text.find("hugetune_fleet_sku_status{" + key + ",status=\"" +
                        model::fleet::to_string(status) + "\"} " + value + "\n") !=
              std::string::npos);
    }
    CHECK(text.find("hugetune_fleet_confidence_ratio{" + key +
                    ",status=\"needs_more_hosts\"} 0.69\n") != std::string::npos);
    CHECK(text.find("hugetune_fleet_latest_report_timestamp_seconds{" + key +
                    ",status=\"needs_more_hosts\"} 1796120631\n") != std::string::npos);
    CHECK(text.find("\nhugetune_fleet_export_timestamp_seconds 1796190647\n") != std::string::npos);
    CHECK(text.find("hugetune_fleet_verification_ratio") == std::string::npos);
}

// Without an answer the SKU still has its status, so that an alert on a SKU no longer settled
// fires for it too; it has no other sample.
TEST_CASE("prometheus: a SKU without an answer has the status error") {
    const FleetMetricInput sku{"zen4/2n/32t/64g/2048k", std::nullopt, 1796120631};
    const std::string text = prometheus_text(fleet_samples({sku}, 1796190647));
    const std::string key = "sku=\"zen4/2n/32t/64g/2048k\"";
    CHECK(text.find("hugetune_fleet_sku_status{" + key + ",status=\"error\"} 1\n") !=
          std::string::npos);
    for (const auto status : model::fleet::kSkuStatuses)
        CHECK(text.find("hugetune_fleet_sku_status{" + key + ",status=\"" +
                        model::fleet::to_string(status) + "\"} 0\n") != std::string::npos);
    CHECK(text.find("hugetune_fleet_recommended_threads") == std::string::npos);
    CHECK(text.find("hugetune_fleet_latest_report_timestamp_seconds") == std::string::npos);
}
