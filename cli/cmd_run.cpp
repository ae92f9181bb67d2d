// `hugetune run`: the main job. Probe, sweep, fit, report; every check on the options and the
// output paths happens before the first pool is touched.
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/boot_sweep_option.hpp"
#include "cli/commands.hpp"
#include "cli/first_touch_option.hpp"
#include "cli/plot_output.hpp"
#include "cli/setting_flags.hpp"
#include "cli/sweep_options.hpp"
#include "model/boot_breakdown.hpp"
#include "model/documents/breakdown.hpp"
#include "model/documents/report.hpp"
#include "model/errors.hpp"
#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"
#include "model/text.hpp"
#include "reports/plot_data.hpp"
#include "reports/summary.hpp"
#include "tuner/probe/machine_facts.hpp"
#include "tuner/probe/probe.hpp"
#include "tuner/sweep/sweep.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/build_info.hpp"
#include "tuner/system/gnuplot.hpp"

namespace hugetune::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDefaultReportPath = "hugetune-report.json";

struct RunOptions {
    SweepOptions sweep;
    fs::path report = kDefaultReportPath;
    std::optional<fs::path> plot;
    std::optional<fs::path> boot_sweep;
    std::optional<std::uint64_t> boot_pages;
    std::optional<double> boot_gib;
    std::optional<double> first_touch_gib;
    double tolerance = model::RecommendOptions{}.tolerance;
    bool json = false;
    bool verbose = false;
    bool dry_run = false;
};

std::optional<RunOptions> parse_run(const Args& args) {
    RunOptions o;
    SweepOptionValues values;
    std::string report, plot, tolerance, boot_sweep;
    long long boot_pages = 0;
    double boot_gib = 0, first_touch_gib = 0;
    po::options_description desc("Options");
    desc.add_options()(
        "report", po::value(&report)->value_name("FILE"),
        option_help("write the JSON report to FILE", "./" + std::string(kDefaultReportPath))
            .c_str())("plot", po::value(&plot)->value_name("FILE"), kPlotOptionHelp)(
        "boot-pages", po::value(&boot_pages)->value_name("N"),
        "predict boot time for N huge pages (default: the cmdline's hugepages=, else the "
        "current pool, else 1 TiB)")("boot-gib", gib_value("--boot-gib", boot_gib, "1024"),
                                     "predict boot time for G GiB of huge pages")(
        "boot-sweep", po::value(&boot_sweep)->value_name("FILE"), kBootSweepOptionHelp);
    add_first_touch_option(desc, first_touch_gib);
    add_tolerance_option(desc, tolerance);
    desc.add_options()("json", po::bool_switch(&o.json), "print the report instead of the summary")(
        "verbose", po::bool_switch(&o.verbose),
        "also print the raw measurements, the model, the breakdown, the what-if rows, the notes, "
        "the warnings whole and the charts")(
        "dry-run", po::bool_switch(&o.dry_run),
        "print the plan (points, memory, estimated duration) and change nothing");
    add_sweep_options(desc, values);
    po::variables_map vm;
    if (!parse_options(
            "run",
            "hugetune run [--report FILE] [--plot FILE] [--boot-pages N | --boot-gib G]\n"
            "                    [--boot-sweep FILE] [--first-touch-gib G] [--tolerance P] "
            "[--json]\n"
            "                    [--verbose] [--dry-run] [sweep options]",
            desc, args, vm))
        return std::nullopt;
    o.sweep = sweep_options_from(values, vm);
    // A curve needs three thread counts: refuse now rather than after the sweep.
    std::set<int> counts(o.sweep.threads_per_node.begin(), o.sweep.threads_per_node.end());
    if (counts.size() < model::kMinThreadCounts)
        usage_error("--threads", "a fit needs at least " + std::to_string(model::kMinThreadCounts) +
                                     " different thread counts; e.g. 1,2,4");
    if (std::find(o.sweep.phases.begin(), o.sweep.phases.end(), Phase::alloc) ==
        o.sweep.phases.end())
        usage_error("--phases", "run predicts boot time from the alloc phase; include alloc");
    if (!report.empty())
        o.report = report;
    if (!boot_sweep.empty())
        o.boot_sweep = boot_sweep;
    if (!plot.empty())
        o.plot = plot_option(plot);
    if (vm.count("boot-pages") && vm.count("boot-gib"))
        usage_error("--boot-pages", "give either --boot-pages or --boot-gib, not both");
    if (vm.count("boot-pages")) {
        if (boot_pages < 1)
            usage_error("--boot-pages", "give a positive number of pages");
        o.boot_pages = static_cast<std::uint64_t>(boot_pages);
    }
    if (vm.count("boot-gib"))
        o.boot_gib = boot_gib;
    o.first_touch_gib = first_touch_gib_from(vm, first_touch_gib);
    if (o.first_touch_gib)
        require_zero_phase_for_first_touch(std::find(o.sweep.phases.begin(), o.sweep.phases.end(),
                                                     Phase::zero) != o.sweep.phases.end(),
                                           "include zero in --phases");
    if (vm.count("tolerance"))
        o.tolerance = parse_percent("--tolerance", tolerance);
    // The adaptive rule weighs the points with the decision's own tolerance.
    o.sweep.tolerance = o.tolerance;
    return o;
}

