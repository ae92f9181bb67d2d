#include "tuner/cli/fleet_db_option.hpp"

#include <cstdlib>

#include "reports/fleet_db/fleet_db_error.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {

void add_db_option(po::options_description& desc, std::string& value) {
    desc.add_options()("db", po::value(&value)->value_name("PATH|URL"),
                       option_help("the fleet database: a SQLite file, or a PostgreSQL "
                                   "connection string postgresql://...; else HUGETUNE_DB",
                                   kDefaultFleetDb)
                           .c_str());
}

fleet_db::DbTarget fleet_db_target(const std::string& option_value) {
    std::string value = option_value;
    if (value.empty())
        if (const char* env = std::getenv("HUGETUNE_DB"); env && *env)
            value = env;
    if (value.empty())
        value = kDefaultFleetDb;
    return fleet_db::parse_db_target(value);
}

void rethrow_fleet_db_error(const fleet_db::FleetDbError& e) {
    if (e.kind() == fleet_db::FleetDbError::Kind::usage)
        throw UsageError(e.what());
    throw RuntimeError(e.what());
}

fleet_db::FleetDb open_fleet_db(const fleet_db::DbTarget& target, bool create) {
    return fleet_db_call([&] { return fleet_db::FleetDb::open(target, create); });
}

model::fleet::FleetOptions fleet_analysis_options() {
    model::fleet::FleetOptions options;
    options.recommend.seed = 1;  // the same database gives the same answer every time
    return options;
}

model::fleet::SkuAnswer answer_of_sku(fleet_db::FleetDb& db, const std::string& sku_key) {
    const auto runs = fleet_db_call([&] { return db.runs_of_sku(sku_key); });
    if (runs.empty())
        throw UsageError("--sku: no runs of SKU '" + sku_key +
                         "' in the database; see 'hugetune fleet skus' for the SKUs it holds");
    try {
        return model::fleet::answer_sku(runs, fleet_analysis_options());
    } catch (const model::InputError& e) {
        throw RuntimeError("SKU " + sku_key + ": " + e.what());
    }
}

std::vector<SkuRow> answers_of_all_skus(fleet_db::FleetDb& db) {
    std::vector<SkuRow> rows;
    for (const auto& key : fleet_db_call([&] { return db.sku_keys(); })) {
        SkuRow row{key, std::nullopt, {}};
        try {
            row.answer = answer_of_sku(db, key);
        } catch (const RuntimeError& e) {
            row.error = e.what();
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

nlohmann::json to_json(const SkuRow& row) {
    if (row.answer)
        return model::fleet::to_json(*row.answer);
    return {{"sku", row.key}, {"error", row.error}};
}

}  // namespace hugetune::cli
