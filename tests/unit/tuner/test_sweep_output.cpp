// The sweep file's shape (notes/sweep-format.md), from made-up samples.
#include <doctest/doctest.h>

#include "tests/unit/support/sweep_data.hpp"

using namespace hugetune;
using hugetune::test::made_up_sweep;

TEST_CASE("median of odd, even and empty sample lists") {
    CHECK(median({3, 1, 2}) == 2);
    CHECK(median({4, 1, 3, 2}) == 2.5);
    CHECK(median({}) == 0);
}

TEST_CASE("the sweep file has the agreed fields; unmeasured points are left out") {
    SweepResult r = made_up_sweep();
    auto j = to_json(r);
    CHECK(j["format"] == "hugetune-sweep");
    CHECK(j["format_version"] == 1);
    CHECK(j["complete"] == false);
    CHECK(j["tool"]["version"] == HUGETUNE_VERSION);
    CHECK(j["probe"]["topology"]["nodes"].size() == 4);
    auto params = j["parameters"];
    CHECK(params["threads_per_node"] == nlohmann::json::array({1, 64}));
    CHECK(params["repetitions"] == 5);
    CHECK(params["page_size_kb"] == 2048);
    CHECK(params["sample_mib_per_node"] == 1024);
    CHECK(params["nodes"] == nlohmann::json::array({0, 1, 2, 3}));
    CHECK(params["seed"] == 1);
    CHECK(params["max_memory_fraction"] == 0.5);
    REQUIRE(j["points"].size() == 2);
    auto p0 = j["points"][0];
    CHECK(p0["phase"] == "alloc");
    CHECK(p0["threads_per_node"] == 1);
    CHECK(p0["total_threads"] == 4);
    CHECK(p0["pages_per_node"] == 512);
    CHECK(p0["median_seconds"] == doctest::Approx(0.2));
    CHECK(p0["gib_per_second"] == doctest::Approx(20.0));
    CHECK(p0["oversubscribed"] == false);
    CHECK(p0["shortfall_pages"] == 0);
    CHECK(p0["samples_seconds"].size() == 3);
    auto p1 = j["points"][1];
    CHECK(p1["threads_per_node"] == 64);
    CHECK(p1["oversubscribed"] == true);
    CHECK(p1["shortfall_pages"] == 3);
}