void show_dry_run(const RunOptions& o, const KernelFs& fs, const Probe& probe) {
    SweepPlan plan = plan_sweep(probe, read_memory_view(fs, probe), o.sweep);
    std::cout << format_plan(plan);
    std::cout << "report: " << o.report.string() << "\n";
    if (o.plot)
        std::cout << "plot:   " << o.plot->string() << "\n";
}

// Where the measurements are kept when they cannot support a recommendation.
fs::path kept_sweep_path(const fs::path& report) {
    fs::path kept = report;
    kept += ".sweep.json";
    return kept;
}

// Every file run may write, checked in the first second, --dry-run included.
void check_output_paths(const RunOptions& o) {
    check_writable_path(o.report, "--report");
    check_writable_path(kept_sweep_path(o.report), "--report");
    if (o.plot) {
        check_writable_path(*o.plot, "--plot");
        check_writable_path(gnuplot_script_path(*o.plot), "--plot");
    }
}

// Everything that can fail on its own fails now, before a pool changes.
void check_before_changes(const RunOptions& o, const KernelFs& fs, const Probe& probe) {
    require_root_and_hugetlb(fs, "hugetune run");
    // Planning validates the sample against free memory and refuses before any change.
    plan_sweep(probe, read_memory_view(fs, probe), o.sweep);
}

// The pool the prediction is for: --boot-pages or --boot-gib; without them the model takes
// the cmdline's hugepages=, else the current pool, else a 1 TiB reference.
model::RecommendOptions recommend_options(const RunOptions& o) {
    model::RecommendOptions recommend;
    recommend.tolerance = o.tolerance;
    recommend.words = flag_words();
    const double page_bytes = static_cast<double>(o.sweep.page_size_kb) * 1024;
    if (o.boot_pages) {
        recommend.pool_pages = *o.boot_pages;
        recommend.pool_source = "--boot-pages";
    } else if (o.boot_gib) {
        recommend.pool_pages = static_cast<std::uint64_t>(
            std::max(1.0, std::round(*o.boot_gib * 1024 * 1024 * 1024 / page_bytes)));
        recommend.pool_source = "--boot-gib";
    }
    return recommend;
}

struct Fitted {
    model::SweepData data;
    model::Recommendation recommendation;
};

