// The readers of option values every command shares: a list of thread counts and a size in GiB,
// each refused with one message whichever command takes it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "model/errors.hpp"

using namespace hugetune;
using namespace hugetune::cli;

namespace {

std::string refusal_of_threads(const std::string& text) {
    try {
        parse_thread_list("--threads", text);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(accepted)";
}

std::string refusal_of_gib(const std::string& text) {
    try {
        parse_gib("--gib", text, "64");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(accepted)";
}

}  // namespace

TEST_CASE("--threads: a list of counts, the range left to the command") {
    CHECK(parse_thread_list("--threads", "1,2,4,8") == std::vector<int>{1, 2, 4, 8});
    CHECK(parse_thread_list("--threads", "0,100000") == std::vector<int>{0, 100000});
    CHECK(refusal_of_threads("1,x") ==
          "--threads: 'x' is not a thread count; give a list like 1,2,4,8");
    CHECK(refusal_of_threads("1,-2") ==
          "--threads: '-2' is not a thread count; give a list like 1,2,4,8");
    const std::string empty_item =
        "' has an empty item; separate the values by single commas, "
        "with none before the first or after the last";
    for (const char* list : {",", "2,", ",2", "1,,2"}) {
        CAPTURE(list);
        CHECK(refusal_of_threads(list) == "--threads: '" + std::string(list) + empty_item);
    }
    CHECK(refusal_of_threads("") == "--threads: give a list like 1,2,4,8");
}

TEST_CASE("sizes in GiB: positive finite decimal numbers, one message for the rest") {
    CHECK(parse_gib("--gib", "64", "64") == 64);
    CHECK(parse_gib("--gib", "0.5", "64") == 0.5);
    CHECK(parse_gib("--gib", "1e3", "64") == 1000);
    for (const char* bad : {"0", "-1", "nan", "inf", "", "abc", "12x", " 8", "+8", "0x10"}) {
        CAPTURE(bad);
        CHECK(refusal_of_gib(bad) ==
              "--gib: give a positive size in GiB, e.g. 64; '" + std::string(bad) + "' is not one");
    }
}

TEST_CASE("a GiB option's value is read when the options are parsed") {
    double gib = 0;
    po::options_description desc;
    desc.add_options()("first-touch-gib", gib_value("--first-touch-gib", gib, "64"), "size");
    const auto parse = [&](const std::vector<std::string>& args) {
        po::variables_map vm;
        po::store(po::command_line_parser(args).options(desc).run(), vm);
        po::notify(vm);
        return vm;
    };
    CHECK(parse({"--first-touch-gib", "8"}).count("first-touch-gib") == 1);
    CHECK(gib == 8);
    CHECK(parse({}).count("first-touch-gib") == 0);
    CHECK_THROWS_WITH_AS(parse({"--first-touch-gib", "0"}),
                         "--first-touch-gib: give a positive size in GiB, e.g. 64; '0' is not one",
                         UsageError);
}
