// How numbers read: one format per kind of value, across the range each one takes.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <ctime>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "model/text.hpp"

using namespace hugetune;

TEST_CASE("durations: microseconds for a fault up to minutes of boot allocation") {
    CHECK(seconds_text(0) == "0 s");
    CHECK(seconds_text(85.3e-6) == "85.3 us");
    CHECK(seconds_text(0.5e-6) == "0.5 us");
    CHECK(seconds_text(0.0321) == "32.1 ms");
    CHECK(seconds_text(0.0064) == "6.4 ms");
    CHECK(seconds_text(0.2) == "200.0 ms");
    CHECK(seconds_text(3.24) == "3.24 s");
    CHECK(seconds_text(12.46) == "12.5 s");
    CHECK(seconds_text(59.9) == "59.9 s");
    CHECK(seconds_text(60) == "1 min 0 s");
    // Tiny and huge values keep a readable number and their unit.
    CHECK(seconds_text(1e-10) == "0.1 ns");
    CHECK(seconds_text(1.5e-13) == "1.5e-13 s");
    CHECK(seconds_text(7500) == "2 h 5 min");
    CHECK(seconds_text(999000) == "277 h 30 min");
    CHECK(seconds_text(9e7) == "9e+07 s");
    CHECK(seconds_text(1e300) == "1e+300 s");
    CHECK(seconds_text(250.4) == "4 min 10 s");
    CHECK(seconds_text(3725) == "62 min 5 s");
}

TEST_CASE("durations: a value that would round up to the next unit's size takes that unit") {
    CHECK(seconds_text(999.96e-6) == "1.0 ms");
    CHECK(seconds_text(0.99996) == "1.00 s");
    CHECK(seconds_text(9.996) == "10.0 s");
    CHECK(seconds_text(59.96) == "1 min 0 s");
    CHECK(seconds_text(999.94e-6) == "999.9 us");
}

TEST_CASE("durations: negative and non-finite values") {
    CHECK(seconds_text(-1.23) == "-1.23 s");
    CHECK(seconds_text(-0.0) == "0 s");
    CHECK(seconds_text(std::numeric_limits<double>::infinity()) == "inf s");
}

TEST_CASE("percentages of a fraction, whole or to given decimals") {
    CHECK(percent_text(0.652) == "65%");
    CHECK(percent_text(0.02) == "2%");
    CHECK(percent_text(1) == "100%");
    CHECK(percent_text(0.0443, 1) == "4.4%");
    CHECK(percent_text(1.5, 1) == "150.0%");
    CHECK(percent_text(0, 1) == "0.0%");
}

TEST_CASE("numbers to fixed decimals or significant digits") {
    CHECK(decimals_text(0.99912, 3) == "0.999");
    CHECK(decimals_text(2, 1) == "2.0");
    CHECK(significant_text(0.0061321, 4) == "0.006132");
    CHECK(significant_text(0.112, 4) == "0.112");
    CHECK(significant_text(123456, 4) == "1.235e+05");
}

TEST_CASE("counts: the noun singular for one, plural otherwise") {
    CHECK(count_text(1, "host") == "1 host");
    CHECK(count_text(0, "host") == "0 hosts");
    CHECK(count_text(2, "run") == "2 runs");
    CHECK(count_text(1, "query", "queries") == "1 query");
    CHECK(count_text(12, "query", "queries") == "12 queries");
}

TEST_CASE("trim removes ASCII blanks at both ends and nothing inside") {
    CHECK(trim("  a b \t\r\n") == "a b");
    CHECK(trim("\t\v\fx") == "x");
    CHECK(trim("x") == "x");
    CHECK(trim(" \r\n\t ").empty());
    CHECK(trim("").empty());
}

