// The kernel file accessors (tuner/kernel/kernel_files.hpp) on a gathered fixture tree and on
// a tree that lacks the files.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/unit/support/fixtures.hpp"
#include "tuner/kernel/kernel_files.hpp"

using namespace hugetune;

TEST_CASE("release, command line and meminfo counters of a fixture tree") {
    const KernelFs fs(test::fixture("skylake-4node"));
    CHECK(running_kernel_release(fs) == "6.15.0-hugetune-fixture");
    auto cmdline = running_kernel_cmdline(fs);
    REQUIRE(cmdline);
    CHECK(cmdline->starts_with("BOOT_IMAGE=/vmlinuz-6.15.0 "));
    CHECK(system_meminfo_bytes(fs, "MemTotal") == 1342177280ULL * 1024);
    CHECK(system_meminfo_bytes(fs, "MemAvailable") == 1207959552ULL * 1024);
    CHECK(system_meminfo_bytes(fs, "Hugepagesize") == 2048ULL * 1024);
    CHECK(node_meminfo_bytes(fs, 1, "MemFree") == 301989888ULL * 1024);
    CHECK_FALSE(system_meminfo_bytes(fs, "NoSuchCounter"));
    CHECK_FALSE(node_meminfo_bytes(fs, 99, "MemFree"));
}

TEST_CASE("a tree without the files gives nothing, never a default") {
    const KernelFs fs(test::fixture("skylake-4node") / "proc" / "sys");
    CHECK_FALSE(running_kernel_release(fs));
    CHECK_FALSE(running_kernel_cmdline(fs));
    CHECK_FALSE(system_meminfo_bytes(fs, "MemTotal"));
}

TEST_CASE("meminfo text: system and node lines, a key that is the end of another") {
    CHECK(meminfo_bytes("MemTotal:  10 kB\nMemFree:  4 kB\n", "MemFree") == 4096);
    CHECK(meminfo_bytes("Node 0 MemFree:        8 kB\n", "MemFree") == 8192);
    CHECK(meminfo_bytes("HugePages_Total:  3\n", "Total") == std::nullopt);
    CHECK(meminfo_bytes("MemFree: lots\n", "MemFree") == std::nullopt);
    CHECK(meminfo_bytes("", "MemFree") == std::nullopt);
}
