#include <iostream>

#include "cli/commands.hpp"
#include "tuner/boot/report_input.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {
namespace {

struct CmdlineOptions {
    std::string report;
};

std::optional<CmdlineOptions> parse_cmdline_command(const Args& args) {
    CmdlineOptions o;
    po::options_description desc("Options");
    desc.add_options()("report", po::value(&o.report)->value_name("FILE")->required(),
                       "a report written by 'hugetune run'");
    po::variables_map vm;
    if (!parse_options("cmdline", "hugetune cmdline --report FILE", desc, args, vm))
        return std::nullopt;
    return o;
}

}  // namespace

int run_cmdline(const Args& args) {
    auto options = parse_cmdline_command(args);
    if (!options)
        return 0;
    // Exactly the text to add to the kernel command line, for scripts: nothing when the
    // report decides to keep the kernel default (a report without a decision set its value).
    const model::ReportRecommendation rec = read_report_file(options->report).recommendation;
    if (rec.decision == model::Decision::keep_default) {
        std::cerr << "hugetune: note: the report decides to keep the kernel default ("
                  << rec.kernel_cmdline << "): nothing to add to the kernel command line\n";
        return 0;
    }
    std::cout << rec.kernel_cmdline << "\n";
    return 0;
}

}  // namespace hugetune::cli
