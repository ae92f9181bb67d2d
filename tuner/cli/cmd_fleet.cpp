// `hugetune fleet ingest|skus|recommend|hosts|export`: the fleet database (docs/fleet.md).
#include <iostream>

#include "tuner/cli/commands.hpp"
#include "tuner/cli/fleet_commands.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {
namespace {

struct Sub {
    const char* name;
    const char* summary;
    int (*run)(const Args&);
};

const Sub kSubs[] = {
    {"ingest", "store reports (files, directories, - for stdin), each once", run_fleet_ingest},
    {"skus", "one line per SKU: hosts, runs, the answer and whether it is settled", run_fleet_skus},
    {"recommend", "one SKU's answer from all its hosts' sweeps, with the kernel cmdline",
     run_fleet_recommend},
    {"hosts", "each host of a SKU against its siblings, outliers with the reason", run_fleet_hosts},
    {"export", "per SKU, hugepage_alloc_threads=N for configuration tools", run_fleet_export},
};

}  // namespace

int run_fleet(const Args& args) {
    const std::string subs = "ingest, skus, recommend, hosts, export";
    if (args.empty() || args.front() == "--help" || args.front() == "-h") {
        auto& out = args.empty() ? std::cerr : std::cout;
        out << "usage: hugetune fleet ingest|skus|recommend|hosts|export [options]\n\n"
               "Subcommands (each with its own --help):\n";
        for (const auto& s : kSubs)
            out << "  " << s.name << std::string(11 - std::string(s.name).size(), ' ') << s.summary
                << "\n";
        out << "\n" << exit_codes_text();
        if (args.empty())
            throw UsageError("fleet: give a subcommand (" + subs + ")");
        return 0;
    }
    for (const auto& s : kSubs)
        if (args.front() == s.name)
            return s.run(Args(args.begin() + 1, args.end()));
    throw UsageError("fleet: unknown subcommand '" + args.front() + "'; give one of " + subs);
}

}  // namespace hugetune::cli
