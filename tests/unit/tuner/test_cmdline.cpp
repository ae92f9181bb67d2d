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

TEST_CASE("cmdline: double quotes around a word or its value group blanks and are dropped") {
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

// Words as next_arg() (lib/cmdline.c) hands them to parse_args(), each row worked through the
// kernel's code by hand: a '"' toggles quoting wherever it stands, but only one that opens the
// word or its value is dropped, with the one that closes the word.
TEST_CASE("cmdline: words split as the kernel's next_arg() splits them") {
    struct Row {
        const char* text;
        const char* name;
        std::optional<std::string> value;
    };
    const Row rows[] = {
        {"a=b", "a", "b"},
        {"a", "a", std::nullopt},
        {"a=", "a", ""},
        {R"(a="b c")", "a", "b c"},
        {R"("a=b c")", "a", "b c"},
        {R"("a")", "a", std::nullopt},
        {R"(a=b"c d")", "a", R"(b"c d")"},  // not around the whole value: kept
        {R"(a=1"6")", "a", R"(1"6")"},      // likewise
        {R"(a="8)", "a", "8"},              // opening quote dropped, none to close
        {R"(a=8")", "a", R"(8")"},          // a closing quote alone stays
        {R"(x"a=b")", R"(x"a)", R"(b")"},   // a quote inside the name stays in it
        {R"("a"=8)", R"(a")", "8"},         // the opening one goes, the other stays
        {"==4", "=", "4"},                  // an '=' opening the word does not split
        {"a==4", "a", "=4"},
        {"a=b=c", "a", "b=c"},
        {R"(a="")", "a", ""},
        {R"(a=")", "a", ""},
    };
    for (const auto& row : rows) {
        CAPTURE(row.text);
        const auto c = parse_kernel_cmdline(row.text);
        REQUIRE(c.params.size() == 1);
        CHECK(c.params[0].name == row.name);
        CHECK(c.params[0].value == row.value);
        CHECK(c.params[0].raw == row.text);
    }
    // Quoting runs to the next '"', blanks and all, and to the end of the line without one.
    auto c = parse_kernel_cmdline(R"(a=b"c d" e a="x y)");
    REQUIRE(c.params.size() == 3);
    CHECK(c.params[1].name == "e");
    CHECK(c.params[2].value == "x y");
    // The kernel's isspace() also splits at 0xA0 and at \v, \f, \r.
    c = parse_kernel_cmdline(
        "a=1\xA0"
        "b=2\vc=3\rd");
    REQUIRE(c.params.size() == 4);
    CHECK(c.params[1].value == "2");
    // A quoted "--" is the bare "--" too; "--=x" is a parameter.
    CHECK(parse_kernel_cmdline(R"(ro "--" hugepages=4)").init_args == "hugepages=4");
    CHECK(parse_kernel_cmdline("--=x hugepages=4").params.size() == 2);
}

// kstrtoull(s, 0, ...) against lib/test_kstrtox.c: its test_ull_ok rows (each reads the same
// with base 0, the prefix choosing the base) and its base-0 test_ull_fail rows.
TEST_CASE("kernel numbers: kstrtoul base 0 as lib/test_kstrtox.c checks it") {
    const std::pair<const char*, std::uint64_t> ok[] = {
        {"0", 0},
        {"1", 1},
        {"127", 127},
        {"4294967296", 4294967296ULL},
        {"18446744073709551615", 18446744073709551615ULL},
        {"00", 0},
        {"01", 1},
        {"0177", 0177},
        {"01777777777777777777777", 01777777777777777777777ULL},
        {"0x0", 0},
        {"0x7f", 0x7f},
        {"0xffffffffffffffff", 0xffffffffffffffffULL},
        {"0\n", 0},
    };
    for (const auto& [text, value] : ok) {
        CAPTURE(text);
        CHECK(parse_kernel_ulong(text) == value);
    }
    const char* fail[] = {"",
                          "\n",
                          "\n0",
                          "+",
                          "-",
                          "0x",
                          "0X",
                          "0 ",
                          "1+",
                          "1-",
                          " 2",
                          "0x0z",
                          "0z",
                          "a",
                          "-0",
                          "-1",
                          "-+1",
                          "0\n0",
                          "0\n+",
                          "0\n-",
                          "0\n ",
                          "18446744073709551616",
                          "0x10000000000000000"};
    for (const char* text : fail) {
        CAPTURE(text);
        CHECK_FALSE(parse_kernel_ulong(text).has_value());
    }
}

// hugepage_alloc_threads_setup() (mm/hugetlb.c) keeps the count it had for 0 and for what
// kstrtoul() refuses; obsolete_checksetup() (init/main.c) hands it only "name=value".
TEST_CASE("cmdline: hugepage_alloc_threads= as the kernel's handler takes it") {
    struct Row {
        const char* cmdline;
        std::optional<std::uint64_t> threads;
        std::vector<std::string> ignored;
    };
    const Row rows[] = {
        {"", std::nullopt, {}},
        {"hugepage_alloc_threads=8", 8, {}},
        {"hugepage_alloc_threads=8 hugepage_alloc_threads=0", 8, {"0"}},
        {"hugepage_alloc_threads=8 hugepage_alloc_threads=abc", 8, {"abc"}},
        {"hugepage_alloc_threads=8 hugepage_alloc_threads==4", 8, {"=4"}},
        {"hugepage_alloc_threads=8 hugepage_alloc_threads=-1", 8, {"-1"}},
        {"hugepage_alloc_threads=8 hugepage_alloc_threads", 8, {}},
        {"hugepage_alloc_threads", std::nullopt, {}},
        {"hugepage_alloc_threads=0", std::nullopt, {"0"}},
        {"hugepage_alloc_threads=0x8", 8, {}},
        {"hugepage_alloc_threads=+8", 8, {}},
        {"hugepage_alloc_threads=010", 8, {}},
        {"hugepage_alloc_threads=08", std::nullopt, {"08"}},
        {R"(hugepage_alloc_threads="16")", 16, {}},
        {R"("hugepage_alloc_threads=16")", 16, {}},
        {R"(hugepage_alloc_threads=8 hugepage_alloc_threads=1"6")", 8, {R"(1"6")"}},
        {R"(hugepage_alloc_threads=8 hugepage_"alloc_threads"=16)", 8, {}},
        {"hugepage_alloc_threads=4 hugepage-alloc-threads=16", 16, {}},
        {"hugepage_alloc_threads=4 -- hugepage_alloc_threads=16", 4, {}},
    };
    for (const auto& row : rows) {
        CAPTURE(row.cmdline);
        const auto got = kernel_alloc_threads(std::string_view(row.cmdline));
        CHECK(got.threads == row.threads);
        CHECK(got.ignored == row.ignored);
    }
    CHECK(kernel_alloc_threads(std::string_view("hugepage_alloc_threads=0x8")).value == "0x8");
    CHECK(kernel_alloc_threads(std::string_view("hugepage_alloc_threads=abc")).shown() == "abc");
    CHECK(
        kernel_alloc_threads(std::string_view("hugepage_alloc_threads=8 hugepage_alloc_threads=0"))
            .shown() == "8");
}
