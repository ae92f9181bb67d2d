// The forms --help takes for the man pages and the completion, from one options_description:
// roff escaping, the roff option entries, and the completion kinds of each value name.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "cli/help_formats.hpp"

using namespace hugetune::cli;
namespace po = boost::program_options;

namespace {

struct FormGuard {
    explicit FormGuard(HelpForm form) { set_help_form(form); }
    ~FormGuard() { set_help_form(HelpForm::text); }
};

po::options_description sample_options(std::string& text, bool& flag) {
    po::options_description desc("Options");
    desc.add_options()("help,h", "show this help and exit")(
        "report", po::value(&text)->value_name("FILE"), "the report (see --json)")(
        "log", po::value(&text)->value_name("FILE"), "a saved log")(
        "root", po::value(&text)->value_name("DIR"), "a tree")(
        "page-size", po::value(&text)->value_name("2M|1G"), "page size")(
        "threads", po::value(&text)->value_name("LIST"), "thread counts")(
        "json", po::bool_switch(&flag), ".starts with a dot \\ and a backslash");
    return desc;
}

std::string help_in(HelpForm form) {
    std::string text;
    bool flag = false;
    FormGuard guard(form);
    std::ostringstream out;
    print_command_help(out, "fit", "hugetune fit --report FILE", sample_options(text, flag));
    return out.str();
}

}  // namespace

TEST_CASE("roff escaping: options as minus signs, control characters of roff made text") {
    CHECK(roff_escape("--json") == "\\-\\-json");
    CHECK(roff_escape("-h, --help") == "\\-h, \\-\\-help");
    CHECK(roff_escape("kernel-cmdline") == "kernel\\-cmdline");
    CHECK(roff_escape("1 - 2") == "1 - 2");
    CHECK(roff_escape(".TH") == "\\&.TH");
    CHECK(roff_escape("a\n'b") == "a\n\\&'b");
    CHECK(roff_escape("C:\\x") == "C:\\ex");
}

TEST_CASE("roff options: one tagged paragraph per option, its value in italics") {
    const std::string roff = help_in(HelpForm::roff_options);
    CHECK(roff.find(".TP\n.B \\-h, \\-\\-help\nshow this help and exit\n") != std::string::npos);
    CHECK(roff.find(".TP\n.B \\-\\-report \\fIFILE\\fR\nthe report (see \\-\\-json)\n") !=
          std::string::npos);
    CHECK(roff.find(".TP\n.B \\-\\-json\n\\&.starts with a dot \\e and a backslash\n") !=
          std::string::npos);
    CHECK(help_in(HelpForm::roff_synopsis) == ".nf\nhugetune fit \\-\\-report FILE\n.fi\n");
}

TEST_CASE("completion table: files by the option's extensions, directories, choices, values") {
    const std::string table = help_in(HelpForm::completion);
    CHECK(table ==
          "fit\t--help\tflag\n"
          "fit\t--report\tfile json\n"
          "fit\t--log\tfile\n"
          "fit\t--root\tdir\n"
          "fit\t--page-size\tchoice 2M 1G\n"
          "fit\t--threads\tvalue\n"
          "fit\t--json\tflag\n");
}

TEST_CASE("the text form is the --help users read") {
    const std::string text = help_in(HelpForm::text);
    CHECK(text.rfind("usage: hugetune fit --report FILE\n\nOptions:\n", 0) == 0);
    CHECK(text.find("--page-size 2M|1G") != std::string::npos);
    CHECK(text.find("Exit codes:") != std::string::npos);
}
