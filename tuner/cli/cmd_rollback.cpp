#include <iostream>

#include "tuner/boot/apply.hpp"
#include "tuner/cli/boot_target_options.hpp"
#include "tuner/cli/commands.hpp"

namespace hugetune::cli {

int run_rollback(const Args& args) {
    BootTargetFlags flags;
    po::options_description desc("Options");
    add_boot_target_options(desc, flags);
    po::variables_map vm;
    if (!parse_options(
            "rollback",
            "hugetune rollback [--root DIR] [--dry-run] [--no-regenerate | --regenerate]", desc,
            args, vm))
        return 0;
    return boot::rollback_boot_parameter(boot_target_options(flags), std::cout, std::cerr);
}

}  // namespace hugetune::cli
