#include <doctest/doctest.h>

#include "model/alloc_threads.hpp"

using namespace hugetune;

TEST_CASE("alloc threads: which releases honour the parameter") {
    CHECK_FALSE(release_supports_alloc_threads(6, 14));
    CHECK(release_supports_alloc_threads(6, 15));
    CHECK(release_supports_alloc_threads(7, 0));
    CHECK_FALSE(release_supports_alloc_threads(5, 19));
    CHECK(release_honours_alloc_threads("6.15.0-rc1") == std::optional<bool>(true));
    CHECK(release_honours_alloc_threads("6.9.12") == std::optional<bool>(false));
    CHECK(release_honours_alloc_threads("7.2.0-1-cloud-amd64") == std::optional<bool>(true));
    CHECK(!release_honours_alloc_threads("garbage"));
}

TEST_CASE("alloc threads: the kernel's default is a quarter of the CPUs, at least one") {
    CHECK(kernel_default_alloc_threads(1) == 1);
    CHECK(kernel_default_alloc_threads(3) == 1);
    CHECK(kernel_default_alloc_threads(144) == 36);
    CHECK(kernel_default_alloc_threads(192) == 48);
}
