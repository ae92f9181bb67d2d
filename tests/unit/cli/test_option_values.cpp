// The readers of option values every command shares: a list of thread counts, refused with one
// message whichever command takes it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "tuner/system/errors.hpp"

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

}  // namespace

TEST_CASE("--threads: a list of counts, the range left to the command") {
    CHECK(parse_thread_list("--threads", "1,2,4,8") == std::vector<int>{1, 2, 4, 8});
    CHECK(parse_thread_list("--threads", "2,") == std::vector<int>{2});
    CHECK(parse_thread_list("--threads", "0,100000") == std::vector<int>{0, 100000});
    CHECK(refusal_of_threads("1,x") ==
          "--threads: 'x' is not a thread count; give a list like 1,2,4,8");
    CHECK(refusal_of_threads("1,-2") ==
          "--threads: '-2' is not a thread count; give a list like 1,2,4,8");
    CHECK(refusal_of_threads(",") ==
          "--threads: '' is not a thread count; give a list like 1,2,4,8");
    CHECK(refusal_of_threads("") == "--threads: give a list like 1,2,4,8");
}
