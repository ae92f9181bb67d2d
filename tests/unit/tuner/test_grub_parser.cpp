// The /etc/default/grub reader: what it accepts, what each piece maps to, and what it refuses.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tuner/boot/shell_fragment.hpp"
#include "tuner/boot/token_edit.hpp"

using namespace hugetune::boot;

namespace {

std::string read_fixture(const std::string& rel) {
    std::ifstream in(std::string(HUGETUNE_SOURCE_DIR) + "/tests/fixtures/boot/" + rel,
                     std::ios::binary);
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

const Assignment& find(const ShellFragment& f, const std::string& name, int nth = 0) {
    for (const auto& a : f.assignments)
        if (a.name == name && nth-- == 0)
            return a;
    FAIL("no assignment " << name);
    throw;
}

std::size_t refused_line(const std::string& text) {
    try {
        parse_shell_fragment(text);
    } catch (const ShellParseError& e) {
        return e.line();
    }
    return 0;
}

}  // namespace

TEST_CASE("stock grub files of four distributions parse, command substitution included") {
    for (const char* rel :
         {"debian/etc/default/grub", "ubuntu-cloud/etc/default/grub",
          "ubuntu-cloud/etc/default/grub.d/50-cloudimg-settings.cfg", "rhel9/etc/default/grub"}) {
        CAPTURE(rel);
        auto f = parse_shell_fragment(read_fixture(rel));
        CHECK(!f.assignments.empty());
    }
    auto deb = parse_shell_fragment(read_fixture("debian/etc/default/grub"));
    CHECK(find(deb, "GRUB_DISTRIBUTOR").has_substitution());
    CHECK(literal_text(find(deb, "GRUB_CMDLINE_LINUX").value) == "hugepagesz=2M hugepages=65536");
    CHECK(find(deb, "GRUB_CMDLINE_LINUX").line == 9);
    auto rhel = parse_shell_fragment(read_fixture("rhel9/etc/default/grub"));
    CHECK(find(rhel, "GRUB_DISTRIBUTOR").has_substitution());
    CHECK(literal_text(find(rhel, "GRUB_ENABLE_BLSCFG").value) == "true");
}

TEST_CASE("quoting: each logical character maps back to its source bytes") {
    std::string text = "A='x y'\"\\$HOME \\\"q\\\"\"\\ z # not a comment\n";
    auto f = parse_shell_fragment(text);
    REQUIRE(f.assignments.size() == 1);
    const auto& a = f.assignments[0];
    CHECK(literal_text(a.value) == "x y$HOME \"q\" z");
    CHECK(a.value_end == text.find(" # not"));
    // The escaped blank "\ " is two source bytes for one character.
    for (const auto& p : a.value)
        if (p.ch == ' ' && p.quoting == Quoting::none)
            CHECK(p.end - p.begin == 2);
}

TEST_CASE("references stay opaque; a '$' that starts nothing is literal") {
    auto f = parse_shell_fragment("A=\"$GRUB_CMDLINE_LINUX ${B} ${C:-d} $1 a$ $\"\n");
    const auto& v = f.assignments[0].value;
    std::vector<std::string> refs;
    for (const auto& p : v)
        if (p.kind == WordPiece::Kind::reference)
            refs.push_back(p.ref_name);
    CHECK(refs == std::vector<std::string>{"GRUB_CMDLINE_LINUX", "B", "", ""});
    CHECK(literal_text(v) == "    a$ $");
}

TEST_CASE("comments, export, several assignments, semicolons and continuations") {
    auto f = parse_shell_fragment(
        "# c 'unbalanced\n  export A=1 B=\"2\" ; C=3 # trailing\nexport D\nE=a\\\nb\n");
    REQUIRE(f.assignments.size() == 4);
    CHECK(f.assignments[2].name == "C");
    CHECK(f.assignments[3].name == "E");
    CHECK(literal_text(f.assignments[3].value) == "ab");
    CHECK(f.assignments[3].line == 4);
}

TEST_CASE("CRLF line ends are line ends") {
    auto f = parse_shell_fragment("A=\"x\"\r\n\r\n# c\r\nB=y\r\n");
    CHECK(f.crlf);
    REQUIRE(f.assignments.size() == 2);
    CHECK(literal_text(f.assignments[1].value) == "y");
    CHECK(f.assignments[1].line == 4);
}

TEST_CASE("a multi-line double-quoted value") {
    auto f = parse_shell_fragment("A=\"a\nb\"\nB=1\n");
    CHECK(literal_text(f.assignments[0].value) == "a\nb");
    CHECK(f.assignments[1].line == 3);
}

TEST_CASE("refused with the line number of the problem") {
    CHECK(refused_line("A=1\nB=\"open\nC=2\n") == 2);
    CHECK(refused_line("A=1\n\nB='open\n") == 3);
    CHECK(refused_line("A=1\nB=`open\n") == 2);
    CHECK(refused_line("A=1\nB=$(open\n") == 2);
    CHECK(refused_line("A=1\nB=${open\n") == 2);
    CHECK(refused_line(std::string("A=1\nB=2\x00\x01", 10)) == 2);
    CHECK(refused_line("A=1\nB=\x7f\n") == 2);
    CHECK(refused_line("A=1\rB=2\n") == 1);
    CHECK(refused_line("A=1\nsource /etc/foo\n") == 2);
    CHECK(refused_line("A=1\n. /etc/foo\n") == 2);
    CHECK(refused_line("if true; then A=1; fi\n") == 1);
    CHECK(refused_line("A=1 && B=2\n") == 1);
    CHECK(refused_line("A=1\nB=2 cmd\n") == 2);
    CHECK(refused_line("A=(x y)\n") == 1);
    CHECK(refused_line("A+=x\n") == 1);
    CHECK(refused_line("f() { A=1; }\n") == 1);
    CHECK(refused_line("A=x\\") == 1);
    CHECK(refused_line("A=$(case x in x) echo;; esac)\n") == 1);
    CHECK(refused_line("A=\"${B:-$(c)}\"\n") == 1);
    CHECK(refused_line(";\n") == 1);
}

TEST_CASE("command substitution with nested parentheses and quotes is read to its end") {
    auto f = parse_shell_fragment("A=$(echo \"(\" ')' $(b)) B=2\n");
    REQUIRE(f.assignments.size() == 2);
    CHECK(f.assignments[0].has_substitution());
    CHECK(f.assignments[1].name == "B");
}
