// `hugetune fit`: reads a sweep JSON or a CSV table, fits the scaling curves and prints the
// recommended hugepage_alloc_threads (for a sweep with the breakdown and what-if rows `run`
// prints). Reads one file and writes only the --plot it is given; changes nothing on the machine.
#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/boot_sweep_option.hpp"
#include "cli/commands.hpp"
#include "cli/first_touch_option.hpp"
#include "cli/plot_output.hpp"
#include "cli/setting_flags.hpp"
#include "model/alloc_threads.hpp"
#include "model/boot_breakdown.hpp"
#include "model/documents/breakdown.hpp"
#include "model/documents/fit.hpp"
#include "model/documents/report.hpp"
#include "model/errors.hpp"
#include "model/input/json_fields.hpp"
#include "model/recommend.hpp"
#include "model/text.hpp"
#include "reports/plot_data.hpp"
#include "reports/summary.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/build_info.hpp"
#include "tuner/system/json_file.hpp"

namespace hugetune::cli {
namespace {

struct FitCommandOptions {
    std::filesystem::path input;
    std::optional<std::filesystem::path> boot_sweep;
    std::optional<std::filesystem::path> plot;
    model::RecommendOptions recommend;
    std::optional<double> first_touch_gib;
    bool json = false;
    bool verbose = false;
};

std::optional<FitCommandOptions> parse_fit(const Args& args) {
    FitCommandOptions o;
    o.recommend.words = flag_words();
    std::string input, tolerance, boot_sweep, plot;
    int nodes = 0, cpus = 0;
    double first_touch_gib = 0;
    std::string seed;
    po::options_description desc("Options");
    desc.add_options()("input", po::value(&input)->value_name("FILE"),
                       "sweep JSON from 'hugetune sweep --out', a result of 'hugetune boot-sweep', "
                       "or CSV with header threads_per_node,seconds "
                       "(optional phase column: boot, alloc, zero, grow)")(
        "nodes", po::value(&nodes)->value_name("K"),
        "NUMA nodes with memory (default: the sweep's probe; 1 for a CSV)")(
        "cpus", po::value(&cpus)->value_name("C"),
        "online CPUs, the cap on the total (default: the sweep's probe; for a CSV the largest "
        "measured count x nodes)");
    add_tolerance_option(desc, tolerance);
    desc.add_options()("seed", po::value(&seed)->value_name("S"),
                       ("bootstrap seed (default: the sweep's, or " +
                        std::to_string(model::SweepData{}.seed) + ")")
                           .c_str())("json", po::bool_switch(&o.json),
                                     "print one JSON object instead of the summary")(
        "verbose", po::bool_switch(&o.verbose),
        "also print the model, every prediction, the breakdown, the what-if rows, the notes and "
        "the warnings whole")("boot-sweep", po::value(&boot_sweep)->value_name("FILE"),
                              kBootSweepOptionHelp)("plot", po::value(&plot)->value_name("FILE"),
                                                    kPlotOptionHelp);
    add_first_touch_option(desc, first_touch_gib);
    po::variables_map vm;
    if (!parse_options(
            "fit",
            "hugetune fit --input FILE [--nodes K] [--cpus C] [--tolerance P] "
            "[--seed S] [--boot-sweep FILE]\n"
            "                    [--first-touch-gib G] [--plot FILE] [--json] [--verbose]",
            desc, args, vm))
        return std::nullopt;
    if (input.empty())
        usage_error("--input", "missing; give a sweep JSON or a CSV file");
    o.input = input;
    if (!boot_sweep.empty())
        o.boot_sweep = boot_sweep;
    if (!plot.empty())
        o.plot = plot_option(plot);
    if (vm.count("nodes")) {
        if (nodes < 1 || nodes > kMaxNodes)
            usage_error("--nodes", "must be between 1 and " + std::to_string(kMaxNodes));
        o.recommend.nodes = nodes;
    }
    if (vm.count("cpus")) {
        if (cpus < 1 || cpus > 1 << 20)
            usage_error("--cpus", "must be at least 1");
        o.recommend.online_cpus = cpus;
    }
    if (o.recommend.nodes && o.recommend.online_cpus &&
        *o.recommend.online_cpus < *o.recommend.nodes)
        usage_error("--cpus", "fewer CPUs than --nodes; every node with memory has a CPU here");
    if (vm.count("tolerance"))
        o.recommend.tolerance = parse_percent("--tolerance", tolerance);
    if (vm.count("seed"))
        o.recommend.seed = parse_unsigned("--seed", seed);
    o.first_touch_gib = first_touch_gib_from(vm, first_touch_gib);
    return o;
}

[[noreturn]] void refuse_size(const std::string& name, const std::string& problem) {
    throw UsageError(name + ": " + problem + ", the most hugetune reads; " +
                     std::string(model::kFewerSamplesFix));
}

std::string too_large_text() {
    return "larger than " + std::to_string(model::kMaxInputBytes / (1024 * 1024)) + " MiB";
}

std::string read_input(const std::filesystem::path& path) {
    const std::string name = "--input " + path.string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw UsageError(name + ": no such file; give a sweep JSON or a CSV file");
    if (std::filesystem::is_directory(path, ec))
        throw UsageError(name + ": is a directory; give a sweep JSON or a CSV file");
    // Refused before reading where the size is known; a pipe is cut off at the bound instead.
    if (const auto bytes = std::filesystem::file_size(path, ec);
        !ec && bytes > model::kMaxInputBytes)
        refuse_size(name, too_large_text());
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw UsageError(name + ": cannot read it: " + std::strerror(errno));
    std::string text;
    std::array<char, 1 << 16> chunk{};
    while (in && text.size() <= model::kMaxInputBytes) {
        in.read(chunk.data(), chunk.size());
        text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad())
        throw UsageError(name + ": read failed: " + std::strerror(errno));
    if (text.size() > model::kMaxInputBytes)
        refuse_size(name, too_large_text());
    return text;
}

// Parses a sweep document, refusing it once it holds more values than kMaxJsonValues: its
// bytes alone do not bound the memory the parsed document takes.
nlohmann::json parse_bounded_json(const std::string& name, const std::string& text) {
    std::size_t values = 0;
    return parse_json_text(
        name, text, [&](int, nlohmann::json::parse_event_t event, nlohmann::json&) {
            if (event == nlohmann::json::parse_event_t::value && ++values > model::kMaxJsonValues)
                refuse_size(name,
                            "more than " + std::to_string(model::kMaxJsonValues) + " JSON values");
            return true;
        });
}

// A document starts with '{' or '['; anything else that parses whole (null, a number, a string)
// is JSON too and must not be read as a CSV header.
bool looks_like_json(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '['))
        return true;
    return !nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false).is_discarded();
}

