// `hugetune fleet runs [--host NAME | --sku KEY]`: every stored run with its key and its
// verifications, in host then time order.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/errors.hpp"
#include "model/text.hpp"

namespace hugetune::cli {
namespace {

struct RunsCommand {
    std::string db, host, sku;
    bool json = false;
};

std::optional<RunsCommand> parse_runs(const Args& args) {
    RunsCommand o;
    po::options_description desc("Options");
    desc.add_options()("host", po::value(&o.host)->value_name("NAME"), "only this host's runs")(
        "sku", po::value(&o.sku)->value_name("KEY"),
        "only this SKU's runs, the key as 'fleet skus' prints it");
    add_db_option(desc, o.db);
    desc.add_options()("json", po::bool_switch(&o.json), "print the runs as one JSON array");
    po::variables_map vm;
    if (!parse_options("fleet runs",
                       "hugetune fleet runs [--host NAME | --sku KEY] [--db PATH|URL] [--json]",
                       desc, args, vm))
        return std::nullopt;
    if (vm.count("host") && vm.count("sku"))
        usage_error("--sku", "give --host NAME or --sku KEY, not both");
    if (vm.count("host") && o.host.empty())
        usage_error("--host", "give a host name");
    if (vm.count("host"))
        o.host = host_option(o.host);
    if (vm.count("sku"))
        model::fleet::parse_sku_key(o.sku, {"", "sku"});
    return o;
}

void print_run(const fleet_db::StoredRun& r) {
    const std::string warnings = join(r.warning_codes, ",");
    std::cout << printable_text(r.host) << "  " << r.run_key << "  " << printable_text(r.sku)
              << "  " << printable_text(r.generated_at) << "  tool "
              << printable_text(r.tool_version) << "  kernel "
              << printable_text(r.kernel_release.value_or("-")) << "  warnings "
              << (warnings.empty() ? std::string("-") : printable_text(warnings)) << "\n";
    for (const auto& v : r.verifications)
        std::cout << "  verification " << v.key << "  boot "
                  << printable_text(v.boot_id.value_or("-")) << "  "
                  << (v.verified ? "verified" : "not verified") << "  measured/predicted "
                  << (v.ratio ? decimals_text(*v.ratio, 2) : std::string("-")) << "\n";
}

}  // namespace

int run_fleet_runs(const Args& args) {
    const auto o = parse_runs(args);
    if (!o)
        return 0;
    auto db = open_fleet_db(o->db);
    fleet_db::RunSelection selection;
    if (!o->host.empty())
        selection.host = o->host;
    if (!o->sku.empty())
        selection.sku = o->sku;
    const auto runs = db.list_runs(selection);
    if (runs.empty() && selection.host)
        usage_error("--host", "no runs of host '" + o->host +
                                  "' in the database; 'hugetune fleet runs' lists every host's");
    if (runs.empty() && selection.sku)
        usage_error("--sku",
                    "no runs of SKU '" + o->sku + "' in the database; see 'hugetune fleet skus'");
    print_listing(runs, o->json, print_run, "no runs yet: hugetune fleet ingest REPORT...");
    return 0;
}

}  // namespace hugetune::cli
