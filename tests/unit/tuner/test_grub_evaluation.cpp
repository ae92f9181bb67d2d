// The command line grub-mkconfig builds, evaluated without running the shell: what is
// expanded, what is an unknown part and where it is named, and the edit's refusal of both.
#include <doctest/doctest.h>

#include "model/errors.hpp"
#include "tuner/boot/grub_evaluation.hpp"

using namespace hugetune::boot;
using hugetune::UsageError;

namespace {

std::vector<GrubSource> grub_main_file(const std::string& text) {
    return {parse_grub_source("/etc/default/grub", text)};
}

std::string edit_refusal(const std::vector<GrubSource>& sources) {
    try {
        plan_grub_edit(sources, std::string("2"));
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("the two findings: command substitution through a variable, a default through ${:-}") {
    auto subst = grub_main_file(
        "GRUB_CMDLINE_LINUX=\"\"\nX=$(echo hugepage_alloc_threads=8)\n"
        "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $X\"\n");
    auto evaluated = evaluate_cmdline(subst);
    REQUIRE(evaluated.unknown);
    CHECK(evaluated.unknown->what == "command substitution");
    CHECK(evaluated.unknown->construct == "$(echo hugepage_alloc_threads=8)");
    REQUIRE(evaluated.unknown->through);
    CHECK(evaluated.unknown->through_name == "X");
    CHECK(edit_refusal(subst) ==
          "/etc/default/grub:3: GRUB_CMDLINE_LINUX_DEFAULT takes $X, which /etc/default/grub:2 "
          "sets with command substitution '$(echo hugepage_alloc_threads=8)', whose value "
          "hugetune cannot know without running the shell as grub-mkconfig does; it could give "
          "the kernel another hugepage_alloc_threads= after the one hugetune writes (the last "
          "one wins): replace it with literal text, then run hugetune again");

    auto op =
        grub_main_file("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet ${EXTRA:-hugepage_alloc_threads=8}\"\n");
    CHECK(edit_refusal(op).starts_with(
        "/etc/default/grub:1: GRUB_CMDLINE_LINUX_DEFAULT uses a parameter expansion with an "
        "operator '${EXTRA:-hugepage_alloc_threads=8}'"));
}

TEST_CASE("every construct only the shell could evaluate is an unknown part") {
    struct Case {
        const char* text;
        const char* what;
    };
    const Case cases[] = {
        {"GRUB_CMDLINE_LINUX=\"`cat /x`\"\n", "command substitution in backquotes"},
        {"GRUB_CMDLINE_LINUX=\"a $((1+1))\"\n", "arithmetic expansion"},
        {"GRUB_CMDLINE_LINUX=\"${#HOME}\"\n", "a length expansion"},
        {"GRUB_CMDLINE_LINUX=\"${X+hugepage_alloc_threads=8}\"\n",
         "a parameter expansion with an operator"},
        {"GRUB_CMDLINE_LINUX=\"$1\"\n", "a special or positional parameter"},
        {"GRUB_CMDLINE_LINUX_DEFAULT=\"$@\"\n", "a special or positional parameter"},
        {"GRUB_CMDLINE_LINUX=\"$GRUB_DEVICE\"\n", "a variable set nowhere before"},
        // Set only after it is used: at that point it comes from the environment.
        {"GRUB_CMDLINE_LINUX_DEFAULT=\"$X\"\nX=1\n", "a variable set nowhere before"},
        // ${NAME:=word} and arithmetic assign in the shell that expands them, anywhere.
        {"A=\"${GRUB_CMDLINE_LINUX_DEFAULT:=hugepage_alloc_threads=8}\"\n",
         "an assignment inside a parameter expansion with an operator"},
        {"N=$((B=8))\nGRUB_CMDLINE_LINUX=\"x=$B\"\n", "an assignment inside arithmetic expansion"},
        {"N=$((B++))\nGRUB_CMDLINE_LINUX=\"x=$B\"\n", "an assignment inside arithmetic expansion"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        auto evaluated = evaluate_cmdline(grub_main_file(c.text));
        REQUIRE(evaluated.unknown);
        CHECK(evaluated.unknown->what == c.what);
        CHECK_THROWS_AS(plan_grub_edit(grub_main_file(c.text), std::nullopt), UsageError);
    }
}

TEST_CASE("what the files set is evaluated: variables, drop-ins, the last assignment") {
    std::vector<GrubSource> sources{
        parse_grub_source("/etc/default/grub",
                          "GRUB_DISTRIBUTOR=`lsb_release -i -s`\nSERIAL=\"console=ttyS0\"\n"
                          "GRUB_CMDLINE_LINUX_DEFAULT=\"$(cat /x)\"\n"
                          "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet ${SERIAL}\"\n"
                          "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX a\"\n"),
        parse_grub_source(
            "/etc/default/grub.d/50-local.cfg",
            "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT $SERIAL,9600\"\n"),
    };
    auto evaluated = evaluate_cmdline(sources);
    CHECK_FALSE(evaluated.unknown);
    CHECK(evaluated.text() == " a quiet console=ttyS0 console=ttyS0,9600");
    // Each character knows the assignment whose literal text it is.
    REQUIRE(evaluated.chars[1].written_by);
    CHECK(evaluated.chars[1].written_by->assignment == 4);
    CHECK_FALSE(evaluated.chars[2].written_by);  // the blank between the two variables
    REQUIRE(evaluated.chars.back().written_by);
    CHECK(evaluated.chars.back().written_by->source == 1);
    CHECK(plan_grub_edit(sources, std::string("2"))
              .new_texts[0]
              .find("a hugepage_alloc_threads=2\"") != std::string::npos);
}

TEST_CASE("a parameter arriving through a literal variable is named where it is set") {
    auto sources = grub_main_file(
        "GRUB_CMDLINE_LINUX=\"\"\nEXTRA=\"hugepage_alloc_threads=8\"\n"
        "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $EXTRA\"\n");
    CHECK(edit_refusal(sources).starts_with(
        "/etc/default/grub:2: EXTRA holds hugepage_alloc_threads=8, which reaches the kernel "
        "command line through a variable"));
    auto evaluated = evaluate_cmdline(sources);
    auto origin = last_param_origin(evaluated, "hugepage_alloc_threads");
    REQUIRE(origin);
    CHECK(origin->assignment == 1);
}
