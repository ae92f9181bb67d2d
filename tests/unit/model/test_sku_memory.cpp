// The memory per node a SKU key names: the node's MemTotal as memory is installed, so one
// machine keeps one key whatever its huge page pools hold.
#include <doctest/doctest.h>

#include "model/documents/report.hpp"

using hugetune::model::nominal_memory_gib;

namespace {
constexpr std::uint64_t kGib = 1024ULL * 1024 * 1024;
}

TEST_CASE("MemTotal is rounded up to the next size memory is installed in") {
    CHECK(nominal_memory_gib(0) == 0);
    CHECK(nominal_memory_gib(kGib / 2) == 1);
    CHECK(nominal_memory_gib(7 * kGib + kGib / 2) == 8);    // an 8 GiB guest
    CHECK(nominal_memory_gib(23 * kGib + kGib / 3) == 24);  // 24 GiB: 3 x 8
    CHECK(nominal_memory_gib(24 * kGib) == 24);
    CHECK(nominal_memory_gib(24 * kGib + 1) == 32);
    CHECK(nominal_memory_gib(187 * kGib + kGib / 2) == 192);  // a 192 GiB node
    CHECK(nominal_memory_gib(1007 * kGib) == 1024);
    CHECK(nominal_memory_gib(1500 * kGib) == 1536);
}

TEST_CASE("two hosts whose firmware reserves a little more or less share the figure") {
    CHECK(nominal_memory_gib(188 * kGib) == nominal_memory_gib(191 * kGib + kGib / 2));
    CHECK(nominal_memory_gib(3 * kGib + kGib / 2) == 4);
}
