// The node_exporter textfile format: HELP and TYPE once per metric, escaped label values, the
// fewest digits that read back as the same number, and no sample for a missing value.
#include <doctest/doctest.h>

#include "reports/prometheus.hpp"

using namespace hugetune;

TEST_CASE("prometheus: samples of one name share their HELP and TYPE") {
    const std::string text = prometheus_text({{"m_seconds", "time", {{"sku", "a"}}, 0.706},
                                              {"m_threads", "threads", {}, 32},
                                              {"m_seconds", "time", {{"sku", "b\"\\\nx"}}, 1e-3}});
    CHECK(text ==
          "# HELP m_seconds time\n# TYPE m_seconds gauge\nm_seconds{sku=\"a\"} 0.706\n"
          "m_seconds{sku=\"b\\\"\\\\\\nx\"} 0.001\n"
          "# HELP m_threads threads\n# TYPE m_threads gauge\nm_threads 32\n");
}

TEST_CASE("prometheus: a verification block, its nulls left out") {
    hugetune::model::Verification v;
    v.verified = true;
    v.measured_ms = 1500;
    v.threads = 8;
    v.kernel_release = "6.15.0";
    const std::string text = prometheus_text(verification_samples(v, "zen4/2n/32t/64g/2048k"));
    CHECK(
        text.find("hugetune_boot_verified{sku=\"zen4/2n/32t/64g/2048k\",kernel=\"6.15.0\"} 1\n") !=
        std::string::npos);
    CHECK(text.find("hugetune_boot_allocation_seconds{sku=\"zen4/2n/32t/64g/2048k\","
                    "kernel=\"6.15.0\"} 1.5\n") != std::string::npos);
    CHECK(text.find("hugetune_boot_allocation_threads{") != std::string::npos);
    CHECK(text.find("predicted") == std::string::npos);
    CHECK(text.find("ratio") == std::string::npos);
}

TEST_CASE("prometheus: each problem of an unverified boot is a sample with its code") {
    hugetune::model::Verification v;
    v.measured_ms = 5210;
    v.threads = 32;
    v.kernel_release = "6.15.0";
    v.problems = {{"pool_shortfall", "allocated 385296 of 385920"},
                  {"implausible_ratio", "outside"}};
    const std::string text = prometheus_text(verification_samples(v, std::nullopt));
    CHECK(text.find("hugetune_boot_verified{kernel=\"6.15.0\"} 0\n") != std::string::npos);
    CHECK(text.find("# TYPE hugetune_boot_verify_problem gauge\n"
                    "hugetune_boot_verify_problem{kernel=\"6.15.0\",code=\"pool_shortfall\"} 1\n"
                    "hugetune_boot_verify_problem{kernel=\"6.15.0\",code=\"implausible_ratio\"} "
                    "1\n") != std::string::npos);
}