struct Input {
    model::SweepData data;
    nlohmann::json sweep;  // the sweep document; null for a CSV table or a boot sweep's result
    model::MeasuredSweep measured;  // its measured block, read
};

Input parse_input(const std::filesystem::path& path, const std::string& text) {
    const std::string name = "--input " + path.string();
    const model::InputSource input{path.string(), "input"};
    if (looks_like_json(text)) {
        nlohmann::json doc = parse_bounded_json(name, text);
        if (!doc.is_object())
            throw UsageError(name + ": is JSON but not a sweep document (a JSON " +
                             doc.type_name() +
                             "); give the file written by 'hugetune sweep --out'");
        if (doc.contains("format") && doc["format"] == model::kBootSweepFormat) {
            model::SweepData boots = model::parse_boot_sweep_json(doc, input);
            model::check_enough_thread_counts(boots.phases.front(), std::nullopt, input);
            return {std::move(boots), nullptr, {}};
        }
        model::check_sweep_format(doc, input);
        const model::JsonField field(doc, "give a file written by 'hugetune sweep --out'", input);
        model::MeasuredSweep measured = model::read_measured_sweep(field);
        model::SweepData data = model::fit_input(measured, field["probe"], "points");
        return {std::move(data), std::move(doc), std::move(measured)};
    }
    return {model::parse_csv_table(text, input), nullptr, {}};
}

// --plot draws what `run --plot` draws for the same sweep: the report `run` would have written,
// made in memory (never written), so the picture comes from the same place for both commands.
void draw_plot(const std::filesystem::path& plot, const Input& input, model::ReportParts parts) {
    parts.run.probe = model::read_probe_record(model::JsonField(input.sweep["probe"]));
    parts.run.sweep = input.measured;
    parts.run.tool = {std::string(tool_version()), std::string(tool_commit())};
    parts.run.generated_at = utc_now();
    const model::Report report = model::make_report(std::move(parts));
    const auto plotted = render_plot(plot_data_from_report(report), plot);
    std::cerr << "hugetune: " << plotted.message << "\n";
}

}  // namespace

int run_fit(const Args& args) {
    auto options = parse_fit(args);
    if (!options)
        return 0;
    std::optional<model::SweepData> boot_data;
    if (options->boot_sweep)
        boot_data = read_boot_sweep_option(*options->boot_sweep);
    if (options->plot) {
        check_writable_path(*options->plot, "--plot");
        check_writable_path(gnuplot_script_path(*options->plot), "--plot");
    }
    const std::string text = read_input(options->input);
    const Input input = parse_input(options->input, text);
    const model::SweepData& data = input.data;
    if (options->plot && (input.sweep.is_null() || !input.sweep.contains("probe")))
        usage_error("--plot",
                    "draws a sweep's fit with its probe; give the sweep JSON that "
                    "'hugetune sweep --out' wrote");
    std::optional<model::FirstTouch> touch;
    if (options->first_touch_gib)
        touch = first_touch_of(data, *options->first_touch_gib);
    // The kernel's facts are the sweep's probe's, as `run` takes them for its report.
    model::ReportParts parts =
        model::fitted_parts(model::recommend_from_sweep(data, options->recommend), data);
    const model::Recommendation& result = parts.run.fit;
    std::optional<model::BootComparison> boots;
    if (boot_data)
        boots = model::compare_with_boots(result, *boot_data, {&data, data.machine.kernel});
    parts.run.first_touch = std::move(touch);
    if (options->json) {
        std::cout << model::fit_output_json(parts, boots).dump(2) << "\n";
    } else {
        std::cout << printable_lines(
            format_fit_summary(result, thread_grid(data), flag_words(), options->verbose));
        if (const auto lines =
                format_breakdown(parts.run.breakdown, parts.run.what_if, parts.run.first_touch);
            options->verbose && !lines.empty())
            std::cout << "\n" << printable_lines(lines);
        if (boots)
            std::cout << "\n" << printable_lines(format_boot_comparison(*boots));
    }
    // The notes after the result, so that with 2>&1 the answer still comes first.
    std::cout.flush();
    for (const auto& note : result.notes)
        print_diagnostic("note", note);
    if (options->plot)
        draw_plot(*options->plot, input, std::move(parts));
    return 0;
}

}  // namespace hugetune::cli
