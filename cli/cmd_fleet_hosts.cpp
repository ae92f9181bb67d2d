// `hugetune fleet hosts --sku KEY`: each host of a SKU against its siblings.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"

namespace hugetune::cli {
namespace {

// The SKU of the same hardware with init_on_alloc the other way, when the database has it.
struct OtherSetting {
    std::string key;
    bool on = false;
    std::vector<std::string> hosts;
};

std::optional<OtherSetting> other_init_on_alloc(fleet_db::FleetDb& db, const std::string& sku) {
    model::fleet::SkuKey key = model::fleet::parse_sku_key(sku, {"", "sku"});
    if (!key.init_on_alloc)
        return std::nullopt;
    key.init_on_alloc = !*key.init_on_alloc;
    OtherSetting other{model::fleet::to_string(key), *key.init_on_alloc, {}};
    const auto keys = db.sku_keys();
    if (std::find(keys.begin(), keys.end(), other.key) == keys.end())
        return std::nullopt;
    for (const auto& run : db.runs_of_sku(other.key))
        if (std::find(other.hosts.begin(), other.hosts.end(), run.host) == other.hosts.end())
            other.hosts.push_back(run.host);
    return other;
}

}  // namespace

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
    auto db = open_fleet_db(db_option);
    const auto runs = db.runs_of_sku(sku);
    if (runs.empty())
        usage_error("--sku",
                    "no runs of SKU '" + sku + "' in the database; see 'hugetune fleet skus'");
    const std::vector<model::fleet::HostCheck> checks =
        model::fleet::check_hosts(runs, fleet_analysis_options(), sku_runs_input(sku));
    const auto other = other_init_on_alloc(db, sku);
    if (json) {
        nlohmann::json out = {{"sku", sku}, {"hosts", nlohmann::json::array()}};
        for (const auto& c : checks) {
            auto host = model::fleet::to_json(c);
            host["also_in_other_init_on_alloc"] =
                other && std::count(other->hosts.begin(), other->hosts.end(), c.host) > 0;
            out["hosts"].push_back(std::move(host));
        }
        out["other_init_on_alloc"] =
            other ? nlohmann::json{{"sku", other->key}, {"hosts", other->hosts}}
                  : nlohmann::json(nullptr);
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
        for (const auto& m : c.same_machine)
            std::cout << "; same machine as " << printable_text(m.host) << " ("
                      << printable_text(m.reason) << "), counted once";
        if (c.new_hardware)
            std::cout << "; " << printable_text(model::fleet::new_hardware_text(*c.new_hardware));
        if (other && std::count(other->hosts.begin(), other->hosts.end(), c.host) > 0)
            std::cout << "; also measured with init_on_alloc " << (other->on ? "on" : "off")
                      << " (SKU " << printable_text(other->key) << ")";
        std::cout << "\n";
    }
    if (other)
        print_diagnostic("note", count_text(other->hosts.size(), "host") +
                                     " of the same hardware run with init_on_alloc " +
                                     (other->on ? "on" : "off") + ", which changes the boot's " +
                                     "work: their answer is SKU " + other->key);
    return 0;
}

}  // namespace hugetune::cli