TEST_CASE("ascii_lower lowers ASCII capitals alone") {
    CHECK(ascii_lower("WEB-17.Example.COM") == "web-17.example.com");
    CHECK(ascii_lower("4C4C4544-B4C0") == "4c4c4544-b4c0");
    CHECK(ascii_lower("\xc3\x89t\xc3\xa9") == "\xc3\x89t\xc3\xa9");  // UTF-8 as it is
    CHECK(ascii_lower("").empty());
}

TEST_CASE("page sizes and UTC times") {
    CHECK(page_size_text(2048) == "2 MiB");
    CHECK(page_size_text(1024 * 1024) == "1 GiB");
    CHECK(page_size_text(64) == "64 KiB");
    CHECK(iso8601_utc(std::chrono::system_clock::time_point{}) == "1970-01-01T00:00:00Z");
}

TEST_CASE("amounts of memory: MiB, GiB or TiB, whichever keeps the number under 1024") {
    constexpr double kMib = 1024.0 * 1024;
    CHECK(memory_text(512 * kMib) == "512 MiB");
    CHECK(memory_text(1023.5 * kMib) == "1024 MiB");  // four digits, still below 1 GiB
    CHECK(memory_text(1024 * kMib) == "1 GiB");
    CHECK(memory_text(23.66 * 1024 * kMib) == "23.66 GiB");
    CHECK(memory_text(400000 * 2 * kMib) == "781.2 GiB");  // a pool of 400,000 x 2 MiB
    CHECK(memory_text(524288 * 2 * kMib) == "1 TiB");
    CHECK(memory_text(1.5 * 1024 * 1024 * kMib) == "1.5 TiB");
    CHECK(memory_text(94.71 * 1024 * kMib) == "94.71 GiB");
    CHECK(memory_text(0) == "0 MiB");
}

TEST_CASE("page sizes: one unit rule, for people, the kernel's command line and sysfs") {
    struct Case {
        std::uint64_t kb;
        const char *people, *cmdline, *sysfs;
    };
    for (const Case c : {Case{64, "64 KiB", "64K", "64kB"}, Case{2048, "2 MiB", "2M", "2048kB"},
                         Case{32 * 1024, "32 MiB", "32M", "32768kB"},
                         Case{512 * 1024, "512 MiB", "512M", "524288kB"},
                         Case{1024 * 1024, "1 GiB", "1G", "1048576kB"},
                         Case{16 * 1024 * 1024, "16 GiB", "16G", "16777216kB"},
                         Case{1536, "1536 KiB", "1536K", "1536kB"},
                         Case{3 * 1024 * 1024 + 1024, "3073 MiB", "3073M", "3146752kB"},
                         Case{0, "0 KiB", "0K", "0kB"}}) {
        CAPTURE(c.kb);
        CHECK(page_size_text(c.kb, SizeStyle::people) == c.people);
        CHECK(page_size_text(c.kb, SizeStyle::cmdline) == c.cmdline);
        CHECK(page_size_text(c.kb, SizeStyle::sysfs) == c.sysfs);
    }
}

TEST_CASE("join: the items with a separator between them, each as the text function writes it") {
    const std::vector<std::string> sizes = {"2 MiB", "1 GiB"};
    CHECK(join(sizes) == "2 MiB, 1 GiB");
    CHECK(join(sizes, "; ") == "2 MiB; 1 GiB");
    CHECK(join(std::vector<std::string>{}).empty());
    CHECK(join(std::vector<std::string>{"alone"}) == "alone");
    // An empty item still takes its separator: the list keeps its length.
    CHECK(join(std::vector<std::string>{"", "b"}, ",") == ",b");
    const std::array<std::string_view, 3> codes = {"a", "b", "c"};
    CHECK(join(codes, ",") == "a,b,c");
    const std::set<int> counts = {4, 1, 2};
    CHECK(join(counts, ", ", [](int n) { return std::to_string(n); }) == "1, 2, 4");
    CHECK(join(sizes, " and ", [](const std::string& s) { return "[" + s + "]"; }) ==
          "[2 MiB] and [1 GiB]");
}

