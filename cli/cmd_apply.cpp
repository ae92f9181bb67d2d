#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/boot_target_options.hpp"
#include "cli/commands.hpp"
#include "cli/json_result.hpp"
#include "model/alloc_threads.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/apply.hpp"
#include "tuner/boot/report_gate.hpp"
#include "tuner/boot/report_input.hpp"
#include "tuner/kernel/cmdline.hpp"

namespace hugetune::cli {
namespace {

constexpr std::string_view kApplyUsage =
    "hugetune apply (--report FILE | --value N) [--root DIR]\n"
    "                      [--bootloader auto|grub|grubby|kernel-cmdline] [--dry-run]\n"
    "                      [--no-regenerate | --regenerate] [--force] [--json]";

struct ApplyCommand {
    boot::ApplyRequest request;
    std::string report_path;  // empty: none given
    bool value_given = false;
    bool force = false;
    std::optional<model::Report> report;
};

// A report from another machine says nothing about this one; a tree under --root is not this
// machine, so there is nothing to compare it with.
// --value read as the kernel reads the parameter's value (kstrtoul base 0: "+8" and "0x8" are
// 8) and written in decimal. A leading 0 is refused: the kernel reads "010" as octal 8, where a
// person typing it means ten (docs/kernel-facts.md "Parsing the value").
std::string value_option(const std::string& value) {
    std::string_view number = value;
    if (number.starts_with('+'))
        number.remove_prefix(1);
    const auto count = parse_kernel_ulong(value);
    if (number.size() > 1 && number[0] == '0' && number[1] != 'x' && number[1] != 'X')
        usage_error("--value", "'" + value + "' starts with 0, which the kernel reads as octal" +
                                   (count ? " (" + std::to_string(*count) + ")" : "") +
                                   "; give the count in decimal, without the 0");
    if (!count || *count < 1 || *count > kMaxAllocThreads)
        usage_error("--value", "'" + value + "' is not an integer from 1 to " +
                                   std::to_string(kMaxAllocThreads));
    return std::to_string(*count);
}

std::optional<boot::MachineIdentity> target_machine(const boot::TargetOptions& target) {
    KernelFs root(target.root);
    if (!root.is_live())
        return std::nullopt;
    return boot::machine_identity(probe_machine(root));
}

// Shows what the report says against its result. When its value is the one to apply: returns
// the line to print instead of applying (it recommends the kernel default), and refuses a
// report not fit to act on unless --force, which the ledger then records.
std::optional<std::string> judge_report(const model::Report& report, ApplyCommand& cmd) {
    boot::ReportStanding standing = boot::report_standing(report);
    for (const auto& n : boot::standing_notes(standing))
        print_diagnostic("note", n);
    for (const auto& w : boot::standing_warnings(standing))
        print_diagnostic("warning", w);
    if (cmd.value_given)
        return std::nullopt;
    if (report.recommendation.decision == model::Decision::keep_default)
        return "the report recommends keeping the kernel's default thread count; nothing "
               "changed (give --value N to set one anyway)";
    auto reasons = boot::unfit_reasons(standing, target_machine(cmd.request.target));
    if (reasons.empty())
        return std::nullopt;
    if (!cmd.force)
        throw UsageError("--report " + cmd.report_path +
                         ": not fit to act on: " + join(reasons, "; ") +
                         "; measure this machine again, or pass --force to apply it anyway");
    for (const auto& r : reasons)
        print_diagnostic("warning", "applying anyway (--force): " + r);
    cmd.request.forced = reasons;
    return std::nullopt;
}

std::optional<ApplyCommand> parse_apply(const Args& args, bool& json) {
    std::string report, value, loader = "auto";
    bool force = false;
    BootTargetFlags flags;
    po::options_description desc("Options");
    desc.add_options()(
        "report", po::value(&report)->value_name("FILE"),
        "the report of 'hugetune run': applies recommendation.hugepage_alloc_threads")(
        "value", po::value(&value)->value_name("N"),
        ("apply this thread count instead (1 to " + std::to_string(kMaxAllocThreads) +
         "); the report is then optional")
            .c_str())("bootloader",
                      po::value(&loader)->value_name("auto|grub|grubby|kernel-cmdline"),
                      "auto (default: decided from the files under the root), grub, grubby or "
                      "kernel-cmdline")(
        "force", po::bool_switch(&force),
        ("apply the report's value although its warnings (" + model::unfit_codes_text() +
         ") or another host or SKU make it unfit; the ledger records why")
            .c_str());
    add_boot_target_options(desc, flags);
    add_json_result_option(desc, json);
    po::variables_map vm;
    if (!parse_options("apply", kApplyUsage, desc, args, vm))
        return std::nullopt;

    ApplyCommand cmd;
    cmd.force = force;
    cmd.report_path = report;
    boot::ApplyRequest& r = cmd.request;
    r.target = boot_target_options(flags);
    if (loader != "auto") {
        r.target.bootloader = boot::parse_bootloader_name(loader);
        // ostree is detected (/run/ostree-booted), never chosen: it ignores the files the
        // other choices edit.
        if (!r.target.bootloader || *r.target.bootloader == boot::Bootloader::ostree)
            usage_error("--bootloader",
                        "'" + loader + "' is not one of auto, grub, grubby, kernel-cmdline");
    }
    if (vm.count("value")) {
        r.value = value_option(value);
        cmd.value_given = true;
    }
    if (vm.count("report")) {
        model::ReportReading reading;
        reading.threads_fix = "give --value N instead";
        cmd.report = read_report_file(report, reading);
        if (r.value.empty())
            r.value = std::to_string(cmd.report->recommendation.hugepage_alloc_threads);
        r.kernel_release = cmd.report->kernel.release;
    } else if (r.value.empty()) {
        usage_error("--report", "missing; give the report of 'hugetune run', or --value N");
    }
    return cmd;
}

}  // namespace

int run_apply(const Args& args) {
    bool json = false, dry_run = false;
    boot::BootOutcome outcome;
    std::string nothing_done;
    auto body = [&] {
        auto cmd = parse_apply(args, json);
        if (!cmd)
            return 0;
        dry_run = cmd->request.target.dry_run;
        std::ostream& out = json ? std::cerr : std::cout;
        if (cmd->report)
            if (auto nothing_to_do = judge_report(*cmd->report, *cmd)) {
                nothing_done = *nothing_to_do;
                out << nothing_done << "\n";
                return 0;
            }
        outcome = boot::apply_boot_parameter(cmd->request);
        return print_boot_outcome(outcome, json);
    };
    return with_json_result(json, body, [&] {
        auto result = boot_outcome_json("apply", dry_run, outcome);
        result["unchanged_reason"] =
            nothing_done.empty() ? nlohmann::json() : nlohmann::json(nothing_done);
        return result;
    });
}

}  // namespace hugetune::cli
