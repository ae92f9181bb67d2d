// The one root check: running_as_root() is the effective uid, require_root() refuses with the
// caller's words and exit code 3 when it is not root. Run as root, the test also drops to
// nobody in a child process, so both sides are checked against the kernel's own answer.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "model/errors.hpp"
#include "tuner/system/privilege.hpp"

using namespace hugetune;

namespace {

constexpr const char* kRefusal = "a test needs root; run it with sudo";

// 0 when require_root refuses with kRefusal and exit code 3, 1 when it does anything else.
int refusal_check() {
    if (running_as_root())
        return 1;
    try {
        require_root(kRefusal);
    } catch (const NotRootError& e) {
        return std::string(e.what()) == kRefusal && e.code() == ExitCode::not_root ? 0 : 1;
    }
    return 1;
}

// refusal_check() in a child whose effective uid is nobody's (65534).
int refusal_check_as_nobody() {
    const pid_t pid = fork();
    if (pid == 0)
        _exit(seteuid(65534) == 0 ? refusal_check() : 2);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("root: the effective uid decides, and a refusal carries the caller's message") {
    CHECK(running_as_root() == (geteuid() == 0));
    if (!running_as_root()) {
        CHECK(refusal_check() == 0);
        return;
    }
    CHECK_NOTHROW(require_root(kRefusal));
    CHECK(refusal_check_as_nobody() == 0);
}
