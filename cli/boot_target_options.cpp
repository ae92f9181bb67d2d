#include "cli/boot_target_options.hpp"

#include <filesystem>

#include "cli/setting_flags.hpp"

namespace hugetune::cli {

void add_boot_target_options(po::options_description& desc, BootTargetFlags& f) {
    desc.add_options()(
        "root", po::value(&f.root)->value_name("DIR"),
        "edit the system under DIR instead of / (an image, a test tree); may run without root")(
        "dry-run", po::bool_switch(&f.dry_run),
        "print the unified diff and the commands it would run; write nothing")(
        "no-regenerate", po::bool_switch(&f.no_regenerate),
        "edit the configuration but only print the command that rebuilds the boot entries")(
        "regenerate", po::bool_switch(&f.regenerate),
        "with --root other than /: run the root's own rebuild command inside it by chroot "
        "(never this machine's; needs root)");
}

boot::TargetOptions boot_target_options(const BootTargetFlags& f) {
    boot::TargetOptions t;
    t.words = flag_words();
    if (f.no_regenerate && f.regenerate)
        usage_error("--no-regenerate", "cannot be combined with --regenerate; pick one");
    if (!f.root.empty())
        t.root = root_option(f.root, "the root of the target system");
    t.dry_run = f.dry_run;
    t.regenerate = !f.no_regenerate;
    t.force_regenerate = f.regenerate;
    return t;
}

}  // namespace hugetune::cli