TEST_CASE("comma items: each item as typed, an empty one kept for the reader to refuse") {
    using Items = std::vector<std::string_view>;
    CHECK(comma_items("1,2,4") == Items{"1", "2", "4"});
    CHECK(comma_items("alloc") == Items{"alloc"});
    CHECK(comma_items("").empty());
    CHECK(comma_items("1,2,") == Items{"1", "2", ""});
    CHECK(comma_items(",1") == Items{"", "1"});
    CHECK(comma_items("1,,2") == Items{"1", "", "2"});
    CHECK(comma_items(",") == Items{"", ""});
    CHECK(comma_items(" 1, 2") == Items{" 1", " 2"});
    // join with "," writes what comma_items reads back, empty items included.
    for (const Items& items : {Items{"a", "b"}, Items{"", "b"}, Items{"a", ""}, Items{"x"}})
        CHECK(comma_items(join(items, ",")) == items);
}

TEST_CASE("printable text: control characters are escaped, everything else is kept") {
    CHECK(printable_text("plain text, naïve: ok\t(tab kept)") ==
          "plain text, naïve: ok\t(tab kept)");
    CHECK(printable_text("\x1b]0;pwned\x07\x1b[2J") == "\\x1b]0;pwned\\x07\\x1b[2J");
    CHECK(printable_text("a\r\nb") == "a\\r\\nb");
    CHECK(printable_text(std::string_view("a\0b", 3)) == "a\\x00b");
    CHECK(printable_text("del\x7f") == "del\\x7f");
    // C1 controls as UTF-8 (U+009B is a CSI on some terminals).
    CHECK(printable_text("\xc2\x9b"
                         "2J") == "\\u009b2J");
    // Escaping is idempotent, so a message escaped where input is echoed and again where it is
    // printed reads the same.
    const std::string once = printable_text("x\x1b[1m\r\n");
    CHECK(printable_text(once) == once);
}

TEST_CASE("printable text: bytes that are not UTF-8 are escaped, so the text fits in JSON") {
    // A host name of Latin-1 bytes, a character cut short, a lone continuation byte, an
    // overlong '/', a surrogate, a code point past U+10FFFF.
    CHECK(printable_text("caf\xe9-host") == "caf\\xe9-host");
    CHECK(printable_text("na\xc3") == "na\\xc3");
    CHECK(printable_text("\x80x") == "\\x80x");
    CHECK(printable_text("\xc0\xaf") == "\\xc0\\xaf");
    CHECK(printable_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");
    CHECK(printable_text("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");
    // Well-formed characters of every length stay.
    CHECK(printable_text("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") ==
          "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    const std::string escaped = printable_text("\xff\xfe web-\xe9");
    CHECK(printable_text(escaped) == escaped);
    CHECK_NOTHROW((void)nlohmann::json(escaped).dump());
}

TEST_CASE("text: an ISO 8601 UTC time as unix seconds, as the C library reads it") {
    CHECK(unix_seconds_of_iso8601_utc("1970-01-01T00:00:00Z") == 0);
    CHECK(unix_seconds_of_iso8601_utc("2000-02-29T12:34:56Z") == 951827696);
    CHECK(unix_seconds_of_iso8601_utc("2026-12-02T05:23:36Z") == 1796189016);
    CHECK(unix_seconds_of_iso8601_utc("9999-12-31T23:59:59Z") == 253402300799);
    CHECK(!unix_seconds_of_iso8601_utc("2026-02-29T00:00:00Z"));
    CHECK(!unix_seconds_of_iso8601_utc("2026-12-02 05:23:36"));
    // Every day of four centuries against timegm, at one time of day.
    for (std::int64_t day = 0; day < 146097; day += 1) {
        const std::time_t t = static_cast<std::time_t>(day * 86400 + 3723);
        std::tm tm{};
        gmtime_r(&t, &tm);
        char text[32];
        std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
        REQUIRE(unix_seconds_of_iso8601_utc(text) == static_cast<std::int64_t>(t));
    }
}
