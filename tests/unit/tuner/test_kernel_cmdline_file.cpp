#include <doctest/doctest.h>

#include "model/errors.hpp"
#include "tuner/boot/boot_entries.hpp"
#include "tuner/boot/kernel_cmdline_file.hpp"

using hugetune::boot::edit_kernel_cmdline_text;

TEST_CASE("/etc/kernel/cmdline edits") {
    const std::optional<std::string> v = std::string("32");
    const std::string p = "/etc/kernel/cmdline";
    CHECK(edit_kernel_cmdline_text(p, "root=/dev/sda1 rw\n", v) ==
          "root=/dev/sda1 rw hugepage_alloc_threads=32\n");
    CHECK(edit_kernel_cmdline_text(p, "root=/dev/sda1 rw", v) ==
          "root=/dev/sda1 rw hugepage_alloc_threads=32");
    CHECK(edit_kernel_cmdline_text(p, "hugepage_alloc_threads=4 rw hugepage_alloc_threads=5\n",
                                   v) == "hugepage_alloc_threads=32 rw\n");
    CHECK(edit_kernel_cmdline_text(p, "", v) == "hugepage_alloc_threads=32\n");
    CHECK(edit_kernel_cmdline_text(p, "rw hugepage_alloc_threads=4\n", std::nullopt) == "rw\n");
    CHECK(edit_kernel_cmdline_text(p, "a=\"x hugepage_alloc_threads=4\"\n", std::nullopt) ==
          "a=\"x hugepage_alloc_threads=4\"\n");
    CHECK_THROWS_AS(edit_kernel_cmdline_text(p, std::string("rw\0x", 4), v), hugetune::UsageError);
}

TEST_CASE("/etc/kernel/cmdline: nothing after a bare -- is the kernel's; the value goes before") {
    using hugetune::boot::boot_entry_alloc_threads;
    using hugetune::boot::edit_boot_entry_text;
    const std::optional<std::string> v = std::string("8");
    const std::string p = "/etc/kernel/cmdline";
    CHECK(edit_kernel_cmdline_text(p, "root=/dev/sda1 rw -- single\n", v) ==
          "root=/dev/sda1 rw hugepage_alloc_threads=8 -- single\n");
    // A token after -- is init's: left alone, and the kernel's value added before the --.
    CHECK(edit_kernel_cmdline_text(p, "rw -- hugepage_alloc_threads=4\n", v) ==
          "rw hugepage_alloc_threads=8 -- hugepage_alloc_threads=4\n");
    CHECK(edit_kernel_cmdline_text(p, "rw hugepage_alloc_threads=4 -- x\n", v) ==
          "rw hugepage_alloc_threads=8 -- x\n");
    CHECK(edit_kernel_cmdline_text(p, "rw hugepage_alloc_threads=4 -- hugepage_alloc_threads=2\n",
                                   std::nullopt) == "rw -- hugepage_alloc_threads=2\n");
    CHECK(edit_kernel_cmdline_text(p, "-- single\n", v) == "hugepage_alloc_threads=8 -- single\n");
    // A quoted "--" inside a value is no separator.
    CHECK(edit_kernel_cmdline_text(p, "a=\"x -- y\"\n", v) ==
          "a=\"x -- y\" hugepage_alloc_threads=8\n");

    // systemd-boot entries: the options lines are joined, so after the line with -- every later
    // line is init's as well.
    const std::string e = "/boot/loader/entries/x.conf";
    const std::string entry = "title x\noptions root=/dev/sda1 -- single\noptions quiet\n";
    const std::string edited = edit_boot_entry_text(e, entry, v);
    CHECK(edited ==
          "title x\noptions root=/dev/sda1 hugepage_alloc_threads=8 -- single\n"
          "options quiet\n");
    CHECK(boot_entry_alloc_threads(edited) == std::optional<std::string>("8"));
    CHECK(boot_entry_alloc_threads(entry + "options hugepage_alloc_threads=4\n") == std::nullopt);
}

// systemd-boot reads an entry line with the blanks around it dropped and one pair of quotes
// around the whole value removed (docs/kernel-facts.md "systemd-boot's entries"): an indented
// options line is the entry's options, and apply edits it instead of adding a second line.
TEST_CASE("systemd-boot entries: options lines read as systemd-boot reads them") {
    using hugetune::boot::boot_entry_alloc_threads;
    using hugetune::boot::edit_boot_entry_text;
    const std::optional<std::string> v = std::string("8");
    const std::string e = "/boot/loader/entries/x.conf";
    const std::string indented = "title x\n  options root=/dev/sda1 hugepage_alloc_threads=4\n";
    CHECK(boot_entry_alloc_threads(indented) == std::optional<std::string>("4"));
    CHECK(edit_boot_entry_text(e, indented, v) ==
          "title x\n  options root=/dev/sda1 hugepage_alloc_threads=8\n");
    const std::string tabbed = "\toptions\troot=/dev/sda1 -- single \t\r\n";
    CHECK(edit_boot_entry_text(e, tabbed, v) ==
          "\toptions\troot=/dev/sda1 hugepage_alloc_threads=8 -- single \t\r\n");
    // Quotes around the whole value are systemd-boot's, not the kernel's.
    const std::string quoted = "options \"root=/dev/sda1 hugepage_alloc_threads=4\"\n";
    CHECK(boot_entry_alloc_threads(quoted) == std::optional<std::string>("4"));
    CHECK(edit_boot_entry_text(e, quoted, v) ==
          "options \"root=/dev/sda1 hugepage_alloc_threads=8\"\n");
    // Not options lines: a comment, a longer key, a key without a value.
    const std::string others =
        "# options hugepage_alloc_threads=2\noptionsx hugepage_alloc_threads=3\n  options \n";
    CHECK(boot_entry_alloc_threads(others) == std::nullopt);
    CHECK(edit_boot_entry_text(e, others, v) == others + "options hugepage_alloc_threads=8\n");
}
