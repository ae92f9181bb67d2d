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

TEST_CASE("thread counts: 1 to 4096, decimal only") {
    CHECK(parse_thread_count("1") == std::optional<std::uint64_t>(1));
    CHECK(parse_thread_count("4096") == std::optional<std::uint64_t>(4096));
    for (const char* bad :
         {"0", "4097", "-1", "+3", "", "12a", "0x10", " 3", "3 ", "99999999999999999999"})
        CHECK(!parse_thread_count(bad));
}

TEST_CASE("thread count lists: digits between commas, the range left to the caller") {
    const auto counts = [](std::string_view list) { return parse_thread_counts(list).counts; };
    CHECK(counts("1,2,4,8") == std::vector<int>{1, 2, 4, 8});
    CHECK(counts("2") == std::vector<int>{2});
    CHECK(counts("4,2,4") == std::vector<int>{4, 2, 4});
    CHECK(counts("0,100000") == std::vector<int>{0, 100000});
    CHECK(counts("").empty());
    CHECK_FALSE(parse_thread_counts("").not_a_count);
    CHECK_FALSE(parse_thread_counts("1,4097").not_a_count);
    struct Case {
        const char* list;
        const char* refused;
    };
    for (const Case c : {Case{"1,x", "x"}, Case{",1", ""}, Case{"1,,2", ""}, Case{"1,2,", ""},
                         Case{"1, 2", " 2"}, Case{"-1", "-1"}, Case{"+2", "+2"},
                         Case{"0x10", "0x10"}, Case{"1,3000000000", "3000000000"}}) {
        CAPTURE(c.list);
        const ThreadCountList parsed = parse_thread_counts(c.list);
        CHECK(parsed.not_a_count == std::optional<std::string>(c.refused));
        CHECK(parsed.counts.empty());
    }
}
