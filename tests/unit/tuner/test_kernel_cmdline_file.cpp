#include <doctest/doctest.h>

#include "tuner/boot/kernel_cmdline_file.hpp"
#include "tuner/system/errors.hpp"

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
