// `hugetune fleet ingest|skus|recommend|hosts|export|runs|forget|plan`: the fleet database
// (docs/fleet.md).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/fleet_commands.hpp"
#include "cli/help_formats.hpp"
#include "model/errors.hpp"

namespace hugetune::cli {
namespace {

struct Sub {
    Subcommand help;
    int (*run)(const Args&);
    bool holds_a_sku = false;  // holds a SKU's runs in memory (an answer, the hosts' checks)
};

const std::vector<Sub>& subcommands() {
    static const std::vector<Sub> subs = {
        {{"ingest", "store reports and boot records (files, directories, - for stdin), each once"},
         run_fleet_ingest},
        {{"skus", "one line per SKU: hosts, runs, the answer and whether it is settled"},
         run_fleet_skus,
         true},
        {{"recommend", "one SKU's answer from all its hosts' sweeps, with the kernel cmdline"},
         run_fleet_recommend,
         true},
        {{"hosts", "each host of a SKU against its siblings, outliers with the reason"},
         run_fleet_hosts,
         true},
        {{"export", "per SKU, hugepage_alloc_threads=N for configuration tools"},
         run_fleet_export,
         true},
        {{"runs", "every stored run with its key, host, SKU, kernel and verifications"},
         run_fleet_runs},
        {{"forget", "remove a host's runs, old runs, a kernel's or a version's, or a verification"},
         run_fleet_forget},
        {{"plan", "canary values on a share of a SKU's hosts, measured by their reboots"},
         run_fleet_plan,
         true},
    };
    return subs;
}

}  // namespace

bool fleet_holds_a_sku(const Args& args) {
    if (args.empty() || std::any_of(args.begin(), args.end(), [](const std::string& a) {
            return a == "--help" || a == "-h";
        }))
        return false;
    const auto& subs = subcommands();
    return std::any_of(subs.begin(), subs.end(),
                       [&](const Sub& s) { return s.holds_a_sku && s.help.name == args.front(); });
}

int run_fleet(const Args& args) {
    const std::string names = "ingest, skus, recommend, hosts, export, runs, forget, plan";
    if (args.empty() || args.front() == "--help" || args.front() == "-h") {
        std::vector<Subcommand> help;
        for (const auto& s : subcommands())
            help.push_back(s.help);
        print_subcommands_help(args.empty() ? std::cerr : std::cout, "fleet", help);
        if (args.empty())
            throw UsageError("fleet: give a subcommand (" + names + ")");
        return 0;
    }
    for (const auto& s : subcommands())
        if (args.front() == s.help.name)
            return s.run(Args(args.begin() + 1, args.end()));
    throw UsageError("fleet: unknown subcommand '" + args.front() + "'; give one of " + names);
}

}  // namespace hugetune::cli
