// `hugetune fleet recommend --sku KEY|--host NAME`: one SKU's answer from all its hosts.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "cli/plot_output.hpp"
#include "model/errors.hpp"
#include "model/fleet/host_runs.hpp"
#include "model/text.hpp"
#include "reports/fleet_plot.hpp"
#include "tuner/system/atomic_file.hpp"

namespace hugetune::cli {
namespace {

struct RecommendCommand {
    std::string db, sku, host, plot;
    bool json = false;
    model::fleet::FleetOptions options;
};

std::optional<RecommendCommand> parse_recommend(const Args& args) {
    RecommendCommand o;
    po::options_description desc("Options");
    desc.add_options()("sku", po::value(&o.sku)->value_name("KEY"),
                       "the SKU, as 'fleet skus' prints it (e.g. zen4/2n/32t/64g/2048k/ioa1)")(
        "host", po::value(&o.host)->value_name("NAME"), "the SKU of this host's latest report");
    add_db_option(desc, o.db);
    desc.add_options()("json", po::bool_switch(&o.json), "print the answer as one JSON object")(
        "plot", po::value(&o.plot)->value_name("FILE"),
        "also draw the SKU with gnuplot into FILE (.svg or .png): the predicted boot allocation "
        "with its band and the recommended value, and each host's measured alloc phase, the "
        "outliers marked");
    AnalysisFlags flags;
    add_analysis_options(desc, flags);
    po::variables_map vm;
    if (!parse_options("fleet recommend",
                       "hugetune fleet recommend (--sku KEY | --host NAME) [--db PATH|URL] "
                       "[--json] [--plot FILE]\n"
                       "                                [analysis options]",
                       desc, args, vm))
        return std::nullopt;
    o.options = fleet_analysis_options(flags);
    if (!o.plot.empty()) {
        if (!plot_format_for(o.plot))
            usage_error("--plot", "'" + o.plot + "' needs the extension .svg or .png");
        check_writable_path(o.plot, "--plot");
        check_writable_path(gnuplot_script_path(o.plot), "--plot");
    }
    if (o.sku.empty() == o.host.empty())
        usage_error("--sku", "give either --sku KEY or --host NAME");
    if (!o.sku.empty())
        model::fleet::parse_sku_key(o.sku, {"", "sku"});
    if (!o.host.empty())
        o.host = host_option(o.host);
    return o;
}

// The hosts' recorded boots beside the sweeps' prediction, a line per value booted.
void print_boots(const model::fleet::SkuBoots& b) {
    std::cout << "\nboots      " << count_text(b.boots, "boot") << " of "
              << count_text(b.hosts, "host") << ", kernel " << printable_text(b.kernel_family)
              << ", HVO " << (b.hvo ? (*b.hvo ? "on" : "off") : "unknown");
    if (b.other_boots > 0)
        std::cout << " (" << count_text(b.other_boots, "boot") << " of other kernels or HVO)";
    if (b.calibration) {
        std::cout << "; boots/prediction " << decimals_text(*b.calibration, 2);
        if (b.calibration_low && b.calibration_high)
            std::cout << " (" << decimals_text(*b.calibration_low, 2) << " to "
                      << decimals_text(*b.calibration_high, 2) << ")";
    }
    for (const auto& v : b.values) {
        std::cout << "\n  threads=" << v.threads << ": " << decimals_text(v.ms_per_1000_pages, 2)
                  << " ms per 1,000 pages (" << decimals_text(v.low, 2) << " to "
                  << decimals_text(v.high, 2) << "), " << count_text(v.hosts, "host") << ", "
                  << count_text(v.boots, "boot");
        if (v.predicted_ms_per_1000_pages)
            std::cout << "; predicted " << decimals_text(*v.predicted_ms_per_1000_pages, 2);
    }
    std::cout << "\n  " << printable_text(b.reason);
}

void print_answer(const model::fleet::FleetAnswer& a) {
    std::cout << "sku        " << printable_text(model::fleet::to_string(a.sku)) << " ("
              << count_text(a.hosts, "host") << ", " << count_text(a.runs, "run") << ")\n";
    std::cout << "decision   "
              << (a.decision == model::Decision::set ? "set" : "keep the kernel default,")
              << " hugepage_alloc_threads=" << a.hugepage_alloc_threads << "\n";
    std::cout << "predicted  " << decimals_text(a.predicted_seconds, 2) << " s";
    if (a.predicted_seconds_low && a.predicted_seconds_high)
        std::cout << " (" << decimals_text(*a.predicted_seconds_low, 2) << " to "
                  << decimals_text(*a.predicted_seconds_high, 2) << " s)";
    std::cout << ", saving " << decimals_text(a.saving_seconds, 2) << " s, confidence "
              << (a.confidence ? decimals_text(*a.confidence * 100, 0) + "%" : std::string("-"))
              << "\n";
    std::cout << "pool       " << a.pool.pages << " pages of " << a.pool.page_size_kb
              << " kB, from " << printable_text(a.pool.source);
    if (a.pool.other_hosts > 0)
        std::cout << " (" << count_text(a.pool.hosts, "host") << "; "
                  << count_text(a.pool.other_hosts, "host's report", "hosts' reports")
                  << (a.pool.other_hosts == 1 ? " was" : " were") << " made for another pool)";
    std::cout << "\n";
    for (const auto& e : a.excluded) {
        std::cout << "left out  " << printable_text(e.host) << " (outlier";
        for (const auto& r : e.reasons)
            std::cout << ": " << printable_text(r);
        std::cout << "); --include-outliers keeps it\n";
    }
    std::cout << "verified   " << count_text(a.verified_boots, "boot");
    if (a.verification_ratio)
        std::cout << ", measured/predicted " << decimals_text(*a.verification_ratio, 2);
    if (a.boots)
        print_boots(*a.boots);
    std::cout << "\nstatus     " << model::fleet::to_string(a.status);
    if (a.status_reasons.empty())
        std::cout << ": " << printable_text(a.status_reason) << "\n";
    else
        std::cout << "\n";
    for (const auto& r : a.status_reasons)
        std::cout << "  " << model::fleet::to_string(r.code) << ": " << printable_text(r.reason)
                  << "\n";
    std::cout << "cmdline    "
              << (a.kernel_cmdline.empty() ? std::string("(nothing to add)") : a.kernel_cmdline)
              << "\n";
}

}  // namespace

int run_fleet_recommend(const Args& args) {
    const auto o = parse_recommend(args);
    if (!o)
        return 0;
    auto db = open_fleet_db(o->db);
    std::string key = o->sku;
    if (key.empty()) {
        const auto found = db.sku_of_host(o->host);
        if (!found)
            usage_error("--host", "no report of host '" + o->host +
                                      "' in the database; ingest its report first");
        key = *found;
    }
    // The picture draws the fit's curve and band: it reads the kept answer whole, as --json.
    const bool whole = o->json || !o->plot.empty();
    const auto answer = answer_of_sku(db, key, o->options, whole ? Fit::read : Fit::left_out);
    if (o->json)
        std::cout << model::fleet::to_json(answer).dump(2) << "\n";
    else
        print_answer(answer);
    if (!o->plot.empty()) {
        const auto runs = db.runs_of_sku(key);
        const auto input = sku_runs_input(key);
        const auto data = fleet_plot_data(answer, model::fleet::read_host_runs(runs, input),
                                          model::fleet::check_hosts(runs, o->options, input));
        std::cerr << "hugetune: " << render_plot(data, o->plot).message << "\n";
    }
    return 0;
}

}  // namespace hugetune::cli
