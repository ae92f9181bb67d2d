// The JSON documents hugetune reads: the fast reader of the plain part (json_plain.hpp) against
// nlohmann/json's own parser, on texts made to break it and on every document the repository
// ships, whole, cut short and with bytes changed. The fast reader must either build the very
// document the parser builds (value types and the bits of every double included) or give up;
// it must never take a text the parser refuses.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/input/fit_input.hpp"
#include "model/input/json_plain.hpp"
#include "model/input/json_text.hpp"

using namespace hugetune::model;
using json = nlohmann::json;

namespace {

// Equal as documents and in every value's type: 1, 1u and 1.0 differ here, as do 0.0 and -0.0.
bool same(const json& a, const json& b) {
    if (a.type() != b.type())
        return false;
    switch (a.type()) {
        case json::value_t::object: {
            if (a.size() != b.size())
                return false;
            for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
                if (i.key() != j.key() || !same(*i, *j))
                    return false;
            return true;
        }
        case json::value_t::array:
            if (a.size() != b.size())
                return false;
            for (std::size_t i = 0; i < a.size(); ++i)
                if (!same(a[i], b[i]))
                    return false;
            return true;
        case json::value_t::number_float: {
            const double x = a.get<double>(), y = b.get<double>();
            return std::memcmp(&x, &y, sizeof x) == 0;
        }
        default:
            return a == b;
    }
}

std::optional<json> reference(const std::string& text) {
    try {
        return json::parse(text);
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

// The property, for one text: what the fast reader builds, the parser builds too.
void check_text(const std::string& text) {
    const auto fast = read_plain_json(text);
    if (!fast)
        return;  // left to the full parser: always allowed
    const auto slow = reference(text);
    INFO("text: " << text.substr(0, 200));
    REQUIRE(slow.has_value());
    CHECK(same(*fast, *slow));
    // The text written beside it is dump()'s, with any one top-level member left out: the
    // first, the last, one of the middle or none.
    std::vector<std::string> omitted = {"", "verification"};
    if (slow->is_object() && !slow->empty()) {
        omitted.push_back(slow->begin().key());
        omitted.push_back(std::prev(slow->end()).key());
        omitted.push_back(std::next(slow->begin(), static_cast<long>(slow->size() / 2)).key());
    }
    for (const auto& omit : omitted) {
        CompactText compact;
        compact.omit = omit;
        REQUIRE(read_plain_json(text, std::numeric_limits<std::size_t>::max(), &compact));
        if (!compact.written)
            continue;  // keys out of dump()'s order: the caller dumps
        json expected = *slow;
        if (expected.is_object())
            expected.erase(omit);
        INFO("omitted: " << omit);
        CHECK(compact.text == expected.dump());
    }
}

// A text whose keys are out of order is read, and its compact text not written.
void check_unordered(const std::string& text) {
    CompactText compact;
    REQUIRE(read_plain_json(text, std::numeric_limits<std::size_t>::max(), &compact));
    CHECK_FALSE(compact.written);
    CHECK(compact.text.empty());
}

std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Shipped {
    std::string text;
    bool written_by_hugetune;  // a report or sweep, not a schema (whose patterns hold escapes)
};

// The JSON documents the repository ships: reports, sweeps, schemas.
std::vector<Shipped> shipped_documents() {
    std::vector<Shipped> texts;
    const std::filesystem::path root(HUGETUNE_SOURCE_DIR);
    for (const char* dir : {"tests/data", "tests/fixtures", "model/documents/schema"}) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root / dir))
            if (entry.is_regular_file() && entry.path().extension() == ".json")
                texts.push_back(
                    {file_text(entry.path()), std::string(dir) != "model/documents/schema"});
    }
    return texts;
}

}  // namespace

