#include "cli/fleet_db_option.hpp"

#include <algorithm>
#include <cstdlib>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "cli/setting_flags.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "model/documents/fit.hpp"
#include "model/errors.hpp"
#include "model/fleet/host_name.hpp"
#include "model/fleet/host_runs.hpp"
#include "model/input/json_text.hpp"
#include "model/text.hpp"
#include "model/warning.hpp"
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

fleet_db::FleetDb open_fleet_db(const std::string& option_value) {
    return fleet_db::FleetDb::open(fleet_db_target(option_value), false);
}

void add_analysis_options(po::options_description& desc, AnalysisFlags& flags) {
    const model::fleet::FleetOptions defaults;
    const std::string codes = model::unfit_codes_text();
    desc.add_options()("min-hosts", po::value(&flags.min_hosts)->value_name("N"),
                       option_help("hosts a SKU's fit needs before its answer is settled",
                                   std::to_string(defaults.min_hosts), "1 to 100000")
                           .c_str())(
        "min-confidence", po::value(&flags.min_confidence)->value_name("P"),
        option_help("the least confidence, in percent, of a settled answer",
                    number_text(defaults.min_confidence * 100), "0 to 100")
            .c_str())("include-outliers", po::bool_switch(&flags.include_outliers),
                      "keep the hosts 'fleet hosts' calls outliers in the fit (default: left "
                      "out, and named)")(
        "accept-warning", po::value(&flags.accept_warnings)->value_name("CODE"),
        ("settle although hosts' reports or the fit carry this warning, which 'apply --report' "
         "refuses (" +
         codes + "); repeat or list them with commas")
            .c_str())("boot-pages", po::value(&flags.boot_pages)->value_name("N"),
                      "predict for a boot pool of N pages of the SKU's size (default: the pool "
                      "the hosts' reports were made for)");
}

std::string host_option(const std::string& value) {
    if (const auto problem = model::fleet::host_name_problem(value))
        usage_error("--host", "'" + printable_text(value) + "' is not a host name: " + *problem +
                                  "; give it as 'hugetune fleet runs' lists it");
    return model::fleet::canonical_host_name(value);
}

double percent_option(const std::string& flag, const std::string& value, double low, double high) {
    std::string text = value;
    if (!text.empty() && text.back() == '%')
        text.pop_back();
    double number = -1;
    std::size_t used = 0;
    try {
        number = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || used != text.size() || !(number >= low && number <= high))
        usage_error(flag, "'" + value + "' is no percentage from " + number_text(low) + " to " +
                              number_text(high) + ", e.g. " + number_text(high / 2));
    return number / 100;
}

HostsOfSkus hosts_of_skus(fleet_db::FleetDb& db) {
    HostsOfSkus out;
    std::map<std::string, std::string> sku_of_host;
    for (const auto& row : db.host_sku_latest()) {
        sku_of_host[row.host] = row.sku_key;  // a host's last row is its latest report's
        auto& latest = out.latest_report[row.sku_key];
        latest = std::max(latest, row.generated_at);
    }
    for (const auto& [host, key] : sku_of_host)
        out.hosts[key].push_back(host);
    return out;
}

model::fleet::FleetOptions fleet_analysis_options(const AnalysisFlags& flags) {
    model::fleet::FleetOptions options;
    options.recommend.words = flag_words();
    options.recommend.seed = 1;  // the same database gives the same answer every time
    options.words = flag_words();
    if (!flags.min_hosts.empty()) {
        const auto n = parse_unsigned("--min-hosts", flags.min_hosts);
        if (n < 1 || n > 100000)
            usage_error("--min-hosts", "give a whole number from 1 to 100000");
        options.min_hosts = static_cast<int>(n);
    }
    if (!flags.min_confidence.empty())
        options.min_confidence = percent_option("--min-confidence", flags.min_confidence, 0, 100);
    options.include_outliers = flags.include_outliers;
    for (const auto& list : flags.accept_warnings) {
        for (const std::string& code : list_items("--accept-warning", list)) {
            if (!model::is_unfit_code(code)) {
                usage_error("--accept-warning", "'" + code +
                                                    "' is not a warning that keeps an answer "
                                                    "from settling; give one of " +
                                                    model::unfit_codes_text());
            }
            if (std::find(options.accepted_warnings.begin(), options.accepted_warnings.end(),
                          code) == options.accepted_warnings.end())
                options.accepted_warnings.push_back(code);
        }
    }
    std::sort(options.accepted_warnings.begin(), options.accepted_warnings.end());
    if (!flags.boot_pages.empty()) {
        const auto pages = parse_unsigned("--boot-pages", flags.boot_pages);
        if (pages < 1 || pages > (1ULL << 40))
            usage_error("--boot-pages", "give a number of pages from 1 to 2^40");
        options.boot_pages = pages;
    }
    return options;
}

