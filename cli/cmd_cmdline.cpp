#include <iostream>

#include "cli/commands.hpp"
#include "model/alloc_threads.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/report_gate.hpp"
#include "tuner/boot/report_input.hpp"

namespace hugetune::cli {
namespace {

struct CmdlineOptions {
    std::string report;
    bool strict = false;
};

std::optional<CmdlineOptions> parse_cmdline_command(const Args& args) {
    CmdlineOptions o;
    po::options_description desc("Options");
    desc.add_options()("report", po::value(&o.report)->value_name("FILE")->required(),
                       "a report written by 'hugetune run'")(
        "strict", po::bool_switch(&o.strict),
        "print nothing and exit 2 for a report whose warnings make 'apply' refuse it");
    po::variables_map vm;
    if (!parse_options("cmdline", "hugetune cmdline --report FILE [--strict]", desc, args, vm))
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
    const model::Report report = read_report_file(options->report);
    const model::ReportRecommendation& rec = report.recommendation;
    // The reasons `apply` refuses the report for, whatever machine this is: its warnings.
    const auto unfit = boot::unfit_reasons(boot::report_standing(report), std::nullopt);
    if (!unfit.empty() && options->strict) {
        throw UsageError("--report " + options->report + ": not fit to act on: " +
                         join(unfit, "; ") + "; measure this machine again, or leave out --strict");
    }
    for (const auto& r : unfit)
        print_diagnostic("warning", "apply refuses this report: " + r);
    if (rec.decision == model::Decision::keep_default) {
        std::cerr << "hugetune: note: the report decides to keep the kernel default ("
                  << alloc_threads_setting(rec.hugepage_alloc_threads)
                  << "): nothing to add to the kernel command line\n";
        return 0;
    }
    std::cout << rec.kernel_cmdline << "\n";
    return 0;
}

}  // namespace hugetune::cli
