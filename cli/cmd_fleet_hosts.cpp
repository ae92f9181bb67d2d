// `hugetune fleet hosts --sku KEY`: each host of a SKU against its siblings.
#include <iostream>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/text.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {

int run_fleet_hosts(const Args& args) {
    std::string db_option, sku;
    bool json = false;
    po::options_description desc("Options");
    desc.add_options()("sku", po::value(&sku)->value_name("KEY")->required(),
                       "the SKU, as 'fleet skus' prints it");
    add_db_option(desc, db_option);
    desc.add_options()("json", po::bool_switch(&json), "print the hosts as one JSON object");
    po::variables_map vm;
    if (!parse_options("fleet hosts", "hugetune fleet hosts --sku KEY [--db PATH|URL] [--json]",
                       desc, args, vm))
        return 0;
    model::fleet::parse_sku_key(sku, {"", "sku"});
    auto db = open_fleet_db(fleet_db_target(db_option), false);
    const auto runs = fleet_db_call([&] { return db.runs_of_sku(sku); });
    if (runs.empty())
        usage_error("--sku",
                    "no runs of SKU '" + sku + "' in the database; see 'hugetune fleet skus'");
    const std::vector<model::fleet::HostCheck> checks =
        model::fleet::check_hosts(runs, fleet_analysis_options(), sku_runs_input(sku));
    if (json) {
        nlohmann::json out = {{"sku", sku}, {"hosts", nlohmann::json::array()}};
        for (const auto& c : checks)
            out["hosts"].push_back(model::fleet::to_json(c));
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    for (const auto& c : checks) {
        std::cout << printable_text(c.host) << "  runs " << c.runs << "  kernel "
                  << printable_text(c.kernel_release.value_or("-")) << "  measured/predicted "
                  << (c.verification_ratio ? decimals_text(*c.verification_ratio, 2)
                                           : std::string("-"))
                  << "  " << (c.outlier ? "OUTLIER" : "ok");
        for (const auto& reason : c.reasons)
            std::cout << "; " << printable_text(reason);
        std::cout << "\n";
    }
    return 0;
}

}  // namespace hugetune::cli
