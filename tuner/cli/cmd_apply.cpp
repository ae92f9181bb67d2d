#include <filesystem>
#include <iostream>

#include "tuner/boot/apply.hpp"
#include "tuner/boot/report_input.hpp"
#include "tuner/cli/boot_target_options.hpp"
#include "tuner/cli/commands.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {
namespace {

constexpr std::string_view kApplyUsage =
    "hugetune apply (--report FILE | --value N) [--root DIR]\n"
    "                      [--bootloader auto|grub|grubby|kernel-cmdline] [--dry-run]\n"
    "                      [--no-regenerate | --regenerate]";

std::optional<boot::ApplyRequest> parse_apply(const Args& args) {
    std::string report, value, loader = "auto";
    BootTargetFlags flags;
    po::options_description desc("Options");
    desc.add_options()(
        "report", po::value(&report)->value_name("FILE"),
        "the report of 'hugetune run': applies recommendation.hugepage_alloc_threads")(
        "value", po::value(&value)->value_name("N"),
        ("apply this thread count instead (1 to " + std::to_string(kMaxAllocThreads) +
         "); the report is then optional")
            .c_str())("bootloader", po::value(&loader)->value_name("KIND"),
                      "auto (default: decided from the files under the root), grub, grubby or "
                      "kernel-cmdline");
    add_boot_target_options(desc, flags);
    po::variables_map vm;
    if (!parse_options("apply", kApplyUsage, desc, args, vm))
        return std::nullopt;

    boot::ApplyRequest r;
    r.target = boot_target_options(flags);
    if (loader != "auto") {
        r.target.bootloader = boot::parse_bootloader_name(loader);
        if (!r.target.bootloader)
            usage_error("--bootloader",
                        "'" + loader + "' is not one of auto, grub, grubby, kernel-cmdline");
    }
    if (vm.count("value")) {
        auto n = parse_thread_count(value);
        if (!n)
            usage_error("--value", "'" + value + "' is not an integer from 1 to " +
                                       std::to_string(kMaxAllocThreads));
        r.value = std::to_string(*n);
    }
    if (vm.count("report")) {
        auto rec = read_report(report, false, "give --value N instead");
        if (r.value.empty())
            r.value = std::to_string(rec.threads);
        r.kernel_release = rec.kernel_release;
    } else if (r.value.empty()) {
        usage_error("--report", "missing; give the report of 'hugetune run', or --value N");
    }
    return r;
}

}  // namespace

int run_apply(const Args& args) {
    auto request = parse_apply(args);
    if (!request)
        return 0;
    return boot::apply_boot_parameter(*request, std::cout, std::cerr);
}

}  // namespace hugetune::cli
