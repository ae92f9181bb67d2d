// Options that apply and rollback share: which system to edit and whether to rebuild its
// boot entries.
#pragma once

#include <string>

#include "cli/cli.hpp"
#include "tuner/boot/apply.hpp"

namespace hugetune::cli {

struct BootTargetFlags {
    std::string root;
    bool dry_run = false;
    bool no_regenerate = false;
    bool regenerate = false;
};

void add_boot_target_options(po::options_description& desc, BootTargetFlags& flags);
// Validates the flags; throws UsageError naming the option.
boot::TargetOptions boot_target_options(const BootTargetFlags& flags);

}  // namespace hugetune::cli
