// The typed field reader every user document goes through: paths, types, ranges and the fix.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"

using namespace hugetune::model;

namespace {

template <typename Read>
std::string error_of(Read read) {
    try {
        read();
    } catch (const InputError& e) {
        CHECK_FALSE(e.line());
        return e.what();
    }
    FAIL("no error");
    return {};
}

const nlohmann::json kDoc = nlohmann::json::parse(R"({
    "name": "x", "count": 3, "big": 5000, "negative": -2, "ratio": 0.5, "zero": 0.0,
    "nothing": null, "list": [1.5, "two"], "inner": {"deep": {"value": 7}}})");

}  // namespace

TEST_CASE("json fields: paths name members and elements, from the document down") {
    const JsonField doc(kDoc, "fix it");
    CHECK(doc["inner"]["deep"]["value"].path() == "inner.deep.value");
    CHECK(doc["list"][1].path() == "list[1]");
    CHECK(doc["inner"]["deep"]["value"].whole_number() == 7);
    CHECK(doc["list"][0].positive_number() == 1.5);
    CHECK(doc["list"][1].string() == "two");
    CHECK(doc["list"].array_size() == 2);
    CHECK(doc["name"].string() == "x");
}

TEST_CASE("json fields: every error is '<path>: problem; fix'") {
    const JsonField doc(kDoc, "fix it");
    CHECK(error_of([&] { doc["absent"].string(); }) == "absent: missing; fix it");
    CHECK(error_of([&] { doc["nothing"].positive_number(); }) == "nothing: missing; fix it");
    CHECK(error_of([&] { doc["absent"]["below"][2].string(); }) ==
          "absent.below[2]: missing; fix it");
    CHECK(error_of([&] { doc["count"].string(); }) == "count: must be a string; fix it");
    CHECK(error_of([&] { doc["name"].object(); }) == "name: must be an object; fix it");
    CHECK(error_of([&] { doc["name"].array_size(); }) == "name: must be an array; fix it");
    CHECK(error_of([&] { doc["name"].positive_number(); }) == "name: must be a number; fix it");
    CHECK(error_of([&] { doc["zero"].positive_number(); }) == "zero: must be above 0; fix it");
    CHECK(error_of([&] { doc["ratio"].whole_number(); }) ==
          "ratio: must be a whole number; fix it");
    CHECK(error_of([&] { doc["negative"].whole_number(); }) ==
          "negative: must be at least 1; fix it");
    CHECK(error_of([&] {
              doc["big"].whole_number({1, 4096});
          }) == "big: must be a whole number from 1 to 4096; fix it");
    CHECK(error_of([&] { doc["big"].with_fix("another way").fail("odd"); }) ==
          "big: odd; another way");
    CHECK(error_of([&] { JsonField(nlohmann::json()).fail("empty"); }) == "document: empty");
}

TEST_CASE("json fields: optional fields and hints") {
    const JsonField doc(kDoc);
    CHECK_FALSE(doc["absent"].optional_string());
    CHECK_FALSE(doc["nothing"].optional_positive_number());
    CHECK(doc["ratio"].optional_positive_number() == 0.5);
    CHECK(error_of([&] { doc["name"].optional_positive_number(); }) == "name: must be a number");
    // A hint never fails: of another type or absent, it is simply not there.
    CHECK_FALSE(doc["name"].hint<int>());
    CHECK_FALSE(doc["absent"]["deeper"].hint<bool>());
    CHECK(doc["count"].hint<int>() == 3);
    CHECK(doc["list"].hint_size() == 2);
    CHECK(doc["name"].hint_size() == 0);
}
