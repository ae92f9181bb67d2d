#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "tuner/boot/unified_diff.hpp"
#include "tuner/system/process.hpp"

using hugetune::boot::unified_diff;

TEST_CASE("unified diff: hunks, context, missing final newline") {
    CHECK(unified_diff("a\n", "a\n", "x", "y").empty());
    CHECK(unified_diff("a\nb\nc\n", "a\nB\nc\n", "a/f", "b/f") ==
          "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    CHECK(unified_diff("", "x\n", "a/f", "b/f") == "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n");
    CHECK(unified_diff("x", "x\ny\n", "a/f", "b/f") ==
          "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-x\n\\ No newline at end of file\n+x\n+y\n");
}

// GNU diff is the reference where it is installed: the hunks (everything after the two
// header lines, which carry timestamps there) must be identical.
TEST_CASE("unified diff matches diff -u") {
    if (!hugetune::program_exists("diff"))
        return;
    std::string a, b;
    for (int i = 0; i < 40; ++i) {
        a += "line " + std::to_string(i) + "\n";
        if (i % 13 == 5)
            b += "changed " + std::to_string(i) + "\n";
        else if (i % 17 == 3)
            continue;
        else
            b += "line " + std::to_string(i) + "\n";
        if (i == 30)
            b += "inserted\n";
    }
    auto dir =
        std::filesystem::temp_directory_path() / ("hugetune-diff-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "a") << a;
    std::ofstream(dir / "b") << b;
    auto r = hugetune::run_program({"diff", "-u", (dir / "a").string(), (dir / "b").string()});
    std::filesystem::remove_all(dir);
    REQUIRE(r.exit_code == 1);
    auto body = [](const std::string& d) { return d.substr(d.find("@@")); };
    CHECK(body(unified_diff(a, b, "a", "b")) == body(r.out));
}

TEST_CASE("a file name or line cannot forge a line of the diff or reach the terminal raw") {
    const std::string name = "/etc/default/grub.d/\x1b]0;x\a\n+GRUB_CMDLINE_LINUX=\"evil\".cfg";
    const std::string d = unified_diff("a\x1b[2J\rb\nkeep\n", "c\nkeep\n", "a" + name, "b" + name);
    CHECK(d ==
          "--- a/etc/default/grub.d/\\x1b]0;x\\x07\\n+GRUB_CMDLINE_LINUX=\"evil\".cfg\n"
          "+++ b/etc/default/grub.d/\\x1b]0;x\\x07\\n+GRUB_CMDLINE_LINUX=\"evil\".cfg\n"
          "@@ -1,2 +1,2 @@\n"
          "-a\\x1b[2J\\rb\n"
          "+c\n"
          " keep\n");
    CHECK(unified_diff("a", "b\x1b", "a", "b").find("+b\\x1b\n\\ No newline at end of file\n") !=
          std::string::npos);
}
