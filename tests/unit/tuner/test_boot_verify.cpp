#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tuner/boot/boot_verify.hpp"
#include "tuner/kernel/boot_pool.hpp"
#include "tuner/kernel/kernel_fs.hpp"

using namespace hugetune;
using namespace hugetune::boot;

namespace {

// The buddy allocator's largest block with 4 KiB pages (x86-64, and arm64's usual kernels).
constexpr std::uint64_t kFourKiBBlockKb = model::BuddyAllocator{4, 10}.largest_block_kb();

std::vector<std::string> log_fixture(const std::string& name) {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/tests/fixtures/boot/logs/" + name);
    REQUIRE(in);
    return read_kernel_log(in).messages;
}

bool mentions(const std::vector<Problem>& v, const std::string& what) {
    for (const auto& p : v)
        if (p.message.find(what) != std::string::npos)
            return true;
    return false;
}

std::vector<std::string> codes(const std::vector<Problem>& v) {
    std::vector<std::string> out;
    for (const auto& p : v)
        out.push_back(p.code);
    return out;
}

const std::string kCmdline32 =
    "BOOT_IMAGE=/vmlinuz-6.15.0 root=/dev/sda1 hugepagesz=2M hugepages=524288 "
    "hugepage_alloc_threads=32\n";

}  // namespace

TEST_CASE("the allocation line in dmesg and kmsg form, both parameter spellings") {
    auto lines = find_boot_allocation_lines(log_fixture("dmesg-6.15-threads32.log"));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].milliseconds == 706);
    CHECK(lines[0].threads == 32);
    auto kmsg = find_boot_allocation_lines(log_fixture("kmsg-6.15-threads16.log"));
    REQUIRE(kmsg.size() == 1);
    CHECK(kmsg[0].milliseconds == 1210);
    CHECK(kmsg[0].threads == 16);
    CHECK(find_boot_allocation_lines(
              {"HugeTLB: allocation took ms with hugepage_allocation_threads=3"})
              .empty());
    // The whole message: the kernel's %ld ends it.
    CHECK(find_boot_allocation_lines(
              {"HugeTLB: allocation took 706ms with hugepage_allocation_threads=32xyz"})
              .empty());
    CHECK(find_boot_allocation_lines(
              {"HugeTLB: allocation took 706ms with hugepage_allocation_threads=32 "})
              .size() == 1);
}

TEST_CASE("verified: the line, the applied value on the command line, the ratio") {
    VerifyInput in;
    in.log = log_fixture("dmesg-6.15-threads32.log");
    in.cmdline = kCmdline32;
    in.release = "6.15.0";
    in.applied = 32;
    in.prediction = ReportPrediction{650, 32, 524288, 2048, true};
    auto r = verify_boot(in);
    CHECK(r.verified);
    REQUIRE(r.ratio);
    CHECK(*r.ratio == doctest::Approx(706.0 / 650.0));
    in.applied = 16;
    r = verify_boot(in);
    CHECK(!r.verified);
    CHECK(codes(r.problems) == std::vector<std::string>{"not_applied"});
    CHECK(mentions(r.problems, "not the applied 16"));
}

TEST_CASE("another thread count in the kernel's line than the command line asks for") {
    VerifyInput in;
    in.log = log_fixture("dmesg-6.15-default-threads.log");
    in.cmdline = kCmdline32;
    auto r = verify_boot(in);
    CHECK_FALSE(r.verified);
    CHECK(codes(r.problems) == std::vector<std::string>{"threads_mismatch"});
    CHECK(mentions(r.problems, "the kernel's default max(1, 64 CPUs / 4)"));
    // Without the boot's CPU count the reason stays open; the verdict does not.
    in.log.erase(std::remove_if(in.log.begin(), in.log.end(),
                                [](const std::string& l) { return l.starts_with("smp:"); }),
                 in.log.end());
    r = verify_boot(in);
    CHECK(codes(r.problems) == std::vector<std::string>{"threads_mismatch"});
    CHECK(mentions(r.problems, "not of the same boot"));
    in.online_cpus = 16;
    r = verify_boot(in);
    CHECK(mentions(r.problems, "caps the value at the CPUs"));
    // A command line other than the one the log shows.
    in.log = log_fixture("dmesg-6.15-threads32.log");
    in.cmdline = "root=/dev/sda1 hugepagesz=2M hugepages=524288 hugepage_alloc_threads=2";
    r = verify_boot(in);
    CHECK(codes(r.problems) == std::vector<std::string>{"cmdline_mismatch", "threads_mismatch"});
}

