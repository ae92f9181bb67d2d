#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/boot_target_options.hpp"
#include "cli/commands.hpp"
#include "cli/json_result.hpp"
#include "tuner/boot/apply.hpp"

namespace hugetune::cli {

int run_rollback(const Args& args) {
    bool json = false, dry_run = false, force = false;
    boot::BootOutcome outcome;
    auto body = [&] {
        BootTargetFlags flags;
        po::options_description desc("Options");
        desc.add_options()("force", po::bool_switch(&force),
                           "put back the value from before apply also where a file now gives "
                           "the kernel another value than apply wrote (someone set their own)");
        add_boot_target_options(desc, flags);
        add_json_result_option(desc, json);
        po::variables_map vm;
        if (!parse_options("rollback",
                           "hugetune rollback [--root DIR] [--dry-run] [--no-regenerate | "
                           "--regenerate] [--force] [--json]",
                           desc, args, vm))
            return 0;
        const boot::TargetOptions target = boot_target_options(flags);
        dry_run = target.dry_run;
        outcome = boot::rollback_boot_parameter(target, force);
        return print_boot_outcome(outcome, json);
    };
    return with_json_result(json, body,
                            [&] { return boot_outcome_json("rollback", dry_run, outcome); });
}

}  // namespace hugetune::cli
