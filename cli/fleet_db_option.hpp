// What every `hugetune fleet` subcommand shares: the --db option (or HUGETUNE_DB) and the
// analysis' options.
#pragma once

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "fleet_db/fleet_db.hpp"
#include "model/fleet/fleet.hpp"

namespace hugetune::cli {

inline constexpr const char* kDefaultFleetDb = "/var/lib/hugetune/fleet.db";

// Adds --db PATH|URL; `value` receives it.
void add_db_option(po::options_description& desc, std::string& value);

// --db, else HUGETUNE_DB, else the default file.
fleet_db::DbTarget fleet_db_target(const std::string& option_value);

// The database --db names (fleet_db_target), opened as a reading subcommand opens it: migrated
// to this binary's schema, a SQLite file that does not exist refused.
fleet_db::FleetDb open_fleet_db(const std::string& option_value);

// --host NAME as every fleet command reads it: a name the host-name rule takes
// (model/fleet/host_name.hpp), in the form names are stored and compared in ("WEB-17." is
// "web-17"); a UsageError naming --host otherwise.
std::string host_option(const std::string& value);

// A percentage option ("5", "5%", "0.5"), from `low` to `high` percent, as a fraction; a
// UsageError naming `flag` otherwise.
double percent_option(const std::string& flag, const std::string& value, double low, double high);

// Of each host the SKU of its latest report; of each SKU the time of its newest report: the
// hosts the exports configure for a SKU.
struct HostsOfSkus {
    std::map<std::string, std::vector<std::string>> hosts;  // by host name
    std::map<std::string, std::string> latest_report;       // ISO 8601
};
HostsOfSkus hosts_of_skus(fleet_db::FleetDb& db);

// The options of a SKU's answer that `fleet skus`, `recommend`, `export` and `hosts` share, as
// given on the command line; their defaults are model::fleet::FleetOptions'.
struct AnalysisFlags {
    std::string min_hosts, min_confidence, boot_pages;  // empty: the default
    std::vector<std::string> accept_warnings;           // each one code or a comma-separated list
    bool include_outliers = false;
};
void add_analysis_options(po::options_description& desc, AnalysisFlags& flags);

// The analysis' options from the flags (UsageError naming the flag when one is wrong).
model::fleet::FleetOptions fleet_analysis_options(const AnalysisFlags& flags = {});

// The answer of one SKU from every stored run; UsageError when the SKU has no runs. An answer
// kept in the database is taken when this binary computed it from the same runs with the same
// options and its reader accepts it; else it is computed and kept (docs/fleet.md "Answers
// kept"). Fit::left_out: a kept answer is read without its fit (FleetAnswer::recommendation is
// then {}), for commands that print only the headline fields; a computed one keeps it.
enum class Fit { read, left_out };
model::fleet::FleetAnswer answer_of_sku(fleet_db::FleetDb& db, const std::string& sku_key,
                                        const model::fleet::FleetOptions& options,
                                        Fit fit = Fit::read);

// Every SKU in the database with its answer, or why it has none.
struct SkuRow {
    std::string key;
    std::optional<model::fleet::FleetAnswer> answer;  // as answer_of_sku gives it
    std::string error;                                // when there is no answer
};
std::vector<SkuRow> answers_of_all_skus(fleet_db::FleetDb& db,
                                        const model::fleet::FleetOptions& options,
                                        Fit fit = Fit::read);
// The row as JSON: the answer's fields, or {"sku", "error"}.
nlohmann::json to_json(const SkuRow& row);

// A stored run and a stored verification as `fleet runs --json` and `fleet forget --json` print
// them.
nlohmann::json to_json(const fleet_db::StoredRun& run);
nlohmann::json to_json(const fleet_db::StoredVerification& verification);

// A listing as the fleet subcommands print one: with --json one JSON array of each item's
// to_json, else each item's lines by `print`, or `none` (how to get some) when there is none.
template <class Item, class Print>
void print_listing(const std::vector<Item>& items, bool json, Print&& print,
                   const std::string& none) {
    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& item : items)
            out.push_back(to_json(item));
        std::cout << out.dump(2) << "\n";
        return;
    }
    if (items.empty())
        std::cout << none << "\n";
    for (const auto& item : items)
        print(item);
}

// What the analysis' errors name: "SKU <key>", the database's data, so a failure (exit 1).
model::InputSource sku_runs_input(const std::string& sku_key);

}  // namespace hugetune::cli
