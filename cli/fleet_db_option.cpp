#include "cli/fleet_db_option.hpp"

#include <cstdlib>
#include <vector>

#include "fleet_db/fleet_db_error.hpp"
#include "tuner/system/errors.hpp"
#include "tuner/system/own_binary.hpp"

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

namespace {

// What an answer is computed from besides the runs: the binary and the analysis' options.
std::string answer_inputs(const std::string& runs_digest) {
    const auto o = fleet_analysis_options();
    return "tool " + own_binary_digest() + "; seed " +
           std::to_string(o.recommend.seed.value_or(0)) + ", resamples " +
           std::to_string(o.recommend.resamples) + ", tolerance " +
           std::to_string(o.recommend.tolerance) + ", min hosts " + std::to_string(o.min_hosts) +
           "; runs " + runs_digest;
}

}  // namespace

model::InputSource sku_runs_input(const std::string& sku_key) {
    return {"SKU " + sku_key, "", true};
}

model::fleet::FleetAnswer answer_of_sku(fleet_db::FleetDb& db, const std::string& sku_key) {
    const bool keep = !own_binary_digest().empty();
    const std::string inputs =
        keep ? answer_inputs(fleet_db_call([&] { return db.runs_digest(sku_key); })) : "";
    if (keep)
        if (const auto kept = fleet_db_call([&] { return db.kept_answer(sku_key, inputs); })) {
            try {
                return model::fleet::read_fleet_answer(nlohmann::json::parse(*kept));
            } catch (const std::exception&) {  // damaged or of another layout: computed again
            }
        }
    const auto runs = fleet_db_call([&] { return db.runs_of_sku(sku_key); });
    if (runs.empty())
        throw UsageError("--sku: no runs of SKU '" + sku_key +
                         "' in the database; see 'hugetune fleet skus' for the SKUs it holds");
    const model::fleet::FleetAnswer answer = model::fleet::fleet_answer(
        model::fleet::answer_sku(runs, fleet_analysis_options(), sku_runs_input(sku_key)));
    if (keep)
        db.keep_answer(sku_key, inputs, to_json(answer).dump());
    return answer;
}

std::vector<SkuRow> answers_of_all_skus(fleet_db::FleetDb& db) {
    std::vector<SkuRow> rows;
    for (const auto& key : fleet_db_call([&] { return db.sku_keys(); })) {
        SkuRow row{key, std::nullopt, {}};
        try {
            row.answer = answer_of_sku(db, key);
        } catch (const std::exception&) {
            // A failure of this SKU's runs is its row's; anything else stops the listing.
            ErrorReport error = current_error();
            if (!error.typed || error.code != ExitCode::failure)
                throw;
            row.error = std::move(error.message);
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

nlohmann::json to_json(const fleet_db::StoredVerification& v) {
    return {{"key", v.key},
            {"boot_id", v.boot_id ? nlohmann::json(*v.boot_id) : nlohmann::json(nullptr)},
            {"verified", v.verified},
            {"ratio", v.ratio ? nlohmann::json(*v.ratio) : nlohmann::json(nullptr)}};
}

nlohmann::json to_json(const fleet_db::StoredRun& r) {
    nlohmann::json j = {{"run_key", r.run_key},
                        {"host", r.host},
                        {"sku", r.sku},
                        {"generated_at", r.generated_at},
                        {"tool_version", r.tool_version},
                        {"kernel_release", r.kernel_release ? nlohmann::json(*r.kernel_release)
                                                            : nlohmann::json(nullptr)},
                        {"warnings", r.warning_codes},
                        {"verifications", nlohmann::json::array()}};
    for (const auto& v : r.verifications)
        j["verifications"].push_back(to_json(v));
    return j;
}

}  // namespace hugetune::cli
