// `hugetune fleet skus`: one line per SKU with its answer and whether it is settled.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/text.hpp"

namespace hugetune::cli {
namespace {

// A number, or "-" for none.
std::string cell_text(const std::optional<double>& value, int decimals, double scale = 1) {
    return value ? decimals_text(*value * scale, decimals) : "-";
}

std::string value_text(const model::fleet::FleetAnswer& a) {
    const std::string threads = std::to_string(a.hugepage_alloc_threads);
    return a.decision == model::Decision::set ? "hugepage_alloc_threads=" + threads
                                              : "keep default (" + threads + ")";
}

void print_row(const SkuRow& row) {
    std::cout << printable_text(row.key);
    if (!row.answer) {
        std::cout << "  no answer: " << printable_text(row.error) << "\n";
        return;
    }
    const auto& a = *row.answer;
    const std::string confidence = cell_text(a.confidence, 0, 100);
    std::cout << "  hosts " << a.hosts << "  runs " << a.runs << "  " << value_text(a)
              << "  confidence " << (confidence == "-" ? confidence : confidence + "%")
              << "  saving " << cell_text(a.saving_seconds, 2) << " s  verified boots "
              << a.verified_boots << "  measured/predicted " << cell_text(a.verification_ratio, 2)
              << "  pool " << a.pool.pages << "  ";
    if (a.status_reasons.empty())
        std::cout << model::fleet::to_string(a.status);
    std::cout << join(a.status_reasons, ",", [](const model::fleet::StatusReason& r) {
        return model::fleet::to_string(r.code);
    });
    if (!a.excluded.empty())
        std::cout << "  outliers left out " << a.excluded.size();
    std::cout << "\n";
}

}  // namespace

int run_fleet_skus(const Args& args) {
    std::string db_option;
    bool json = false;
    AnalysisFlags flags;
    po::options_description desc("Options");
    add_db_option(desc, db_option);
    desc.add_options()("json", po::bool_switch(&json), "print the SKUs as one JSON array");
    add_analysis_options(desc, flags);
    po::variables_map vm;
    if (!parse_options("fleet skus",
                       "hugetune fleet skus [--db PATH|URL] [--json] [analysis options]", desc,
                       args, vm))
        return 0;
    const auto options = fleet_analysis_options(flags);
    auto db = open_fleet_db(db_option);
    const auto rows = answers_of_all_skus(db, options, json ? Fit::read : Fit::left_out);
    print_listing(rows, json, print_row, "no SKUs yet: hugetune fleet ingest REPORT...");
    return 0;
}

}  // namespace hugetune::cli
