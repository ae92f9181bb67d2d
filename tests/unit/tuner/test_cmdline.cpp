#include <doctest/doctest.h>

#include "model/text.hpp"
#include "tuner/kernel/cmdline.hpp"

using namespace hugetune;

TEST_CASE("cmdline: blanks separate parameters, '=' splits name and value") {
    auto c = parse_kernel_cmdline("  ro quiet  root=/dev/sda1\thugepages=512\n");
    REQUIRE(c.params.size() == 4);
    CHECK(c.params[0].name == "ro");
    CHECK_FALSE(c.params[0].value.has_value());
    CHECK(c.params[2].name == "root");
    CHECK(*c.params[2].value == "/dev/sda1");
    CHECK(*c.last("hugepages") == "512");
    CHECK_FALSE(c.params[1].value.has_value());  // quiet
    CHECK_FALSE(c.last("splash").has_value());
}

TEST_CASE("cmdline: double quotes group blanks and are dropped") {
    auto c = parse_kernel_cmdline(R"(a="b c" "d=e f" g=h=i)");
    REQUIRE(c.params.size() == 3);
    CHECK(c.params[0].name == "a");
    CHECK(*c.params[0].value == "b c");
    CHECK(c.params[1].name == "d");
    CHECK(*c.params[1].value == "e f");
    CHECK(c.params[2].name == "g");
    CHECK(*c.params[2].value == "h=i");  // only the first '=' splits
}

TEST_CASE("cmdline: the last occurrence wins, every occurrence is kept") {
    auto c = parse_kernel_cmdline("hugepage_alloc_threads=8 x hugepage_alloc_threads=32");
    CHECK(*c.last("hugepage_alloc_threads") == "32");
    CHECK(c.params.size() == 3);
    CHECK(*c.params[0].value == "8");
}

TEST_CASE("cmdline: what follows a bare -- belongs to init") {
    auto c = parse_kernel_cmdline("ro quiet -- --firecracker-init hugepages=4");
    CHECK(c.params.size() == 2);
    CHECK_FALSE(c.last("hugepages").has_value());
}

TEST_CASE("cmdline: empty and blank input") {
    CHECK(parse_kernel_cmdline("").params.empty());
    CHECK(parse_kernel_cmdline(" \n\t ").params.empty());
}

TEST_CASE("cmdline: hugetlb parameters are picked out") {
    CHECK(is_hugetlb_param("hugepages"));
    CHECK(is_hugetlb_param("hugepage_alloc_threads"));
    CHECK(is_hugetlb_param("init_on_alloc"));
    CHECK_FALSE(is_hugetlb_param("root"));
}

TEST_CASE("kernel numbers: kstrtoul base 0 and memparse suffixes") {
    CHECK(parse_kernel_ulong("32") == 32u);
    CHECK(parse_kernel_ulong("0x10") == 16u);
    CHECK(parse_kernel_ulong("010") == 8u);
    CHECK(parse_kernel_ulong("0") == 0u);
    CHECK_FALSE(parse_kernel_ulong("abc").has_value());
    CHECK_FALSE(parse_kernel_ulong("12abc").has_value());
    CHECK_FALSE(parse_kernel_ulong("").has_value());
    // _kstrtoull() skips one leading '+' before the radix: the kernel takes +8 as 8.
    CHECK(parse_kernel_ulong("+8") == 8u);
    CHECK(parse_kernel_ulong("+0x10") == 16u);
    CHECK_FALSE(parse_kernel_ulong("++8").has_value());
    CHECK_FALSE(parse_kernel_ulong("-8").has_value());
    CHECK_FALSE(parse_kernel_ulong("+").has_value());
    // memparse() takes no sign.
    CHECK_FALSE(parse_memsize_kb("+2M").has_value());
    CHECK(parse_memsize_kb("2M") == 2048u);
    CHECK(parse_memsize_kb("1G") == 1048576u);
    CHECK(parse_memsize_kb("2048k") == 2048u);
    CHECK(parse_memsize_kb("2097152") == 2048u);
    for (std::uint64_t kb : {64u, 2048u, 1048576u, 3u * 1024 * 1024 * 1024})
        CHECK(parse_memsize_kb(page_size_text(kb, SizeStyle::cmdline)) == kb);
    CHECK(page_size_text(2048, SizeStyle::cmdline) == "2M");
    CHECK(page_size_text(1048576, SizeStyle::cmdline) == "1G");
    CHECK_FALSE(parse_memsize_kb("G").has_value());
}

TEST_CASE("cmdline: '-' and '_' name one parameter, as the kernel's parameqn() matches them") {
    CHECK(same_param_name("hugepage-alloc-threads", "hugepage_alloc_threads"));
    CHECK(same_param_name("hugepage_alloc-threads", "hugepage-alloc_threads"));
    CHECK_FALSE(same_param_name("hugepage_alloc_thread", "hugepage_alloc_threads"));
    CHECK_FALSE(same_param_name("hugepages", "hugepagesz"));
    // The later occurrence wins whichever way it is spelled.
    auto c = parse_kernel_cmdline("hugepage_alloc_threads=4 hugepage-alloc-threads=8");
    CHECK(c.last("hugepage_alloc_threads") == "8");
    CHECK(c.last("hugepage-alloc-threads") == "8");
    CHECK(parse_kernel_cmdline("init-on-alloc=0").last("init_on_alloc") == "0");
    CHECK(is_hugetlb_param("hugepage-alloc-threads"));
    CHECK(is_hugetlb_param("init-on-alloc"));
}
