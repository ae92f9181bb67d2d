// What the command line makes of an error (cli/cli.hpp current_error): hugetune's typed errors
// keep their exit code, a broken invariant of its own code is an internal error with its own
// code and says so, anything else is a runtime failure.
#include <doctest/doctest.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "cli/cli.hpp"
#include "model/errors.hpp"
#include "model/input/json_text.hpp"
#include "tuner/boot/shell_fragment.hpp"

using namespace hugetune;
using namespace hugetune::cli;

namespace {

ErrorReport report_of(const std::function<void()>& thrower) {
    try {
        thrower();
    } catch (const std::exception&) {
        return current_error();
    }
    FAIL("nothing was thrown");
    return {};
}

}  // namespace

TEST_CASE("error report: a broken invariant is an internal error, not the user's mistake") {
    for (const auto& thrower : std::vector<std::function<void()>>{
             [] { throw std::logic_error("no command frobnicate"); },
             [] { throw std::out_of_range("no command frobnicate"); },
             [] { throw std::invalid_argument("no command frobnicate"); }}) {
        const ErrorReport r = report_of(thrower);
        CHECK(r.code == ExitCode::internal);
        CHECK(static_cast<int>(r.code) == 70);
        CHECK_FALSE(r.typed);
        CHECK(r.message.find("internal error: no command frobnicate; this is a bug in hugetune") ==
              0);
        CHECK(r.message.find("report it with the command line") != std::string::npos);
    }
}

TEST_CASE("error report: typed errors keep their code, other failures are runtime failures") {
    const ErrorReport usage = report_of([] { throw UsageError("--x: bad"); });
    CHECK(usage.code == ExitCode::usage);
    CHECK(usage.typed);
    CHECK(usage.message == "--x: bad");
    const ErrorReport busy = report_of([] { throw BusyError("held"); });
    CHECK(busy.code == ExitCode::busy);
    const ErrorReport other = report_of([] { throw std::runtime_error("disk full"); });
    CHECK(other.code == ExitCode::failure);
    CHECK_FALSE(other.typed);
    CHECK(other.message == "disk full");
}

TEST_CASE("error report: the readers' own errors are hugetune errors of bad input") {
    const ErrorReport json = report_of([] { model::parse_json_document("{\"a\": "); });
    CHECK(json.code == ExitCode::usage);
    CHECK(json.typed);
    const ErrorReport shell = report_of([] { boot::parse_shell_fragment("rm -rf /\n"); });
    CHECK(shell.code == ExitCode::usage);
    CHECK(shell.typed);
    CHECK(shell.message.find("line 1: ") == 0);
}
