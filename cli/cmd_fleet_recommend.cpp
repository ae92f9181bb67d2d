// `hugetune fleet recommend --sku KEY|--host NAME`: one SKU's answer from all its hosts.
#include <iostream>

#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/text.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::cli {
namespace {

struct RecommendCommand {
    std::string db, sku, host;
    bool json = false;
};

std::optional<RecommendCommand> parse_recommend(const Args& args) {
    RecommendCommand o;
    po::options_description desc("Options");
    desc.add_options()("sku", po::value(&o.sku)->value_name("KEY"),
                       "the SKU, as 'fleet skus' prints it (e.g. zen4/2n/32t/64g/2048k)")(
        "host", po::value(&o.host)->value_name("NAME"), "the SKU of this host's latest report");
    add_db_option(desc, o.db);
    desc.add_options()("json", po::bool_switch(&o.json), "print the answer as one JSON object");
    po::variables_map vm;
    if (!parse_options(
            "fleet recommend",
            "hugetune fleet recommend (--sku KEY | --host NAME) [--db PATH|URL] [--json]", desc,
            args, vm))
        return std::nullopt;
    if (o.sku.empty() == o.host.empty())
        usage_error("--sku", "give either --sku KEY or --host NAME");
    if (!o.sku.empty())
        model::fleet::parse_sku_key(o.sku, {"", "sku"});
    return o;
}

// The answer's JSON fields (model::fleet::to_json).
std::string seconds_text(const nlohmann::json& value) {
    return decimals_text(value.get<double>(), 2);
}

void print_answer(const nlohmann::json& a) {
    std::cout << "sku        " << printable_text(a.at("sku").get<std::string>()) << " ("
              << a.at("hosts").get<int>() << " hosts, " << a.at("runs").get<int>() << " runs)\n";
    std::cout << "decision   " << (a.at("decision") == "set" ? "set" : "keep the kernel default,")
              << " hugepage_alloc_threads=" << a.at("hugepage_alloc_threads").get<int>() << "\n";
    std::cout << "predicted  " << seconds_text(a.at("predicted_seconds")) << " s";
    const auto& low = a.at("predicted_seconds_low");
    const auto& high = a.at("predicted_seconds_high");
    if (low.is_number() && high.is_number())
        std::cout << " (" << seconds_text(low) << " to " << seconds_text(high) << " s)";
    const auto& confidence = a.at("confidence");
    std::cout << ", saving " << seconds_text(a.at("saving_seconds")) << " s, confidence "
              << (confidence.is_number() ? decimals_text(confidence.get<double>() * 100, 0) + "%"
                                         : std::string("-"))
              << "\n";
    std::cout << "verified   " << a.at("verified_boots").get<int>() << " boots";
    if (a.at("verification_ratio").is_number())
        std::cout << ", measured/predicted " << seconds_text(a.at("verification_ratio"));
    const std::string cmdline = a.at("kernel_cmdline").get<std::string>();
    std::cout << "\nstatus     " << a.at("status").get<std::string>() << ": "
              << printable_text(a.at("status_reason").get<std::string>()) << "\n";
    std::cout << "cmdline    " << (cmdline.empty() ? std::string("(nothing to add)") : cmdline)
              << "\n";
}

}  // namespace

int run_fleet_recommend(const Args& args) {
    const auto o = parse_recommend(args);
    if (!o)
        return 0;
    auto db = open_fleet_db(fleet_db_target(o->db), false);
    std::string key = o->sku;
    if (key.empty()) {
        const auto found = fleet_db_call([&] { return db.sku_of_host(o->host); });
        if (!found)
            usage_error("--host", "no report of host '" + o->host +
                                      "' in the database; ingest its report first");
        key = *found;
    }
    const auto answer = answer_of_sku(db, key);
    if (o->json)
        std::cout << answer.dump(2) << "\n";
    else
        print_answer(answer);
    return 0;
}

}  // namespace hugetune::cli
