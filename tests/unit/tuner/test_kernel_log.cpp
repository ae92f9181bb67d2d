// The kernel log read as a stream (tuner/kernel/kernel_log.hpp): the last boot only, the same
// messages whatever the pieces it comes in, and the bounds on what is kept.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "tuner/kernel/kernel_log.hpp"

using namespace hugetune;

namespace {

std::string boot_text(const std::string& release, int filler) {
    std::string text = "[    0.000000] Linux version " + release + " (builder@example) #1 SMP\n" +
                       "[    0.000000] Command line: root=/dev/sda1 hugepages=512\n" +
                       "[    1.000000] HugeTLB: allocation took 96ms with "
                       "hugepage_allocation_threads=8\n";
    for (int i = 0; i < filler; ++i)
        text += "[    2.000000] usb 3-1: chatter " + std::to_string(i) + "\n";
    return text;
}

}  // namespace

TEST_CASE("kernel log: only the last boot is kept, its prefixes stripped") {
    const std::string text = boot_text("6.12.9", 3) + boot_text("6.15.0", 2);
    const KernelLog log = read_kernel_log(std::string_view(text));
    REQUIRE(log.messages.size() == 5);
    CHECK(log.messages[0] == "Linux version 6.15.0 (builder@example) #1 SMP");
    CHECK(log.messages[4] == "usb 3-1: chatter 1");
    CHECK(log.left_out == 0);
    CHECK(kernel_log_bounds_note(log).empty());
    // journalctl's forms, its "-- Boot" lines, CRLF and a last line without a newline.
    const KernelLog journal = read_kernel_log(std::string_view(
        "-- Boot 1f2e --\r\nDec 01 03:00:00 db7 kernel: Linux version 6.15.3 #1\r\n"
        "2026-12-01T03:00:04+00:00 db7 kernel: HugeTLB: x\nDec  1 03:00:05 db7 kernel: last"));
    CHECK(journal.messages ==
          std::vector<std::string>{"Linux version 6.15.3 #1", "HugeTLB: x", "last"});
    // "Linux version" inside another message starts no boot.
    const KernelLog quoted = read_kernel_log(
        std::string_view(boot_text("6.15.0", 0) + "[    3.0] audit: \"Linux version 1\"\n"));
    CHECK(quoted.messages.size() == 4);
}

TEST_CASE("kernel log: pieces of any size give the same messages as the whole") {
    const std::string text = boot_text("6.12.9", 50) + boot_text("6.15.0", 50);
    const auto whole = read_kernel_log(std::string_view(text)).messages;
    for (std::size_t piece : {1, 7, 64, 4096}) {
        KernelLogReader reader;
        for (std::size_t at = 0; at < text.size(); at += piece)
            reader.add_text(std::string_view(text).substr(at, piece));
        CHECK(reader.finish().messages == whole);
    }
    std::istringstream in(text);
    CHECK(read_kernel_log(in).messages == whole);
}

TEST_CASE("kernel log: a boot past the bounds keeps its first messages and says so") {
    KernelLogReader reader;
    reader.add_line("Linux version 6.15.0 #1");
    for (std::size_t i = 0; i < kMaxBootLogMessages + 5; ++i)
        reader.add_line("chatter");
    const KernelLog log = reader.finish();
    CHECK(log.messages.size() == kMaxBootLogMessages);
    CHECK(log.messages.front() == "Linux version 6.15.0 #1");
    CHECK(log.left_out == 6);
    CHECK(kernel_log_bounds_note(log) ==
          "only the first 100000 messages of its last boot were read (at most 100000 messages "
          "or 16 MiB of a boot are kept); the 6 after them were left out, as the kernel logs the "
          "boot allocation within a boot's first seconds");
    // A later boot starts afresh.
    KernelLogReader again;
    for (std::size_t i = 0; i < kMaxBootLogMessages + 5; ++i)
        again.add_line("chatter");
    again.add_line("Linux version 6.15.1 #1");
    CHECK(again.finish().left_out == 0);
    // Bytes bound it too: lines of 8 KiB reach 16 MiB at 2048 of them.
    KernelLogReader wide;
    const std::string line(kMaxLogLineBytes, 'x');
    for (int i = 0; i < 2100; ++i)
        wide.add_line(line);
    const KernelLog bytes = wide.finish();
    CHECK(bytes.messages.size() == kMaxBootLogBytes / kMaxLogLineBytes);
    CHECK(bytes.left_out == 2100 - bytes.messages.size());
}

TEST_CASE("kernel log: a line longer than any kernel message is cut, its memory bounded") {
    const std::string text =
        "Linux version 6.15.0\n" + std::string(1 << 20, 'y') + "\nHugeTLB: after\n";
    KernelLogReader reader;
    for (std::size_t at = 0; at < text.size(); at += 1000)
        reader.add_text(std::string_view(text).substr(at, 1000));
    const KernelLog log = reader.finish();
    REQUIRE(log.messages.size() == 3);
    CHECK(log.messages[1].size() == kMaxLogLineBytes);
    CHECK(log.messages[2] == "HugeTLB: after");
    CHECK(log.cut_lines == 1);
    CHECK(kernel_log_bounds_note(log) ==
          "1 lines longer than 8 KiB, which no kernel message "
          "is, were cut there");
}

