// The rows PostgreSQL's COPY takes, byte for byte: the binary format the ingest sends reports
// and hosts in, and the text format of the boot records. That the server stores what they carry
// is tests/cli/lib/fleet.bash groups_suite (every stored column against SQLite's).
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "fleet_db/pg_copy.hpp"

using namespace hugetune::fleet_db::storage;

namespace {

std::string bytes(std::initializer_list<unsigned> values) {
    std::string out;
    for (const unsigned v : values)
        out += static_cast<char>(v);
    return out;
}

}  // namespace

TEST_CASE("a binary row is its column count, then each value's length and bytes, big-endian") {
    std::string out;
    binary_row(out, 13);
    CHECK(out == bytes({0x00, 0x0d}));

    out.clear();
    binary_bigint(out, 0x0102030405060708);
    CHECK(out == bytes({0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8}));
    out.clear();
    binary_bigint(out, -2);
    CHECK(out == bytes({0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}));

    out.clear();
    binary_integer(out, 16);
    CHECK(out == bytes({0, 0, 0, 4, 0, 0, 0, 16}));
    out.clear();
    binary_integer(out, std::numeric_limits<std::int32_t>::min());
    CHECK(out == bytes({0, 0, 0, 4, 0x80, 0, 0, 0}));

    // IEEE 754: 1.5 is 0x3ff8000000000000, -0.1 0xbfb999999999999a.
    out.clear();
    binary_double(out, 1.5);
    CHECK(out == bytes({0, 0, 0, 8, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0}));
    out.clear();
    binary_double(out, -0.1);
    CHECK(out == bytes({0, 0, 0, 8, 0xbf, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a}));

    // Text goes as it is: no escapes, whatever it holds.
    out.clear();
    binary_text(out, "a\tb\\c\nd");
    CHECK(out == bytes({0, 0, 0, 7}) + "a\tb\\c\nd");
    out.clear();
    binary_text(out, "");
    CHECK(out == bytes({0, 0, 0, 0}));

    out.clear();
    binary_null(out);
    CHECK(out == bytes({0xff, 0xff, 0xff, 0xff}));
}

TEST_CASE("a text row escapes what would end a column or a row, and writes null as \\N") {
    std::string out;
    copy_column(out, std::string_view("a\tb\\c\nd\re"));
    copy_column(out, 42LL);
    copy_column(out, 0.1);
    copy_null(out, true);
    CHECK(out == "a\\tb\\\\c\\nd\\re\t42\t0.1\t\\N\n");
}
