// A seeded fleet of hosts for the fleet model's tests: per SKU a known scaling curve, per host
// and per repetition noise, some hosts planted as outliers; one report per host written through
// the real report builder, and the truth to check the analysis against. A test helper, never
// shipped.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/fleet/fleet.hpp"
#include "model/microarch.hpp"

namespace hugetune::test {

struct FleetSpec {
    std::uint64_t seed = 1;
    int skus = 2;
    int hosts_per_sku = 8;
    int outliers_per_sku = 3;   // planted in turn: slower curve, another kernel, odd ratio
    double verify_share = 0.5;  // of the clean hosts, whose report gets a verification block
    int repetitions = 5;
    int report_resamples = 50;  // each host's own fit in its report; the fleet refits anyway
    // false: every host's report carries its SKU's first host's fit (recommendation, models),
    // its own samples still: the fleet refits from samples, and a fit per host is what makes a
    // large fleet slow to generate in a Debug build.
    bool fit_every_host = true;
    // More than hosts_per_sku: each SKU's number of hosts is drawn, uniformly, from
    // hosts_per_sku to this.
    int max_hosts_per_sku = 0;
    // Log standard deviations of the noise: a host's level (all its samples), a host's level at
    // one thread count of one phase, one repetition.
    double host_noise = 0.03;
    double count_noise = 0;
    double repetition_noise = 0.02;
    // Hosts per SKU that record one boot each (boot records, no report): in turn at half, once
    // and twice the SKU's best value, each taking the true time with a little noise.
    int boot_hosts_per_sku = 0;
};

// `skus` SKUs of `hosts_per_sku` clean hosts (no outliers planted), quick to make: every report
// carries one fit, made without resamples (the fleet refits from the samples anyway).
inline FleetSpec clean_spec(std::uint64_t seed, int skus, int hosts_per_sku) {
    FleetSpec spec;
    spec.seed = seed;
    spec.skus = skus;
    spec.hosts_per_sku = hosts_per_sku;
    spec.outliers_per_sku = 0;
    spec.fit_every_host = false;
    spec.report_resamples = 0;
    return spec;
}

struct PlantedOutlier {
    std::string host;
    std::string planted;  // "slower_curve", "other_kernel", "odd_verification_ratio"
};

struct SkuTruth {
    model::fleet::SkuKey key;     // its microarch what the table names `cpu`
    model::CpuFields cpu;         // the reports' cpu block
    double sigma = 0, kappa = 0;  // the true USL of the boot's work per page
    double seconds_per_page = 0;  // at one thread per node
    int online_cpus = 1;
    std::uint64_t pool_pages = 0;  // the boot pool, in total
    int best_hugepage_alloc_threads = 1;
    std::vector<PlantedOutlier> outliers;
    std::vector<std::string> hosts;

    // The true boot allocation seconds of the pool at `total_threads`.
    double boot_seconds(int total_threads) const;
};

struct GeneratedFleet {
    std::vector<std::pair<std::string, nlohmann::json>> reports;  // host, report
    std::vector<SkuTruth> skus;

    nlohmann::json truth_json() const;
    // The reports of one SKU, as the fleet database hands them back.
    std::vector<model::fleet::FleetRun> runs_of(const SkuTruth& sku) const;
};

// Each report as it is made, host and document; given, generate_fleet hands every report to it
// and keeps none (a fleet of 100,000 hosts is written out one report at a time).
using ReportSink = std::function<void(const std::string& host, nlohmann::json report)>;
// Each boot record as it is made, written as its one writer writes it (one line of JSON Lines).
using BootSink = std::function<void(const std::string& record)>;

GeneratedFleet generate_fleet(const FleetSpec& spec, const ReportSink& sink = {},
                              const BootSink& boots = {});

}  // namespace hugetune::test