TEST_CASE("the prediction rescaled to the booted pool, or no ratio and why") {
    VerifyInput in;
    in.log = log_fixture("dmesg-6.15-65536-pages.log");
    in.cmdline = "root=/dev/sda1 hugepages=65536 hugepage_alloc_threads=32";
    in.prediction = ReportPrediction{650, 32, 524288, 2048, true};
    auto r = verify_boot(in);
    CHECK(r.verified);
    REQUIRE(r.pool);
    CHECK(r.pool->pages == 65536);
    CHECK(r.pool->page_size_kb == 2048);
    CHECK(r.pool->init_on_alloc == std::optional<bool>(true));
    REQUIRE(r.pool_predicted_ms);
    CHECK(*r.pool_predicted_ms == doctest::Approx(81.25));
    CHECK(*r.ratio == doctest::Approx(90 / 81.25));
    auto refused = [&](ReportPrediction p) {
        in.prediction = p;
        auto result = verify_boot(in);
        CHECK_FALSE(result.ratio);
        CHECK_FALSE(result.pool_predicted_ms);
        return result.ratio_refused ? result.ratio_refused->code : std::string();
    };
    CHECK(refused({650, 32, 524288, 2048, false}) == "init_on_alloc_differs");
    CHECK(refused({650, 32, 512, 1048576, true}) == "page_size_differs");
    CHECK(refused({650, 24, 524288, 2048, true}) == "threads_differ");
    CHECK(refused({650, 32, std::nullopt, std::nullopt, true}) == "report_pool_unknown");
    // Unknown on one side: the pages alone decide.
    in.prediction = ReportPrediction{650, 32, 524288, 2048, std::nullopt};
    CHECK(verify_boot(in).ratio);
}