// The sweep goes to the fit as measured, in memory; its file is written only to keep it.
Fitted recommend(const RunOptions& o, const Probe& probe, const SweepResult& sweep,
                 const model::MeasuredSweep& measured) {
    try {
        model::SweepData data =
            model::fit_input(measured, machine_facts(probe, measured.page_size_kb, measured.nodes));
        model::Recommendation recommendation =
            model::recommend_from_sweep(data, recommend_options(o));
        return {std::move(data), std::move(recommendation)};
    } catch (const std::exception&) {
        // Keep the measurements: they can be fitted again later with `hugetune fit`. The sweep
        // is hugetune's own, so a problem in it is a failure of the run, not of the command
        // line.
        const fs::path kept = kept_sweep_path(o.report);
        write_file_atomically(kept, to_json(sweep).dump(2) + "\n");
        const ErrorReport error = current_error();
        if (!error.typed)
            throw;
        throw RuntimeError("the sweep cannot support a recommendation: " + error.message +
                           "; the measurements are in " + kept.string());
    }
}

// The kernel's facts the what-if rows and the first touch need are the probe's, as the fit
// input took them (tuner/probe/machine_facts.hpp: the facts `fit` of the kept sweep reads); the
// probe's blocks are the ones the sweep keeps for its file.
model::Report make_run_report(const RunOptions& o, const SweepResult& sweep,
                              model::MeasuredSweep measured, Fitted fitted) {
    model::ReportParts parts = model::fitted_parts(std::move(fitted.recommendation), fitted.data);
    if (o.first_touch_gib)
        parts.run.first_touch =
            model::first_touch(fitted.data, *o.first_touch_gib, fitted.data.machine.kernel);
    parts.run.probe = sweep.probe;
    parts.run.sweep = std::move(measured);
    parts.run.tool = {std::string(tool_version()), std::string(tool_commit())};
    parts.run.generated_at = utc_now();
    return model::make_report(std::move(parts));
}

// The report file first, then the summary (or the JSON) on stdout, then the plot, all from the
// one report value.
void publish(const RunOptions& o, const model::Report& report,
             const std::optional<model::BootComparison>& boots) {
    const nlohmann::json document = model::to_json(report);
    write_file_atomically(o.report, document.dump(2) + "\n");
    if (o.json) {
        std::cout << document.dump(2) << "\n";
    } else {
        std::cout << printable_lines(format_report_summary(report, flag_words(), o.verbose));
        if (boots)
            std::cout << "\n" << printable_lines(format_boot_comparison(*boots));
        std::cout << "\nreport written to " << o.report.string() << "\n";
    }
    // The notes after the result, so that with 2>&1 the answer still comes first.
    std::cout.flush();
    for (const auto& note : report.run->fit.notes)
        print_diagnostic("note", note);
    if (o.plot) {
        auto plotted = render_plot(plot_data_from_report(report), *o.plot);
        std::cerr << "hugetune: " << plotted.message << "\n";
    }
}

}  // namespace

int run_run(const Args& args) {
    auto options = parse_run(args);
    if (!options)
        return 0;
    check_output_paths(*options);
    std::optional<model::SweepData> boot_data;
    if (options->boot_sweep)
        boot_data = read_boot_sweep_option(*options->boot_sweep);
    KernelFs fs("/");
    Probe probe = probe_machine(fs);
    options->sweep.page_size_kb = page_size_of(options->sweep, probe);
    if (options->dry_run) {
        show_dry_run(*options, fs, probe);
        return 0;
    }
    check_before_changes(*options, fs, probe);
    SweepResult sweep;
    {
        ConsoleProgress progress(std::nullopt);
        sweep = run_sweep(fs, probe, options->sweep, &progress);
    }
    model::MeasuredSweep measured = measured_sweep(sweep);
    Fitted fitted = recommend(*options, probe, sweep, measured);
    std::optional<model::BootComparison> boots;
    if (boot_data)
        boots = model::compare_with_boots(fitted.recommendation, *boot_data,
                                          {&fitted.data, fitted.data.machine.kernel});
    model::Report report = make_run_report(*options, sweep, std::move(measured), std::move(fitted));
    if (boots)
        report.run->boot_sweep = boots;
    publish(*options, report, boots);
    return 0;
}

}  // namespace hugetune::cli