TEST_CASE("json text: the plain part is read as nlohmann/json reads it, types included") {
    for (const char* text : {"0",
                             "-0",
                             "7",
                             "-7",
                             "0.0",
                             "-0.0",
                             "1.5",
                             "1e2",
                             "1E+2",
                             "1e-2",
                             "2.5e-3",
                             "18446744073709551615",
                             "-9223372036854775808",
                             "9223372036854775808",
                             "1.7976931348623157e308",
                             "4.9e-324",
                             "0.1",
                             "123456789.123456789",
                             "true",
                             "false",
                             "null",
                             "\"\"",
                             "\"host-1.example\"",
                             "[]",
                             "{}",
                             "[[]]",
                             "[{}]",
                             "{\"a\":{}}",
                             " \t\r\n[ 1 , 2 ,\n3 ] \n",
                             "{\"b\":1,\"a\":[true,false,null,\"x\",{\"c\":-1}]}",
                             "[1,-1,1.0,-1.0,1e0]",
                             "{\"z\":0,\"y\":1,\"x\":2}"}) {
        INFO(text);
        const auto fast = read_plain_json(text);
        REQUIRE(fast.has_value());
        CHECK(same(*fast, json::parse(text)));
        check_text(text);
    }
}

TEST_CASE("json text: the compact text written while reading is dump()'s") {
    const auto compact_of = [](const std::string& text, const std::string& omit) {
        CompactText compact;
        compact.omit = omit;
        REQUIRE(read_plain_json(text, std::numeric_limits<std::size_t>::max(), &compact));
        REQUIRE(compact.written);
        return compact.text;
    };
    // Numbers as dump() writes them, whatever the text wrote; space gone.
    CHECK(compact_of("[ -0, 1E+2, 1.50, 2.5e-3, -0.0, 0.1, 1e300, 18446744073709551615 ]", "") ==
          "[0,100.0,1.5,0.0025,-0.0,0.1,1e+300,18446744073709551615]");
    // The member left out, wherever it stands; a nested one of that name stays.
    const std::string doc =
        R"({"a":{"verification":1},"m":[{}],"verification":{"x":[1,2]},"z":"s"})";
    CHECK(compact_of(doc, "verification") == R"({"a":{"verification":1},"m":[{}],"z":"s"})");
    CHECK(compact_of(doc, "a") == R"({"m":[{}],"verification":{"x":[1,2]},"z":"s"})");
    CHECK(compact_of(doc, "z") ==
          R"({"a":{"verification":1},"m":[{}],"verification":{"x":[1,2]}})");
    CHECK(compact_of(R"({"verification":[1]})", "verification") == "{}");
    CHECK(compact_of(R"({"":1,"a":2})", "") == R"({"":1,"a":2})");
    // Keys out of dump()'s order, at any depth: read, but no text.
    check_unordered(R"({"b":1,"a":2})");
    check_unordered(R"({"a":{"y":1,"x":2}})");
    check_unordered(R"([{"z":0,"y":1}])");
    check_unordered(R"({"a":1,"B":2})");  // 'B' sorts before 'a'
}

TEST_CASE("json text: anything beyond the plain part is left to the full parser") {
    // Outside the plain part but good JSON: the fast reader gives up, the document is the same.
    for (const char* text : {"\"a\\nb\"", "\"\\u00e9\"", "\"caf\xc3\xa9\"", "18446744073709551616",
                             "-9223372036854775809", "[\"\\\"\"]"}) {
        INFO(text);
        CHECK_FALSE(read_plain_json(text).has_value());
        CHECK(same(parse_json_document(text), json::parse(text)));
    }
    // Refused by the parser, so never taken by the fast reader; the message is the parser's.
    for (const char* text : {"",
                             " ",
                             "01",
                             "-",
                             "-a",
                             "1.",
                             ".5",
                             "+1",
                             "1e",
                             "1e+",
                             "0x1",
                             "1 2",
                             "[1,]",
                             "[1,,2]",
                             "{\"a\":1,}",
                             "{\"a\" 1}",
                             "{a:1}",
                             "{\"a\":1",
                             "[1",
                             "[",
                             "{",
                             "\"open",
                             "tru",
                             "nul",
                             "falsey",
                             "[]]",
                             "{}}",
                             "\"\x01\"",
                             "\"\\x\"",
                             "\"\\ud800\"",
                             "\xef\xbb\xbf{}x",
                             "1e999",
                             "-1e999",
                             "[1e999]",
                             "NaN",
                             "Infinity",
                             "{\"a\":1}{}",
                             "\"a\"\"b\""}) {
        INFO(text);
        CHECK_FALSE(read_plain_json(text).has_value());
        CHECK_THROWS_AS(parse_json_document(text), JsonTextError);
    }
    // Beyond a double's range below: whichever reads it, the same value.
    CHECK(same(parse_json_document("1e-400"), json::parse("1e-400")));
    check_text("1e-400");
    // A key twice: left to the full reader, which refuses it by name.
    CHECK_FALSE(read_plain_json("{\"a\":1,\"a\":2}").has_value());
    CHECK_THROWS_WITH_AS(parse_json_document("{\"a\":{\"b\":1,\"b\":1}}"),
                         "key 'b' appears twice in one object", JsonTextError);
}