TEST_CASE("kernel log: a banner later in a boot, or a program's record, starts nothing") {
    // A "Linux version" message at 12 s: a device's words, not a boot.
    const KernelLog late = read_kernel_log(
        std::string_view(boot_text("6.15.0", 0) + "[   12.345678] Linux version 9.9\n"));
    REQUIRE(late.messages.size() == 4);
    CHECK(late.messages[0] == "Linux version 6.15.0 (builder@example) #1 SMP");
    // kmsg records: the kernel's (facility 0) at 0 us starts a boot; one at 12 s does not, and
    // a program's (facility 1, priority 14) is not read at all.
    const KernelLog kmsg = read_kernel_log(std::string_view(
        "6,0,0,-;Linux version 6.15.3 #1\n"
        "6,1,5000,-;HugeTLB: allocation took 96ms with hugepage_allocation_threads=8\n"
        "6,2,12000000,-;Linux version 9.9\n"
        "14,3,13000000,-;HugeTLB: allocation took 1ms with hugepage_allocation_threads=99\n"
        "12,4,14000000,-;Linux version 9.8\n"));
    CHECK(kmsg.messages == std::vector<std::string>{"Linux version 6.15.3 #1",
                                                    "HugeTLB: allocation took 96ms with "
                                                    "hugepage_allocation_threads=8",
                                                    "Linux version 9.9"});
}

// dmesg with printk's caller ids (CONFIG_PRINTK_CALLER) and journalctl -o short-precise and
// -o short-monotonic: each line's text as the kernel logged it.
TEST_CASE("kernel log: caller ids and journalctl's precise and monotonic forms") {
    const std::string alloc = "HugeTLB: allocation took 706ms with hugepage_allocation_threads=32";
    CHECK(strip_kernel_log_prefix("[    4.350000] [    T1] " + alloc) == alloc);
    CHECK(strip_kernel_log_prefix("[    4.350000] [   C12] " + alloc) == alloc);
    CHECK(strip_kernel_log_prefix("Dec 01 03:00:04.350400 db7 kernel: " + alloc) == alloc);
    CHECK(strip_kernel_log_prefix("[    4.350400] db7 kernel: " + alloc) == alloc);
    CHECK(strip_kernel_log_prefix("6,812,4350400,-,caller=T1;" + alloc) == alloc);
    // Not a caller id: the message keeps it.
    CHECK(strip_kernel_log_prefix("[    4.350000] [Tx] x") == "[Tx] x");
    const KernelLog log =
        read_kernel_log(std::string_view("[    0.000000] [    T0] Linux version 6.15.3 #1\n"
                                         "[    4.350000] [    T1] " +
                                         alloc + "\n"));
    CHECK(log.messages == std::vector<std::string>{"Linux version 6.15.3 #1", alloc});
    const KernelLog monotonic =
        read_kernel_log(std::string_view("[    0.000000] db7 kernel: Linux version 6.15.3 #1\n"
                                         "[    4.350400] db7 kernel: " +
                                         alloc + "\n"));
    CHECK(monotonic.messages == std::vector<std::string>{"Linux version 6.15.3 #1", alloc});
}

// A later boot whose start, banner and all, is not in the log (a concatenated or rotated log):
// its clock starts again, and nothing of the boot before it is taken for it.
TEST_CASE("kernel log: a boot without its banner is a boot of its own") {
    const std::string later = "[    0.600000] usb 3-1: new device\n[    0.700000] eth0: link up\n";
    KernelLog log = read_kernel_log(std::string_view(boot_text("6.15.0", 2) + later));
    CHECK(log.messages == std::vector<std::string>{"usb 3-1: new device", "eth0: link up"});
    // The same in journalctl -o short-monotonic, and in kmsg records.
    log = read_kernel_log(
        std::string_view("[    0.000000] db7 kernel: Linux version 6.15.0 #1\n"
                         "[    9.000000] db7 kernel: HugeTLB: allocation took 96ms with "
                         "hugepage_allocation_threads=8\n"
                         "[    5.000000] db7 kernel: eth0: link up\n"));
    CHECK(log.messages == std::vector<std::string>{"eth0: link up"});
    log =
        read_kernel_log(std::string_view("5,0,0,-;Linux version 6.15.0 #1\n"
                                         "6,9,9000000,-;HugeTLB: x\n"
                                         "6,3,5000000,-;eth0: link up\n"));
    CHECK(log.messages == std::vector<std::string>{"eth0: link up"});
    // journalctl -o short shows no time since boot: its "-- Boot" line parts the boots.
    log =
        read_kernel_log(std::string_view("Dec 01 03:00:00 db7 kernel: Linux version 6.15.0 #1\n"
                                         "Dec 01 03:00:04 db7 kernel: HugeTLB: x\n"
                                         "-- Boot 3f1e --\n"
                                         "Dec 02 03:00:09 db7 kernel: eth0: link up\n"));
    CHECK(log.messages == std::vector<std::string>{"eth0: link up"});
    // Records a little out of order within one boot part nothing.
    log = read_kernel_log(
        std::string_view(boot_text("6.15.0", 0) + "[    1.900000] a\n[    1.200000] b\n"));
    CHECK(log.messages.size() == 5);
}
