// Editing GRUB_CMDLINE_LINUX: golden before/after pairs, and the properties every edit keeps.
#include <doctest/doctest.h>

#include "model/errors.hpp"
#include "tuner/boot/grub_config.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/kernel/cmdline.hpp"

using namespace hugetune::boot;
using hugetune::UsageError;

namespace {

const std::optional<std::string> k32 = std::string("32");

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

std::optional<std::string> effective(const std::string& text) {
    return effective_alloc_threads({parse_grub_source("/etc/default/grub", text)});
}

}  // namespace

TEST_CASE("golden edits of GRUB_CMDLINE_LINUX") {
    struct Case {
        const char* name;
        std::string before, after;
    };
    const Case cases[] = {
        {"empty double quotes", "GRUB_CMDLINE_LINUX=\"\"\n",
         "GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32\"\n"},
        {"empty single quotes", "GRUB_CMDLINE_LINUX=''\n",
         "GRUB_CMDLINE_LINUX='hugepage_alloc_threads=32'\n"},
        {"no value at all", "GRUB_CMDLINE_LINUX=\n",
         "GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32\"\n"},
        {"double quotes", "GRUB_CMDLINE_LINUX=\"quiet splash\"\n",
         "GRUB_CMDLINE_LINUX=\"quiet splash hugepage_alloc_threads=32\"\n"},
        {"single quotes", "GRUB_CMDLINE_LINUX='quiet'\n",
         "GRUB_CMDLINE_LINUX='quiet hugepage_alloc_threads=32'\n"},
        {"plain unquoted", "GRUB_CMDLINE_LINUX=quiet\n",
         "GRUB_CMDLINE_LINUX=\"quiet hugepage_alloc_threads=32\"\n"},
        {"unquoted with an escape", "GRUB_CMDLINE_LINUX=a\\ b\n",
         "GRUB_CMDLINE_LINUX=a\\ b\" hugepage_alloc_threads=32\"\n"},
        {"reference kept", "X=a\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX ${X}\"\n",
         "X=a\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX ${X} hugepage_alloc_threads=32\"\n"},
        {"trailing comment and blanks", "GRUB_CMDLINE_LINUX=\"a\"   # keep 'this'\n",
         "GRUB_CMDLINE_LINUX=\"a hugepage_alloc_threads=32\"   # keep 'this'\n"},
        {"value replaced in place", "GRUB_CMDLINE_LINUX=\"a hugepage_alloc_threads=8 b\"\n",
         "GRUB_CMDLINE_LINUX=\"a hugepage_alloc_threads=32 b\"\n"},
        {"hex value replaced", "GRUB_CMDLINE_LINUX='hugepage_alloc_threads=0x10'\n",
         "GRUB_CMDLINE_LINUX='hugepage_alloc_threads=32'\n"},
        {"duplicates in both variables",
         "GRUB_CMDLINE_LINUX_DEFAULT=\"hugepage_alloc_threads=4 quiet hugepage_alloc_threads=5\"\n"
         "GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=6 a hugepage_alloc_threads=7\"\n",
         "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
         "GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32 a\"\n"},
        {"assigned twice: the second takes effect",
         "GRUB_CMDLINE_LINUX=\"a hugepage_alloc_threads=4\"\nX=1\nGRUB_CMDLINE_LINUX=\"b\"\n",
         "GRUB_CMDLINE_LINUX=\"a\"\nX=1\nGRUB_CMDLINE_LINUX=\"b hugepage_alloc_threads=32\"\n"},
        {"token split over quotes", "GRUB_CMDLINE_LINUX=\"quiet \"hugepage_alloc_threads=4\" s\"\n",
         "GRUB_CMDLINE_LINUX=\"quiet \"hugepage_alloc_threads=32\" s\"\n"},
        {"inside a kernel-quoted value it is no token",
         "GRUB_CMDLINE_LINUX='x=\"a hugepage_alloc_threads=4\"'\n",
         "GRUB_CMDLINE_LINUX='x=\"a hugepage_alloc_threads=4\" hugepage_alloc_threads=32'\n"},
        {"absent: added at the end", "GRUB_TIMEOUT=5\n",
         "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32\"\n"},
        {"absent, no final newline", "GRUB_TIMEOUT=5",
         "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32\"\n"},
        {"CRLF kept", "A=1\r\nGRUB_CMDLINE_LINUX=\"q\"\r\n# c\r\n",
         "A=1\r\nGRUB_CMDLINE_LINUX=\"q hugepage_alloc_threads=32\"\r\n# c\r\n"},
        {"CRLF, absent", "A=1\r\n", "A=1\r\nGRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32\"\r\n"},
        {"multi-line value", "GRUB_CMDLINE_LINUX=\"a\nhugepage_alloc_threads=2\nb\"\n",
         "GRUB_CMDLINE_LINUX=\"a\nhugepage_alloc_threads=32\nb\"\n"},
        {"export form", "export GRUB_CMDLINE_LINUX=\"a\"\n",
         "export GRUB_CMDLINE_LINUX=\"a hugepage_alloc_threads=32\"\n"},
        // The kernel matches names with '-' and '_' alike: the dashed token is the parameter,
        // its value replaced in place, and no second token is added before it.
        {"dashed name replaced in place", "GRUB_CMDLINE_LINUX=\"a hugepage-alloc-threads=16\"\n",
         "GRUB_CMDLINE_LINUX=\"a hugepage-alloc-threads=32\"\n"},
        {"both spellings: the first kept, the other removed",
         "GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=4 b hugepage-alloc-threads=16\"\n",
         "GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32 b\"\n"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        std::string once = edit_grub_text(c.before, k32);
        CHECK(once == c.after);
        CHECK(edit_grub_text(once, k32) == once);  // applying twice changes nothing
        CHECK(effective(once) == k32);
    }
}

TEST_CASE("removing the parameter") {
    CHECK(edit_grub_text("GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=4 b\"\n", std::nullopt) ==
          "GRUB_CMDLINE_LINUX=\"b\"\n");
    CHECK(edit_grub_text("GRUB_CMDLINE_LINUX=\"a hugepage_alloc_threads=4\"\n", std::nullopt) ==
          "GRUB_CMDLINE_LINUX=\"a\"\n");
    CHECK(edit_grub_text("GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=4\"\n", std::nullopt) ==
          "GRUB_CMDLINE_LINUX=\"\"\n");
    CHECK(edit_grub_text("GRUB_CMDLINE_LINUX=\"a\"\n", std::nullopt) ==
          "GRUB_CMDLINE_LINUX=\"a\"\n");
}

TEST_CASE("command substitution in a command line variable is refused") {
    CHECK_THROWS_AS(edit_grub_text("GRUB_CMDLINE_LINUX=\"$(cat /x)\"\n", k32), UsageError);
    CHECK_THROWS_AS(edit_grub_text("GRUB_CMDLINE_LINUX_DEFAULT=`cat /x`\n", k32), UsageError);
    // Elsewhere it is left alone, as in stock Debian and Ubuntu files.
    CHECK(
        edit_grub_text("GRUB_DISTRIBUTOR=`lsb_release -i -s`\n", k32) ==
        "GRUB_DISTRIBUTOR=`lsb_release -i -s`\nGRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32\"\n");
}

TEST_CASE("an unsafe value is never written") {
    CHECK_THROWS_AS(edit_grub_text("GRUB_CMDLINE_LINUX=\"\"\n", std::string("3\" x")), UsageError);
}

TEST_CASE("drop-ins: the file that sets GRUB_CMDLINE_LINUX last gets the parameter") {
    std::vector<GrubSource> sources{
        parse_grub_source("/etc/default/grub",
                          "GRUB_CMDLINE_LINUX=\"a hugepage_alloc_threads=4\"\n"
                          "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"),
        parse_grub_source(
            "/etc/default/grub.d/50-cloudimg-settings.cfg",
            "GRUB_CMDLINE_LINUX_DEFAULT=\"console=ttyS0 hugepage_alloc_threads=2\"\n"),
        parse_grub_source("/etc/default/grub.d/60-local.cfg",
                          "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX b\"\n")};
    CHECK(effective_alloc_threads(sources) == std::optional<std::string>("2"));
    auto edit = plan_grub_edit(sources, k32);
    CHECK(edit.target_path == "/etc/default/grub.d/60-local.cfg");
    CHECK(edit.new_texts[0] == "GRUB_CMDLINE_LINUX=\"a\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n");
    CHECK(edit.new_texts[1] == "GRUB_CMDLINE_LINUX_DEFAULT=\"console=ttyS0\"\n");
    CHECK(edit.new_texts[2] ==
          "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX b hugepage_alloc_threads=32\"\n");
    std::string notes;
    for (const auto& n : edit.notes)
        notes += n + "\n";
    CHECK(notes.find("60-local.cfg:1") != std::string::npos);
    CHECK(notes.find("GRUB_CMDLINE_LINUX_DEFAULT is set last by "
                     "/etc/default/grub.d/50-cloudimg-settings.cfg:1") != std::string::npos);
    std::vector<GrubSource> after;
    for (std::size_t i = 0; i < sources.size(); ++i)
        after.push_back(parse_grub_source(sources[i].path, edit.new_texts[i]));
    CHECK(evaluated_cmdline(after) == "a b hugepage_alloc_threads=32 console=ttyS0");
}

TEST_CASE("every other byte is kept: the edit only touches the token's region") {
    std::string head = "# header 'x' \"y\"\nGRUB_DEFAULT=0\n";
    std::string tail = " # note\nGRUB_TIMEOUT=5\n";
    std::string before = head + "GRUB_CMDLINE_LINUX=\"a  hugepage_alloc_threads=4  b\"" + tail;
    std::string after = edit_grub_text(before, k32);
    CHECK(after.starts_with(head));
    CHECK(after.ends_with(tail));
    CHECK(count(after, "hugepage_alloc_threads=") == 1);
    CHECK(after == head + "GRUB_CMDLINE_LINUX=\"a  hugepage_alloc_threads=32  b\"" + tail);
}

TEST_CASE("a parameter the edit cannot reach is refused, not left behind") {
    // Through another variable.
    CHECK_THROWS_AS(edit_grub_text("X=\"hugepage_alloc_threads=4\"\n"
                                   "GRUB_CMDLINE_LINUX_DEFAULT=\"$X\"\n",
                                   k32),
                    UsageError);
    // Inside an unbalanced kernel quote, where an added token would not be a parameter.
    CHECK_THROWS_AS(edit_grub_text("GRUB_CMDLINE_LINUX='a=\"b'\n", k32), UsageError);
    // Through an expansion only the shell could evaluate, anywhere on the command line.
    for (const char* text : {
             "X=$(echo hugepage_alloc_threads=8)\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet $X\"\n",
             "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet ${EXTRA:-hugepage_alloc_threads=8}\"\n",
             "X=`echo hugepage_alloc_threads=8`\nGRUB_CMDLINE_LINUX=\"$X\"\n",
             "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $EXTRA\"\n",
         }) {
        CAPTURE(text);
        CHECK_THROWS_AS(edit_grub_text(text, k32), UsageError);
        CHECK_THROWS_AS(edit_grub_text(text, std::nullopt), UsageError);
    }
}

TEST_CASE("self-references that double a value are refused before they exhaust memory") {
    // Found by the fuzz target: 40 doublings of one byte would be a terabyte.
    std::string text = "GRUB_CMDLINE_LINUX=\"x\"\n";
    for (int i = 0; i < 40; ++i)
        text += "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX$GRUB_CMDLINE_LINUX\"\n";
    CHECK_THROWS_AS(edit_grub_text(text, k32), UsageError);
    // Many variables each below the bound of one are bounded in all.
    std::string many = "A=\"" + std::string(60 * 1024, 'x') + "\"\n";
    for (int i = 0; i < 40; ++i)
        many += "B" + std::to_string(i) + "=\"$A\"\n";
    CHECK_THROWS_WITH_AS(edit_grub_text(many, k32), doctest::Contains("more than 1 MiB in all"),
                         UsageError);
}

TEST_CASE("a bare -- in the command line GRUB builds is refused by name, never written after") {
    CHECK_THROWS_WITH_AS(edit_grub_text("GRUB_CMDLINE_LINUX=\"console=ttyS0 -- single\"\n", k32),
                         doctest::Contains("holds a bare '--', and the kernel hands everything "
                                           "after it to init"),
                         UsageError);
    // After GRUB_CMDLINE_LINUX comes GRUB_CMDLINE_LINUX_DEFAULT: a -- there leaves the value
    // hugetune adds to GRUB_CMDLINE_LINUX before it.
    const std::string dflt =
        "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet -- single\"\nGRUB_CMDLINE_LINUX=\"a\"\n";
    CHECK(edit_grub_text(dflt, k32) ==
          "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet -- single\"\n"
          "GRUB_CMDLINE_LINUX=\"a hugepage_alloc_threads=32\"\n");
    // Already before the --: kept in place.
    const std::string before = "GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=4 -- single\"\n";
    CHECK(edit_grub_text(before, k32) ==
          "GRUB_CMDLINE_LINUX=\"hugepage_alloc_threads=32 -- single\"\n");
}
