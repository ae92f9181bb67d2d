#include "cli/fleet_db_option.hpp"

#include <cstdlib>
#include <string_view>
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

// Where the JSON value that starts at `at` ends (one past it), passing over strings and what
// nests; text.size() when it does not end. Checks no more than that: the text is parsed after.
std::size_t value_end(std::string_view text, std::size_t at) {
    int depth = 0;
    for (std::size_t i = at; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\')
                    ++i;
            if (depth == 0)
                return i + 1;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i;  // a scalar ended by its container
            if (--depth == 0)
                return i + 1;
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    return text.size();
}

// The kept answer's text with its fit (the top-level "recommendation") as {}: the fit is nearly
// all of the text (the residuals of every curve over every host's points, MB per SKU), and a
// command that prints only the headline fields does not read it. Nothing when the text does not
// hold the member as to_json(FleetAnswer).dump() writes it; the text is then read whole.
std::optional<std::string> without_fit(const std::string& text) {
    static constexpr std::string_view key = "\"recommendation\":";
    std::size_t at = 0;
    for (std::size_t i = 1; i < text.size() && text[0] == '{';) {
        if (text.compare(i, key.size(), key) == 0) {
            at = i + key.size();
            break;
        }
        const std::size_t end = value_end(text, i);
        if (end == i)  // the object's '}'
            break;
        i = end;
        while (i < text.size() && (text[i] == ',' || text[i] == ':'))
            ++i;
    }
    if (at == 0)
        return std::nullopt;
    const std::size_t end = value_end(text, at);
    if (end >= text.size())
        return std::nullopt;
    return text.substr(0, at) + "{}" + text.substr(end);
}

}  // namespace

model::InputSource sku_runs_input(const std::string& sku_key) {
    return {"SKU " + sku_key, "", true};
}

model::fleet::FleetAnswer answer_of_sku(fleet_db::FleetDb& db, const std::string& sku_key,
                                        Fit fit) {
    const bool keep = !own_binary_digest().empty();
    const std::string inputs =
        keep ? answer_inputs(fleet_db_call([&] { return db.runs_digest(sku_key); })) : "";
    if (keep)
        if (const auto kept = fleet_db_call([&] { return db.kept_answer(sku_key, inputs); })) {
            try {
                const auto headline = fit == Fit::left_out ? without_fit(*kept) : std::nullopt;
                return model::fleet::read_fleet_answer(
                    nlohmann::json::parse(headline ? *headline : *kept));
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

std::vector<SkuRow> answers_of_all_skus(fleet_db::FleetDb& db, Fit fit) {
    std::vector<SkuRow> rows;
    for (const auto& key : fleet_db_call([&] { return db.sku_keys(); })) {
        SkuRow row{key, std::nullopt, {}};
        try {
            row.answer = answer_of_sku(db, key, fit);
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

}  // namespace hugetune::cli