namespace {

// What an answer is computed from besides the runs: the binary and the analysis' options.
std::string answer_inputs(const std::string& runs_digest, const model::fleet::FleetOptions& o) {
    const std::string accepted = join(o.accepted_warnings, ",");
    return "tool " + own_binary_digest() + "; seed " +
           std::to_string(o.recommend.seed.value_or(0)) + ", resamples " +
           std::to_string(o.recommend.resamples) + ", tolerance " +
           std::to_string(o.recommend.tolerance) + ", min hosts " + std::to_string(o.min_hosts) +
           ", min confidence " + std::to_string(o.min_confidence) + ", outliers " +
           (o.include_outliers ? "in" : "out") + ", accepted [" + accepted + "], boot pages " +
           (o.boot_pages ? std::to_string(*o.boot_pages) : std::string("reports")) + "; runs " +
           runs_digest;
}

// The answer as the database keeps it: the fit apart from the rest (fleet_db.hpp KeptAnswer).
fleet_db::KeptAnswer kept_form(model::fleet::FleetAnswer answer) {
    fleet_db::KeptAnswer kept{"", to_json(answer.recommendation.value()).dump()};
    answer.recommendation.reset();
    kept.headline = to_json(answer).dump();
    return kept;
}

// A kept answer read back, its fit {} unless it was read; nothing when it is damaged or of
// another layout (the answer is then computed again).
std::optional<model::fleet::FleetAnswer> read_kept(const fleet_db::KeptAnswer& kept, Fit fit) {
    try {
        nlohmann::json stored = model::parse_json_document(kept.headline);
        if (fit == Fit::read)
            stored["recommendation"] = model::parse_json_document(kept.fit);
        return model::fleet::read_fleet_answer(stored);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

model::InputSource sku_runs_input(const std::string& sku_key) {
    return {"SKU " + sku_key, "", true};
}

model::fleet::FleetAnswer answer_of_sku(fleet_db::FleetDb& db, const std::string& sku_key,
                                        const model::fleet::FleetOptions& options, Fit fit) {
    const bool keep = !own_binary_digest().empty();
    const std::string inputs = keep ? answer_inputs(db.runs_digest(sku_key), options) : "";
    if (keep)
        if (const auto kept = db.kept_answer(sku_key, inputs, fit == Fit::read))
            if (auto answer = read_kept(*kept, fit))
                return std::move(*answer);
    // The runs go to the model as they are read: a SKU of 100,000 hosts is never held as stored
    // runs beside what is read of them.
    model::fleet::HostRunsReader runs(sku_runs_input(sku_key));
    bool any = false;
    db.runs_of_sku(sku_key, [&](model::fleet::FleetRun&& run) {
        any = true;
        runs.add(std::move(run));
    });
    if (!any)
        throw UsageError("--sku: no runs of SKU '" + sku_key +
                         "' in the database; see 'hugetune fleet skus' for the SKUs it holds");
    // A SKU answered with reports measured in VMs accepted is one of VMs: its VMs' boots count.
    const bool vm_accepted =
        std::find(options.accepted_warnings.begin(), options.accepted_warnings.end(),
                  model::kVmWarning) != options.accepted_warnings.end();
    // The boots count for the hosts as the answer joins them: a machine under two names, or
    // booting under its short name, votes once. The database tallies them on a thread of its own
    // while the answer checks, pools and fits the runs here, and the connection is that thread's
    // alone until the answer asks for the tally: the tally is mostly the server's work (or
    // SQLite's, on that thread), beside checks that keep one CPU busy. The names go once the
    // tally is read, so the fit's peak does not hold them.
    std::vector<model::fleet::HostRuns> hosts = std::move(runs).hosts();
    // (Where no thread can be had, the tally runs when the answer asks for it.)
    std::future<model::fleet::BootTally> tally =
        std::async(std::launch::async | std::launch::deferred,
                   [&db, &sku_key, vm_accepted,
                    names = std::make_unique<model::fleet::BootHosts>(hosts)]() mutable {
                       model::fleet::BootTally t = db.boot_tally(sku_key, *names, vm_accepted);
                       names.reset();
                       return t;
                   });
    const model::fleet::FleetAnswer answer = model::fleet::fleet_answer(model::fleet::answer_sku(
        std::move(hosts), options, sku_runs_input(sku_key), [&tally] { return tally.get(); }));
    if (keep)
        db.keep_answer(sku_key, inputs, kept_form(answer));
    return answer;
}

std::vector<SkuRow> answers_of_all_skus(fleet_db::FleetDb& db,
                                        const model::fleet::FleetOptions& options, Fit fit) {
    std::vector<SkuRow> rows;
    for (const auto& key : db.sku_keys()) {
        SkuRow row{key, std::nullopt, {}};
        try {
            row.answer = answer_of_sku(db, key, options, fit);
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
