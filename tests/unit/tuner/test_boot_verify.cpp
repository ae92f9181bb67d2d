#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tuner/boot/boot_verify.hpp"
#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/kernel_fs.hpp"

using namespace hugetune;
using namespace hugetune::boot;

namespace {

std::vector<std::string> log_fixture(const std::string& name) {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/tests/fixtures/boot/logs/" + name);
    REQUIRE(in);
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line))
        out.push_back(strip_kernel_log_prefix(line));
    return out;
}

bool mentions(const std::vector<std::string>& v, const std::string& what) {
    for (const auto& s : v)
        if (s.find(what) != std::string::npos)
            return true;
    return false;
}

const std::string kCmdline32 =
    "BOOT_IMAGE=/vmlinuz-6.15.0 root=/dev/sda1 hugepagesz=2M hugepages=524288 "
    "hugepage_alloc_threads=32\n";

}  // namespace

TEST_CASE("the allocation line in dmesg and kmsg form, both parameter spellings") {
    auto line = find_boot_allocation_line(log_fixture("dmesg-6.15-threads32.log"));
    REQUIRE(line);
    CHECK(line->milliseconds == 706);
    CHECK(line->threads == 32);
    auto kmsg = find_boot_allocation_line(log_fixture("kmsg-6.15-threads16.log"));
    REQUIRE(kmsg);
    CHECK(kmsg->milliseconds == 1210);
    CHECK(kmsg->threads == 16);
    CHECK(!find_boot_allocation_line(
        {"HugeTLB: allocation took ms with hugepage_allocation_threads=3"}));
}

TEST_CASE("verified: the line, the applied value on the command line, the ratio") {
    VerifyInput in;
    in.log = log_fixture("dmesg-6.15-threads32.log");
    in.cmdline = kCmdline32;
    in.release = "6.15.0";
    in.applied = 32;
    in.predicted_ms = 650;
    auto r = verify_boot(in);
    CHECK(r.verified);
    REQUIRE(r.ratio);
    CHECK(*r.ratio == doctest::Approx(706.0 / 650.0));
    in.applied = 16;
    r = verify_boot(in);
    CHECK(!r.verified);
    CHECK(mentions(r.problems, "not the applied 16"));
}

TEST_CASE("no line: the reason that applies") {
    VerifyInput in;
    in.log = log_fixture("dmesg-6.12.log");
    in.cmdline = kCmdline32;
    in.release = "6.12.9";
    CHECK(mentions(verify_boot(in).problems, "older than 6.15"));
    in.release = "6.15.0";
    in.log = log_fixture("dmesg-rotated.log");
    CHECK(mentions(verify_boot(in).problems, "no longer reaches back"));
    in.cmdline = "root=/dev/sda1 hugepages=0:512,1:512 hugepage_alloc_threads=32";
    CHECK(mentions(verify_boot(in).problems, "node-format"));
    in.cmdline = "root=/dev/sda1 hugepage_alloc_threads=32";
    CHECK(mentions(verify_boot(in).problems, "no boot-time huge page pool"));
    in.cmdline = "hugepagesz=1G hugepages=64 hugepage_alloc_threads=32";
    CHECK(mentions(verify_boot(in).problems, "only gigantic pages"));
    in.cmdline = kCmdline32;
    in.log = log_fixture("dmesg-6.15-failed.log");
    CHECK(mentions(verify_boot(in).problems, "allocation failed"));
    in.log = {};
    CHECK(mentions(verify_boot(in).problems, "no kernel log"));
}

TEST_CASE("boot pool facts") {
    auto f = boot_pool_facts(
        parse_kernel_cmdline("hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=0:8"));
    CHECK(f.pool_requested);
    CHECK(f.node_format);
    CHECK(!f.threaded_pool);
    CHECK(!f.only_gigantic);
    f = boot_pool_facts(parse_kernel_cmdline("default_hugepagesz=1G hugepages=4"));
    CHECK(f.only_gigantic);
    // The first hugepages= of a size counts; the kernel ignores the repeat.
    f = boot_pool_facts(parse_kernel_cmdline("hugepages=0 hugepages=8"));
    CHECK(!f.pool_requested);
    f = boot_pool_facts(parse_kernel_cmdline("hugepages=8 hugepages=0"));
    CHECK(f.pool_requested);
}

TEST_CASE("boot pool requests: sizes, node format, bad counts and repeats") {
    auto r = read_boot_requests(
        parse_kernel_cmdline("hugepagesz=1G hugepages=0:2,1:2 hugepagesz=2M hugepages=512"), 2048);
    REQUIRE(r.size() == 2);
    CHECK(r[0].size_kb == 1048576);
    CHECK(r[0].pages == 4);
    CHECK(r[0].node_format);
    CHECK(r[1].size_kb == 2048);
    CHECK(r[1].pages == 512);
    CHECK_FALSE(r[1].node_format);
    r = read_boot_requests(parse_kernel_cmdline("default_hugepagesz=1G hugepages=8"), 2048);
    REQUIRE(r.size() == 1);
    CHECK(r[0].size_kb == 1048576);
    CHECK(read_boot_requests(parse_kernel_cmdline("hugepages=lots"), 2048).empty());
    // The kernel keeps the first hugepages= of a size and ignores a repeat
    // (docs/kernel-facts.md "hugepagesz= and hugepages= pairs").
    r = read_boot_requests(parse_kernel_cmdline("hugepages=8 hugepages=16"), 2048);
    REQUIRE(r.size() == 1);
    CHECK(r[0].pages == 8);
    r = read_boot_requests(
        parse_kernel_cmdline("hugepagesz=2M hugepages=8 hugepagesz=1G hugepages=2 hugepagesz=2M "
                             "hugepages=16"),
        2048);
    REQUIRE(r.size() == 2);
    CHECK(r[0].pages == 8);
    // The count is read as decimal digits, as sscanf("%lu") does: "0x10" is 0 pages, "010" 10.
    r = read_boot_requests(parse_kernel_cmdline("hugepages=0x10"), 2048);
    REQUIRE(r.size() == 1);
    CHECK(r[0].pages == 0);
    r = read_boot_requests(parse_kernel_cmdline("hugepages=010"), 2048);
    REQUIRE(r.size() == 1);
    CHECK(r[0].pages == 10);
    r = read_boot_requests(parse_kernel_cmdline("hugepages=0:0x10,1:8"), 2048);
    REQUIRE(r.size() == 1);
    CHECK(r[0].pages == 0);  // the kernel stops at the 'x' and ignores the rest
    CHECK(read_boot_requests(parse_kernel_cmdline("hugepages=x12"), 2048).empty());
    // The first default_hugepagesz= counts; the kernel ignores a second one.
    r = read_boot_requests(
        parse_kernel_cmdline("default_hugepagesz=1G default_hugepagesz=2M hugepages=4"), 2048);
    REQUIRE(r.size() == 1);
    CHECK(r[0].size_kb == 1048576);
}