TEST_CASE("json text: depth costs no stack, in either reader") {
    const std::size_t depth = 200000;
    const std::string arrays = std::string(depth, '[') + std::string(depth, ']');
    const auto fast = read_plain_json(arrays);
    REQUIRE(fast.has_value());
    const json* at = &*fast;
    std::size_t seen = 0;
    while (at->is_array() && !at->empty()) {
        at = &(*at)[0];
        ++seen;
    }
    CHECK(seen == depth - 1);
    std::string objects;
    for (std::size_t i = 0; i < depth; ++i)
        objects += "{\"k\":";
    objects += "0" + std::string(depth, '}');
    CHECK(read_plain_json(objects).has_value());
    CHECK_THROWS_AS(parse_json_document(objects.substr(0, objects.size() - 1)), JsonTextError);
}

TEST_CASE("json text: one size and one depth for every document, whichever reader reads it") {
    const auto beyond = [](const std::string& text, const json::parser_callback_t& callback) {
        try {
            parse_json_document(text, callback);
        } catch (const JsonTextError& e) {
            CHECK(e.beyond_bounds());
            return std::string(e.what());
        }
        FAIL("accepted");
        return std::string();
    };
    const auto every = [](int, json::parse_event_t, json&) { return true; };
    const std::string at = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
    CHECK(parse_json_document(at).is_array());
    CHECK(parse_json_document(at, every).is_array());
    const std::string too_deep = "objects and arrays nested deeper than 64";
    CHECK(beyond("[" + at + "]", nullptr) == too_deep);
    CHECK(beyond("[" + at + "]", every) == too_deep);
    // Objects too, and where the fast reader gives up (an escape) the full one holds the bound.
    std::string objects;
    for (std::size_t i = 0; i <= kMaxJsonDepth; ++i)
        objects += "{\"k\":";
    CHECK(beyond(objects + "0" + std::string(kMaxJsonDepth + 1, '}'), nullptr) == too_deep);
    CHECK(beyond(objects + "\"\\n\"" + std::string(kMaxJsonDepth + 1, '}'), nullptr) == too_deep);
    const std::string large(kMaxInputBytes + 1, ' ');
    CHECK(beyond(large, nullptr) == "larger than 64 MiB");
    CHECK(beyond(large, every) == "larger than 64 MiB");
}

TEST_CASE("json text: every shipped document, whole, cut short and with bytes changed") {
    const auto texts = shipped_documents();
    REQUIRE(texts.size() >= 4);
    std::mt19937_64 random(20261202);
    const std::string replacements("0123456789-+.eE,:[]{}\"\\ \ntfn\x01\x7f\x80\xff");
    std::size_t written = 0, taken_whole = 0, cases = 0;
    for (const auto& [text, by_hugetune] : texts) {
        // The reports and sweeps hugetune writes: the fast reader must take them, or it gains
        // nothing.
        written += by_hugetune ? 1 : 0;
        if (by_hugetune && read_plain_json(text))
            ++taken_whole;
        check_text(text);
        std::uniform_int_distribution<std::size_t> position(0, text.size() - 1);
        std::uniform_int_distribution<std::size_t> pick(0, replacements.size() - 1);
        for (int i = 0; i < 300; ++i, cases += 3) {
            const std::size_t at = position(random);
            check_text(text.substr(0, at));
            std::string changed = text;
            changed[at] = replacements[pick(random)];
            check_text(changed);
            std::string dropped = text;
            dropped.erase(at, 1);
            check_text(dropped);
        }
    }
    CHECK(written >= 3);
    CHECK(taken_whole == written);
    MESSAGE(cases << " changed texts over " << texts.size() << " documents");
}
