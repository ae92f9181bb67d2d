// Clean generated SKUs (every host one run of its SKU's one true curve) answered one at a time:
// how many the camp and agreement rules wrongly keep from settling (docs/fleet.md "Outliers").
// A test helper, never shipped.
#pragma once

#include <string>
#include <vector>

#include "model/fleet/fleet.hpp"
#include "tests/support/fleet_generator.hpp"

namespace hugetune::test {

struct FalseCamps {
    int skus = 0;
    int hosts = 0;
    int excluded_hosts = 0;  // left out as outliers, by any rule
    int camp = 0;            // SKUs the camp rule calls hosts_disagree
    int disagreeing = 0;     // SKUs kHostAgreementFactor calls hosts_disagree
    int hosts_disagree = 0;  // SKUs either rule calls so
    // The first few SKUs called hosts_disagree: key, hosts and reason.
    std::vector<std::string> examples;
};

// Every SKU of `spec` (which should plant no outliers) generated and answered with `options`, one
// SKU's reports held at a time.
FalseCamps count_false_camps(const FleetSpec& spec, const model::fleet::FleetOptions& options);

}  // namespace hugetune::test
