// `hugetune fleet export --format json|csv|cmdline|prometheus`: per SKU what a configuration
// tool (Ansible, Salt, Puppet) needs, or metrics for node_exporter's textfile collector.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/text.hpp"
#include "reports/prometheus.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {
namespace {

struct ExportCommand {
    std::string db, format = "json", out;
    model::fleet::FleetOptions options;
};

std::optional<ExportCommand> parse_export(const Args& args) {
    ExportCommand o;
    po::options_description desc("Options");
    desc.add_options()("format", po::value(&o.format)->value_name("FORMAT"),
                       option_help("json, csv, cmdline (one 'SKU hugepage_alloc_threads=N' line "
                                   "per settled SKU that sets a value) or prometheus",
                                   "json")
                           .c_str())("out", po::value(&o.out)->value_name("FILE"),
                                     "write to FILE (atomically) instead of stdout; with "
                                     "prometheus a .prom file");
    add_db_option(desc, o.db);
    AnalysisFlags flags;
    add_analysis_options(desc, flags);
    po::variables_map vm;
    if (!parse_options("fleet export",
                       "hugetune fleet export [--format FORMAT] [--out FILE] [--db PATH|URL]\n"
                       "                             [analysis options]",
                       desc, args, vm))
        return std::nullopt;
    o.options = fleet_analysis_options(flags);
    if (o.format != "json" && o.format != "csv" && o.format != "cmdline" &&
        o.format != "prometheus")
        usage_error("--format", "'" + o.format + "' is not one of json, csv, cmdline, prometheus");
    if (o.format == "prometheus" && !o.out.empty() &&
        std::filesystem::path(o.out).extension() != ".prom")
        usage_error("--out",
                    "node_exporter's textfile collector reads only *.prom files; name "
                    "it FILE.prom");
    if (!o.out.empty())
        check_writable_path(o.out, "--out");
    return o;
}

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. A field
// a spreadsheet would take for a formula (starting with = + - @, a tab or a carriage return)
// is quoted too, after a single quote that keeps it text.
std::string csv_field(const std::string& text) {
    const bool formula =
        !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
    if (!formula && text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out = formula ? "\"'" : "\"";
    for (const char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

bool exportable(const SkuRow& row) {
    return row.answer && row.answer->status == model::fleet::SkuStatus::settled &&
           !row.answer->kernel_cmdline.empty();
}

std::string render(const std::string& format, const std::vector<SkuRow>& rows) {
    std::string out;
    if (format == "json") {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& row : rows)
            j.push_back(to_json(row));
        return j.dump(2) + "\n";
    }
    if (format == "csv") {
        out = "sku,status,decision,hugepage_alloc_threads,kernel_cmdline\n";
        for (const auto& row : rows) {
            if (!row.answer) {
                out += csv_field(row.key) + ",error,,,\n";
                continue;
            }
            const auto& a = *row.answer;
            out += csv_field(row.key) + "," + model::fleet::to_string(a.status) + "," +
                   model::to_string(a.decision) + "," + std::to_string(a.hugepage_alloc_threads) +
                   "," + a.kernel_cmdline + "\n";
        }
        return out;
    }
    if (format == "cmdline") {
        for (const auto& row : rows)
            if (exportable(row))
                out += row.key + " " + row.answer->kernel_cmdline + "\n";
        return out;
    }
    std::vector<model::fleet::FleetAnswer> answers;
    for (const auto& row : rows)
        if (row.answer)
            answers.push_back(*row.answer);
    return prometheus_text(fleet_samples(answers));
}

}  // namespace

int run_fleet_export(const Args& args) {
    const auto o = parse_export(args);
    if (!o)
        return 0;
    auto db = open_fleet_db(fleet_db_target(o->db), false);
    const auto rows =
        answers_of_all_skus(db, o->options, o->format == "json" ? Fit::read : Fit::left_out);
    const std::string text = render(o->format, rows);
    if (o->format == "cmdline") {
        const auto left =
            std::count_if(rows.begin(), rows.end(), [](const SkuRow& r) { return !exportable(r); });
        if (left > 0)
            print_diagnostic("note", std::to_string(left) +
                                         " SKUs left out: not settled, or the kernel default "
                                         "is kept (see 'hugetune fleet skus')");
    }
    if (o->out.empty())
        std::cout << text;
    else
        write_file_atomically(o->out, text);
    return 0;
}

}  // namespace hugetune::cli