TEST_CASE("the line of the requested pool, of the last boot in the log") {
    auto arm = log_fixture("dmesg-arm64-6.15-two-sizes.log");
    auto line = allocation_line_for_pool(arm, 2048, kFourKiBBlockKb);
    REQUIRE(line);
    CHECK(line->milliseconds == 96);
    // The 64 KiB pool is empty: its 0 ms line measures nothing.
    CHECK_FALSE(allocation_line_for_pool(arm, 64, kFourKiBBlockKb));
    // A kernel that logs only non-empty pools pairs its one line with the one non-empty size.
    std::vector<std::string> only_filled;
    for (const auto& l : arm)
        if (l.find("took 0ms") == std::string::npos)
            only_filled.push_back(l);
    REQUIRE(allocation_line_for_pool(only_filled, 2048, kFourKiBBlockKb));
    CHECK(allocation_line_for_pool(only_filled, 2048, kFourKiBBlockKb)->milliseconds == 96);
    // Without registered lines: the one line above 0 ms.
    std::vector<std::string> bare = {
        "HugeTLB: allocation took 96ms with hugepage_allocation_threads=8",
        "HugeTLB: allocation took 0ms with hugepage_allocation_threads=8"};
    CHECK(allocation_line_for_pool(bare, 2048, kFourKiBBlockKb)->milliseconds == 96);

    auto pools = find_registered_pools(arm);
    REQUIRE(pools.size() == 4);
    CHECK(pools[0].size_kb == 1048576);
    CHECK(pools[1].size_kb == 32768);
    CHECK(pools[2].size_kb == 2048);
    CHECK(pools[2].pages == 8192);
    CHECK(pools[3].size_kb == 64);

    auto two = log_fixture("dmesg-two-boots.log");
    auto last = two;  // the reader keeps the last boot
    REQUIRE(last.size() == 3);
    auto context = read_boot_log_context(last);
    CHECK(context.release == std::optional<std::string>("6.12.9-amd64"));
    CHECK(context.cmdline->ends_with("hugepage_alloc_threads=32"));
    CHECK(find_boot_allocation_lines(last).empty());
    VerifyInput in;
    in.log = two;
    in.cmdline = kCmdline32;
    in.release = "6.15.0";  // this machine's, not the log's
    auto r = verify_boot(in);
    CHECK_FALSE(r.verified);
    CHECK(codes(r.problems) == std::vector<std::string>{"kernel_too_old"});
    CHECK(r.release == std::optional<std::string>("6.12.9-amd64"));
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

TEST_CASE("no line: the one reason a boot record keeps, and the boot's settings") {
    VerifyInput in;
    auto absent = [&in] {
        const auto r = verify_boot(in);
        CHECK_FALSE(r.line);
        REQUIRE(r.line_absent);
        CHECK(std::any_of(r.problems.begin(), r.problems.end(), [&r](const Problem& p) {
            return p.code == r.line_absent->code && p.message == r.line_absent->message;
        }));
        return r.line_absent->code;
    };
    in.log = log_fixture("dmesg-6.12.log");
    in.cmdline = kCmdline32;
    in.release = "6.12.9";
    CHECK(absent() == "kernel_too_old");
    in.release = "6.15.0";
    in.log = log_fixture("dmesg-rotated.log");
    CHECK(absent() == "log_truncated");
    in.cmdline = "root=/dev/sda1 hugepages=0:512,1:512 hugepage_alloc_threads=32";
    CHECK(absent() == "node_format_hugepages");
    in.cmdline = "root=/dev/sda1 hugepage_alloc_threads=32";
    CHECK(absent() == "no_boot_pool");
    in.cmdline = "hugepagesz=1G hugepages=64 hugepage_alloc_threads=32";
    CHECK(absent() == "gigantic_only");
    in.cmdline = kCmdline32;
    in.log = log_fixture("dmesg-6.15-failed.log");
    CHECK(absent() == "allocation_failed");
    in.log = {};
    CHECK(absent() == "no_log");
    // A line: no reason.
    in.log = log_fixture("dmesg-6.15-threads32.log");
    CHECK_FALSE(verify_boot(in).line_absent);
}

TEST_CASE("init_on_alloc and HVO as booted, with or without the line") {
    VerifyInput in;
    in.log = log_fixture("dmesg-rotated.log");
    in.release = "6.15.0";
    in.cmdline = "root=/dev/sda1 init_on_alloc=0 hugetlb_free_vmemmap=on";
    in.hvo_now = false;
    auto r = verify_boot(in);
    CHECK(r.init_on_alloc == false);
    CHECK(r.hvo == true);  // the command line booted it; the sysctl may have changed since
    in.cmdline = "root=/dev/sda1";
    r = verify_boot(in);
    CHECK_FALSE(r.init_on_alloc);
    CHECK(r.hvo == false);
    // The log's "mem auto-init" line says what the boot did.
    in.log = log_fixture("dmesg-6.15-threads32.log");
    in.cmdline = kCmdline32;
    in.hvo_now.reset();
    r = verify_boot(in);
    REQUIRE(r.pool);
    CHECK(r.init_on_alloc == r.pool->init_on_alloc);
    CHECK(r.init_on_alloc == true);
    CHECK_FALSE(r.hvo);
}

TEST_CASE("boot pool facts") {
    auto f = boot_pool_facts(
        parse_kernel_cmdline("hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=0:8"),
        model::PageSizeFacts{});
    CHECK(f.pool_requested);
    CHECK(f.node_format);
    CHECK(!f.threaded_pool);
    CHECK(!f.only_gigantic);
    f = boot_pool_facts(parse_kernel_cmdline("default_hugepagesz=1G hugepages=4"),
                        model::PageSizeFacts{});
    CHECK(f.only_gigantic);
    // The first hugepages= of a size counts; the kernel ignores the repeat.
    f = boot_pool_facts(parse_kernel_cmdline("hugepages=0 hugepages=8"), model::PageSizeFacts{});
    CHECK(!f.pool_requested);
    f = boot_pool_facts(parse_kernel_cmdline("hugepages=8 hugepages=0"), model::PageSizeFacts{});
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

TEST_CASE("a pool short of the request is not verified, naming the pages asked and got") {
    const auto log = log_fixture("dmesg-6.15-shortfall.log");
    const auto shortfalls = find_pool_shortfalls(log);
    REQUIRE(shortfalls.size() == 1);
    CHECK(shortfalls[0].size_kb == 2048);
    CHECK(shortfalls[0].asked_pages == 385920);
    CHECK(shortfalls[0].allocated_pages == 385296);
    // The per-node form is not a threaded pool's.
    CHECK(find_pool_shortfalls({"HugeTLB: allocating 512 of page size 2.00 MiB failed node1.  "
                                "Only allocated 100 hugepages."})
              .empty());
    VerifyInput in;
    in.log = log;
    in.cmdline = "root=/dev/sda1 hugepagesz=2M hugepages=385920 hugepage_alloc_threads=32";
    in.prediction = ReportPrediction{5200, 32, 385920, 2048, true};
    auto r = verify_boot(in);
    CHECK_FALSE(r.verified);
    CHECK(codes(r.problems) == std::vector<std::string>{"pool_shortfall"});
    CHECK(mentions(r.problems, "only 385296 of the 385920 pages of 2 MiB"));
    // The ratio is of the pages the kernel allocated; without the registered line, of the
    // shortfall's count.
    REQUIRE(r.pool);
    CHECK(r.pool->pages == 385296);
    CHECK(*r.ratio == doctest::Approx(5210.0 / (5200.0 * 385296 / 385920)));
    in.log.erase(std::remove_if(in.log.begin(), in.log.end(),
                                [](const std::string& l) {
                                    return l.find("registered") != std::string::npos;
                                }),
                 in.log.end());
    r = verify_boot(in);
    CHECK(r.pool->pages == 385296);
    CHECK(codes(r.problems) == std::vector<std::string>{"pool_shortfall"});
}

TEST_CASE("a time below what zeroing the pool takes, or a ratio no boot gives, is not verified") {
    VerifyInput in;
    in.log = log_fixture("dmesg-6.15-zero-ms.log");
    in.cmdline = "root=/dev/sda1 hugepagesz=2M hugepages=385920 hugepage_alloc_threads=32";
    auto r = verify_boot(in);
    CHECK_FALSE(r.verified);
    CHECK(codes(r.problems) == std::vector<std::string>{"implausible_time"});
    CHECK(mentions(r.problems, "for each of 2 writing nodes"));
    in.prediction = ReportPrediction{5200, 32, 385920, 2048, true};
    r = verify_boot(in);
    CHECK(codes(r.problems) == std::vector<std::string>{"implausible_time", "implausible_ratio"});
    CHECK(*r.ratio == 0);
    // Without init_on_alloc nothing is zeroed at boot: the time alone rules nothing out.
    for (auto& l : in.log)
        if (l.starts_with("mem auto-init:"))
            l = "mem auto-init: stack:all(zero), heap alloc:off, heap free:off";
    in.prediction = std::nullopt;
    CHECK(verify_boot(in).verified);
    // The ratio's range, both ends: 706 ms against 5.5 ms is past 128.
    in.log = log_fixture("dmesg-6.15-threads32.log");
    in.cmdline = kCmdline32;
    in.prediction = ReportPrediction{5.5, 32, 524288, 2048, true};
    r = verify_boot(in);
    CHECK(codes(r.problems) == std::vector<std::string>{"implausible_ratio"});
    in.prediction = ReportPrediction{6.0, 32, 524288, 2048, true};
    CHECK(verify_boot(in).verified);
    in.prediction = ReportPrediction{706 * 129.0, 32, 524288, 2048, true};
    CHECK(codes(verify_boot(in).problems) == std::vector<std::string>{"implausible_ratio"});
}

TEST_CASE("arm64 pools of 64K and 2M in one boot: each size takes its own line") {
    // A real boot: Debian's 7.2.13 cloud-arm64 kernel in the boot lab's emulated guest (its
    // dmesg, the lines hugetune reads). The 64K pool is logged first, as on the command line.
    VerifyInput in;
    in.log = log_fixture("dmesg-arm64-7.2-64k-2m-guest.log");
    in.cmdline =
        "console=ttyAMA0 hugepagesz=64K hugepages=512 hugepagesz=2M hugepages=192 "
        "hugepage_alloc_threads=2\n";
    in.page_sizes = {2048, kFourKiBBlockKb};
    CHECK(allocation_line_for_pool(in.log, 64, kFourKiBBlockKb)->milliseconds == 48);
    CHECK(allocation_line_for_pool(in.log, 2048, kFourKiBBlockKb)->milliseconds == 476);

    // Without a report: the kernel's default size, 2M, as probe takes it, though 64K comes
    // first on the command line.
    auto r = verify_boot(in);
    CHECK(r.verified);
    REQUIRE(r.line);
    CHECK(r.line->milliseconds == 476);
    REQUIRE(r.pool);
    CHECK(r.pool->page_size_kb == 2048);
    CHECK(r.pool->pages == 192);

    // A report's pool names the size.
    in.prediction = ReportPrediction{40, 2, 512, 64, true};
    r = verify_boot(in);
    REQUIRE(r.line);
    CHECK(r.line->milliseconds == 48);
    REQUIRE(r.pool);
    CHECK(r.pool->page_size_kb == 64);
    CHECK(r.pool->pages == 512);
    // A report without a pool: the default size again.
    in.prediction = ReportPrediction{400, 2, std::nullopt, std::nullopt, true};
    r = verify_boot(in);
    REQUIRE(r.pool);
    CHECK(r.pool->page_size_kb == 2048);
    CHECK(r.line->milliseconds == 476);
}

TEST_CASE("arm64 with 64 KiB pages: 512M is threaded, so its pool has the first line") {
    const auto log = log_fixture("dmesg-arm64-64k-6.15-two-sizes.log");
    const std::uint64_t block_64k = model::BuddyAllocator{64, 13}.largest_block_kb();
    REQUIRE(allocation_line_for_pool(log, 512 * 1024, block_64k));
    CHECK(allocation_line_for_pool(log, 512 * 1024, block_64k)->milliseconds == 2380);
    CHECK(allocation_line_for_pool(log, 2048, block_64k)->milliseconds == 150);
    // Read with 4 MiB blocks, two lines meet one non-gigantic size: the pairing fails and the
    // fallback, the last line, is the 2M pool's, not the 512M pool's.
    CHECK(allocation_line_for_pool(log, 512 * 1024, kFourKiBBlockKb)->milliseconds == 150);

    VerifyInput in;
    in.log = log;
    in.cmdline =
        "BOOT_IMAGE=/vmlinuz-6.15.0-64k root=/dev/sda2 ro hugepages=64 hugepagesz=2M "
        "hugepages=4096\n";
    in.page_sizes = {512 * 1024, block_64k};
    // hugepages=64 before any hugepagesz= is of the default size, 512M: the threaded pool.
    in.prediction = ReportPrediction{2000, 24, 64, 512 * 1024, false};
    const auto r = verify_boot(in);
    REQUIRE(r.line);
    CHECK(r.line->milliseconds == 2380);
    REQUIRE(r.pool);
    CHECK(r.pool->page_size_kb == 512 * 1024);
    CHECK(r.pool->pages == 64);
    // hugepages=64 of 512M pages: threaded with 64 KiB pages, gigantic with 4 KiB ones.
    auto facts = boot_pool_facts(parse_kernel_cmdline("hugepages=64"), {512 * 1024, block_64k});
    CHECK(facts.threaded_pool);
    facts = boot_pool_facts(parse_kernel_cmdline("hugepages=64"), {512 * 1024, kFourKiBBlockKb});
    CHECK(facts.only_gigantic);
}

TEST_CASE("allocation lines: only at a message's start, and which of several is taken and why") {
    const std::vector<std::string> quoted = {
        "usb 1-1: Product: HugeTLB: allocation took 1ms with hugepage_allocation_threads=99",
        "HugeTLB: allocation took 706ms with hugepage_allocation_threads=32"};
    const auto lines = find_boot_allocation_lines(quoted);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].threads == 32);
    CHECK(find_registered_pools({"x: HugeTLB: registered 2.00 MiB page size, pre-allocated 8 "
                                 "pages"})
              .empty());

    const std::vector<std::string> two = {
        "HugeTLB: allocation took 0ms with hugepage_allocation_threads=8",
        "HugeTLB: allocation took 96ms with hugepage_allocation_threads=8"};
    auto only = allocation_line_for_pool(two, 2048, 4096);
    REQUIRE(only);
    CHECK(only->milliseconds == 96);
    CHECK(only->chosen ==
          "the only one above 0 ms of 2 allocation lines; the others time empty pools");
    auto paired = allocation_line_for_pool(
        {two[0], two[1], "HugeTLB: registered 2.00 MiB page size, pre-allocated 512 pages",
         "HugeTLB: registered 64.0 KiB page size, pre-allocated 8 pages"},
        64, 4096);
    REQUIRE(paired);
    CHECK(paired->milliseconds == 96);
    CHECK(paired->chosen.starts_with("line 2 of 2 allocation lines, paired in order"));
    auto single = allocation_line_for_pool({two[1]}, 2048, 4096);
    REQUIRE(single);
    CHECK(single->chosen.empty());
}
