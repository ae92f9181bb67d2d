#include <doctest/doctest.h>

#include "model/fleet/fleet.hpp"

using namespace hugetune::model;
using namespace hugetune::model::fleet;

TEST_CASE("an SKU key prints and parses back") {
    const SkuKey key{"skylake", 4, 28, 192, 2048, std::nullopt};
    CHECK(to_string(key) == "skylake/4n/28t/192g/2048k");
    CHECK(parse_sku_key("skylake/4n/28t/192g/2048k") == key);
    const SkuKey other{"zen4-c", 2, 64, 0, 1048576, std::nullopt};
    CHECK(parse_sku_key(to_string(other)) == other);
    // init_on_alloc, when the report says, separates keys of the same hardware.
    const SkuKey on{"skylake", 4, 28, 192, 2048, true};
    const SkuKey off{"skylake", 4, 28, 192, 2048, false};
    CHECK(to_string(on) == "skylake/4n/28t/192g/2048k/ioa1");
    CHECK(to_string(off) == "skylake/4n/28t/192g/2048k/ioa0");
    CHECK(parse_sku_key("skylake/4n/28t/192g/2048k/ioa1") == on);
    CHECK(parse_sku_key("skylake/4n/28t/192g/2048k/ioa0") == off);
    CHECK_FALSE(on == off);
    CHECK_FALSE(on == key);
}

TEST_CASE("an SKU key that is not one is refused, naming the part") {
    const auto refused = [](const char* text, const char* part) {
        CAPTURE(text);
        try {
            parse_sku_key(text);
            FAIL("accepted");
        } catch (const InputError& e) {
            CHECK(std::string(e.what()).find(part) != std::string::npos);
            CHECK(std::string(e.what()).find("skylake/4n/28t/192g/2048k") != std::string::npos);
        }
    };
    refused("skylake/4n/28t/192g", "4 part(s)");
    refused("skylake/4n/28t/192g/2048k/x", "init_on_alloc 'x' must be ioa0 or ioa1");
    refused("skylake/4n/28t/192g/2048k/ioa1/x", "7 part(s)");
    refused("/4n/28t/192g/2048k", "microarch");
    refused("Skylake/4n/28t/192g/2048k", "microarch");
    refused("skylake/4/28t/192g/2048k", "nodes '4' must end in 'n'");
    refused("skylake/0n/28t/192g/2048k", "nodes '0n'");
    refused("skylake/4n/-1t/192g/2048k", "threads per node");
    refused("skylake/4n/28t/1x2g/2048k", "memory per node");
    refused("skylake/4n/28t/192g/2k", "page size '2k'");
    refused("skylake/4n/28t/192g/ 2048k", "page size");
}

TEST_CASE("SKU statuses have their documented names") {
    CHECK(to_string(SkuStatus::settled) == "settled");
    CHECK(to_string(SkuStatus::settled_by_boots) == "settled_by_boots");
    CHECK(to_string(SkuStatus::needs_more_hosts) == "needs_more_hosts");
    CHECK(to_string(SkuStatus::disagrees_with_verification) == "disagrees_with_verification");
    CHECK(to_string(SkuStatus::host_warnings) == "host_warnings");
    CHECK(to_string(SkuStatus::fit_warnings) == "fit_warnings");
    CHECK(to_string(SkuStatus::low_confidence) == "low_confidence");
    CHECK(to_string(SkuStatus::hosts_disagree) == "hosts_disagree");
    CHECK(to_string(SkuStatus::disagrees_with_boots) == "disagrees_with_boots");
    CHECK(to_string(SkuStatus::stale_runs) == "stale_runs");
    CHECK(std::size(kSkuStatuses) == 10);
    CHECK_FALSE(is_settled(SkuStatus::stale_runs));
}
