// `hugetune fleet forget`: removes runs (by host, date, kernel, tool version) or one
// verification, in one transaction; --dry-run says what would go and changes nothing.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/errors.hpp"
#include "model/fleet/host_name.hpp"
#include "model/text.hpp"

namespace hugetune::cli {
namespace {

struct ForgetCommand {
    std::string db, host, before, kernel, tool_version, verification;
    bool dry_run = false, json = false;
};

// An ISO 8601 UTC time as reports carry it, or a date (its midnight, UTC).
std::string before_value(const std::string& text) {
    if (is_iso8601_utc(text))
        return text;
    if (text.size() == 10 && is_iso8601_utc(text + "T00:00:00Z"))
        return text;  // compared as text, a date sorts before every time of its day
    usage_error("--before", "'" + text +
                                "' is not a date or UTC time; give it like 2026-12-01 or "
                                "2026-12-01T10:00:00Z");
}

// "<run key>:<block hash or boot id>", the run key as 16 hex digits.
void check_verification_key(const std::string& key) {
    const auto colon = key.find(':');
    const bool hex = colon == 16 && key.find_first_not_of("0123456789abcdef") == colon;
    if (!hex || colon + 1 >= key.size())
        usage_error("--verification", "'" + key +
                                          "' is not a verification key; give RUN_KEY:HASH as "
                                          "'hugetune fleet runs' prints it, or RUN_KEY:BOOT_ID");
}

std::optional<ForgetCommand> parse_forget(const Args& args) {
    ForgetCommand o;
    po::options_description desc("Options");
    desc.add_options()("host", po::value(&o.host)->value_name("NAME"),
                       "the host's runs (all of them unless other selectors narrow them)")(
        "before", po::value(&o.before)->value_name("DATE"),
        "runs generated before this date or UTC time (2026-12-01, 2026-12-01T10:00:00Z)")(
        "kernel", po::value(&o.kernel)->value_name("RELEASE"), "runs made on this kernel release")(
        "tool-version", po::value(&o.tool_version)->value_name("V"),
        "runs written by this hugetune version")(
        "verification", po::value(&o.verification)->value_name("KEY"),
        "one verification, its key as 'fleet runs' prints it (or RUN_KEY:BOOT_ID); not with "
        "the run selectors")("dry-run", po::bool_switch(&o.dry_run),
                             "print what would be forgotten and change nothing");
    add_db_option(desc, o.db);
    desc.add_options()("json", po::bool_switch(&o.json),
                       "print what was (or would be) forgotten as one JSON object");
    po::variables_map vm;
    if (!parse_options("fleet forget",
                       "hugetune fleet forget (--host NAME | --before DATE | --kernel RELEASE | "
                       "--tool-version V)... | --verification KEY [--dry-run] [--db PATH|URL] "
                       "[--json]",
                       desc, args, vm))
        return std::nullopt;
    const bool runs =
        vm.count("host") || vm.count("before") || vm.count("kernel") || vm.count("tool-version");
    if (!runs && !vm.count("verification"))
        throw UsageError(
            "fleet forget: give what to forget: --host, --before, --kernel, --tool-version "
            "(together: runs that match all) or --verification");
    if (runs && vm.count("verification"))
        usage_error("--verification",
                    "forgets one verification alone; give it without --host, "
                    "--before, --kernel and --tool-version");
    for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"host", &o.host},
                                      {"kernel", &o.kernel},
                                      {"tool-version", &o.tool_version}})
        if (vm.count(name) && value->empty())
            usage_error(std::string("--") + name, "give a value");
    if (vm.count("host"))
        o.host = host_option(o.host);
    if (vm.count("before"))
        o.before = before_value(o.before);
    if (vm.count("verification"))
        check_verification_key(o.verification);
    return o;
}

fleet_db::RunSelection selection_of(const ForgetCommand& o) {
    fleet_db::RunSelection s;
    const auto given = [](const std::string& v) {
        return v.empty() ? std::nullopt : std::optional<std::string>(v);
    };
    s.host = given(o.host);
    s.before = given(o.before);
    s.kernel_release = given(o.kernel);
    s.tool_version = given(o.tool_version);
    return s;
}

std::string names_text(const std::vector<std::string>& names) {
    return names.empty() ? "-" : join(names, ", ", printable_text);
}

void print_result(const fleet_db::ForgetResult& r, bool dry_run) {
    std::cout << (dry_run ? "would forget " : "forgot ") << count_text(r.runs.size(), "run") << ", "
              << count_text(r.verifications.size(), "verification") << ", "
              << count_text(r.hosts.size(), "host") << ", " << count_text(r.skus.size(), "SKU")
              << (r.boot_records > 0 ? ", " + count_text(r.boot_records, "boot record") : "")
              << "; kept answers dropped " << r.answers_dropped.size()
              << (dry_run ? " (dry run: nothing changed)" : "") << "\n";
    for (const auto& run : r.runs)
        std::cout << "run " << run.run_key << "  " << printable_text(run.host) << "  "
                  << printable_text(run.sku) << "  " << printable_text(run.generated_at) << "\n";
    for (const auto& v : r.verifications)
        std::cout << "verification " << v.key << "  boot "
                  << printable_text(v.boot_id.value_or("-")) << "\n";
    std::cout << "hosts: " << names_text(r.hosts) << "\nSKUs: " << names_text(r.skus)
              << "\nanswers dropped: " << names_text(r.answers_dropped) << "\n";
    if (!r.plans_ended.empty())
        std::cout << "canary plans ended: " << names_text(r.plans_ended) << "\n";
}

nlohmann::json result_json(const std::string& db, const fleet_db::ForgetResult& r, bool dry_run) {
    nlohmann::json j = {{"database", db},
                        {"dry_run", dry_run},
                        {"runs", nlohmann::json::array()},
                        {"verifications", nlohmann::json::array()},
                        {"hosts", r.hosts},
                        {"skus", r.skus},
                        {"answers_dropped", r.answers_dropped},
                        {"boot_records", r.boot_records},
                        {"plans_ended", r.plans_ended}};
    for (const auto& run : r.runs)
        j["runs"].push_back(to_json(run));
    for (const auto& v : r.verifications)
        j["verifications"].push_back(to_json(v));
    return j;
}

}  // namespace

int run_fleet_forget(const Args& args) {
    auto o = parse_forget(args);
    if (!o)
        return 0;
    const auto target = fleet_db_target(o->db);
    auto db = fleet_db::FleetDb::open(target, false);
    if (!o->host.empty() && !db.sku_of_host(o->host) && db.boot_records_of_host(o->host) == 0)
        usage_error("--host", "no host '" + o->host +
                                  "' in the database; 'hugetune fleet runs' lists the hosts");
    const fleet_db::ForgetResult result = o->verification.empty()
                                              ? db.forget_runs(selection_of(*o), o->dry_run)
                                              : db.forget_verification(o->verification, o->dry_run);
    if (o->json)
        std::cout << result_json(target.display, result, o->dry_run).dump(2) << "\n";
    else
        print_result(result, o->dry_run);
    return 0;
}

}  // namespace hugetune::cli
