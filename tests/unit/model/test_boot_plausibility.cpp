// What a boot allocation can be (model/boot_plausibility.hpp): the least time zeroing a pool
// takes at the generous ceiling, with the jiffy's slack, and the ratio's range at both ends.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "model/boot_plausibility.hpp"

using namespace hugetune::model;

TEST_CASE("boot plausibility: the least zeroing time scales with the bytes and the writers") {
    // 1 TiB at 4 TiB/s is 250 ms; two nodes halve it; no writer counts as one.
    CHECK(least_zeroing_ms(524288, 2048, 1) == doctest::Approx(250));
    CHECK(least_zeroing_ms(524288, 2048, 2) == doctest::Approx(125));
    CHECK(least_zeroing_ms(524288, 2048, 0) == doctest::Approx(250));
    CHECK(least_zeroing_ms(1024, 1048576, 4) == doctest::Approx(62.5));
    // A jiffy of slack: 115 ms + 10 reaches 125, 114 does not.
    CHECK_FALSE(faster_than_zeroing(115, 524288, 2048, 2));
    CHECK(faster_than_zeroing(114, 524288, 2048, 2));
    // Small pools are never ruled out: 8 GiB takes 2 ms, below one jiffy.
    CHECK_FALSE(faster_than_zeroing(0, 4096, 2048, 1));
}

TEST_CASE("boot plausibility: the ratio's range is 1/128 to 128, ends included") {
    CHECK_FALSE(implausible_ratio(1.0));
    CHECK_FALSE(implausible_ratio(128));
    CHECK_FALSE(implausible_ratio(1.0 / 128));
    CHECK(implausible_ratio(128.5));
    CHECK(implausible_ratio(0.0077));
    CHECK(implausible_ratio(0));
    CHECK(*implausible_ratio(0) ==
          "measured/predicted is 0, outside the 0.00781 to 128 any "
          "boot of the predicted pool can give");
}

TEST_CASE("boot plausibility: a time past any boot's is never below the bound") {
    CHECK_FALSE(faster_than_zeroing(UINT64_MAX, 524288, 2048, 1));
    CHECK(faster_than_zeroing(0, 524288, 2048, 1)->find("at 4 TiB/s for each of 1") !=
          std::string::npos);
}
