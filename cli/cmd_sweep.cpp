#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/setting_flags.hpp"
#include "cli/sweep_options.hpp"
#include "model/errors.hpp"
#include "reports/summary.hpp"
#include "reports/sweep_tables.hpp"
#include "tuner/kernel/cmdline.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/sweep.hpp"
#include "tuner/system/atomic_file.hpp"

namespace hugetune::cli {
namespace {

struct SweepCommandOptions {
    SweepOptions sweep;
    std::optional<std::filesystem::path> out;
    bool json = false;
    bool dry_run = false;
    std::filesystem::path root = "/";
};

std::optional<SweepCommandOptions> parse_sweep(const Args& args) {
    SweepCommandOptions o;
    SweepOptionValues values;
    std::string out, root;
    po::options_description desc("Options");
    add_sweep_options(desc, values);
    desc.add_options()("out", po::value(&out)->value_name("FILE"),
                       "write the sweep as JSON to FILE, rewritten after every repetition")(
        "json", po::bool_switch(&o.json), "print the sweep as JSON instead of tables")(
        "dry-run", po::bool_switch(&o.dry_run),
        "print the plan and change nothing (no root needed)")(
        "root", po::value(&root)->value_name("DIR"),
        "with --dry-run: plan for a tree gathered from another machine");
    po::variables_map vm;
    if (!parse_options("sweep",
                       "hugetune sweep [sweep options] [--out FILE] [--json] "
                       "[--dry-run [--root DIR]]",
                       desc, args, vm))
        return std::nullopt;
    o.sweep = sweep_options_from(values, vm);
    if (!out.empty())
        o.out = out;
    if (!root.empty()) {
        if (!o.dry_run)
            usage_error("--root", "only works with --dry-run (a sweep measures this machine)");
        o.root = gathered_root_option(root);
    }
    return o;
}

}  // namespace

int run_sweep_command(const Args& args) {
    auto options = parse_sweep(args);
    if (!options)
        return 0;
    // Checked before the plan too: a dry run promises the real one would get that far.
    if (options->out)
        check_writable_path(*options->out, "--out");
    if (options->dry_run) {
        KernelFs fs(options->root);
        Probe probe = probe_machine(fs);
        SweepPlan plan = plan_sweep(probe, read_memory_view(fs, probe), options->sweep);
        if (options->json)
            std::cout << to_json(plan).dump(2) << "\n";
        else
            std::cout << format_plan(plan);
        return 0;
    }
    KernelFs fs("/");
    require_root_and_hugetlb(fs, "a sweep");
    Probe probe = probe_machine(fs);
    SweepResult result;
    {
        ConsoleProgress progress(options->out);
        result = run_sweep(fs, probe, options->sweep, &progress);
    }
    const nlohmann::json sweep = to_json(result);
    if (options->out)
        write_file_atomically(*options->out, sweep.dump(2) + "\n");
    if (options->json)
        std::cout << sweep.dump(2) << "\n";
    else
        std::cout << format_sweep_summary(measured_sweep(result), flag_words());
    return 0;
}

}  // namespace hugetune::cli
