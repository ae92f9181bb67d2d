// `hugetune fleet plan`: a canary plan for a SKU (docs/fleet.md "Canary plans"): a small share
// of its hosts, by a hash of their names, boots neighbouring values at their next reboots, which
// the exports carry as an arm each, until the boots decide or the plan is stopped.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/fleet_commands.hpp"
#include "cli/fleet_db_option.hpp"
#include "model/fleet/canary.hpp"
#include "model/text.hpp"

namespace hugetune::cli {
namespace {

struct PlanCommand {
    std::string sku, db, share, values;
    std::vector<int> value_list;  // --values read, before the database is opened
    bool status = false, stop = false, json = false;
};

std::vector<int> parse_values(const std::string& text) {
    std::vector<int> out;
    for (const std::string& item : list_items("--values", text))
        out.push_back(static_cast<int>(std::min<std::uint64_t>(
            parse_unsigned("--values", item), static_cast<std::uint64_t>(1) << 30)));
    return out;
}

std::optional<PlanCommand> parse_plan(const Args& args) {
    PlanCommand o;
    po::options_description desc("Options");
    desc.add_options()("sku", po::value(&o.sku)->value_name("KEY"),
                       "the SKU, as 'fleet skus' prints it")(
        "share", po::value(&o.share)->value_name("P"),
        ("the share of the SKU's hosts that boot the other values, over all arms, in percent "
         "(default " +
         number_text(model::fleet::kDefaultCanaryShare * 100) + ", at most " +
         number_text(model::fleet::kMaxCanaryShare * 100) + ")")
            .c_str())("values", po::value(&o.values)->value_name("A,B,..."),
                      "the values to try, each an arm (default: half and twice the answer and "
                      "the kernel's default)")(
        "status", po::bool_switch(&o.status),
        "show the open plan: its arms, their hosts and the boots collected against the minimum")(
        "stop", po::bool_switch(&o.stop), "end the open plan: the exports drop its arms");
    add_db_option(desc, o.db);
    desc.add_options()("json", po::bool_switch(&o.json), "print the plan as one JSON object");
    po::variables_map vm;
    if (!parse_options("fleet plan",
                       "hugetune fleet plan --sku KEY [--share P] [--values A,B,...] "
                       "[--status | --stop] [--db PATH|URL] [--json]",
                       desc, args, vm))
        return std::nullopt;
    if (o.sku.empty())
        usage_error("--sku", "give the SKU the plan is for (fleet skus lists them)");
    model::fleet::parse_sku_key(o.sku, {"", "sku"});
    if (o.status && o.stop)
        usage_error("--stop", "give --status or --stop, not both");
    if ((o.status || o.stop) && (!o.share.empty() || !o.values.empty()))
        usage_error(o.status ? "--status" : "--stop",
                    "--share and --values are for starting a plan");
    if (!o.values.empty())
        o.value_list = parse_values(o.values);
    return o;
}

std::string now_text() {
    return iso8601_utc(std::chrono::system_clock::now());
}

nlohmann::json arm_json(const model::fleet::ArmStatus& a) {
    return {{"arm_value", a.threads},
            {"hosts", a.hosts},
            {"hosts_booted", a.hosts_booted},
            {"boot_count", a.boots},
            {"ms_per_1000_pages",
             a.ms_per_1000_pages ? nlohmann::json(*a.ms_per_1000_pages) : nlohmann::json(nullptr)},
            {"enough", a.enough},
            {"slower", a.slower}};
}

void print_arm(const std::string& name, const model::fleet::ArmStatus& a) {
    std::cout << name << " hugepage_alloc_threads=" << a.threads << ": "
              << count_text(a.hosts, "host") << ", " << a.hosts_booted << " booted ("
              << count_text(a.boots, "boot") << "; " << model::fleet::kMinBootHosts
              << " hosts needed)";
    if (a.ms_per_1000_pages)
        std::cout << ", " << decimals_text(*a.ms_per_1000_pages, 2) << " ms per 1,000 pages";
    if (a.slower)
        std::cout << ", SLOWER than the answer beyond the bound";
    std::cout << "\n";
}

int show_status(fleet_db::FleetDb& db, const PlanCommand& o) {
    const auto plan = db.open_plan(o.sku);
    if (!plan)
        throw UsageError("--status: SKU " + o.sku +
                         " has no open canary plan; start one with 'hugetune fleet plan --sku " +
                         o.sku + "'");
    const auto hosts = hosts_of_skus(db).hosts[o.sku];
    const auto s = model::fleet::plan_status(
        *plan, hosts, db.boots_of_sku(o.sku, model::fleet::BootHosts(hosts), plan->started_at));
    if (o.json) {
        nlohmann::json arms = nlohmann::json::array();
        for (const auto& a : s.arms)
            arms.push_back(arm_json(a));
        std::cout << nlohmann::json{{"sku_key", plan->sku_key},
                                    {"started_at", plan->started_at},
                                    {"share", plan->share},
                                    {"answer", arm_json(s.answer)},
                                    {"arms", arms},
                                    {"decided", s.decided},
                                    {"summary", s.summary}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::cout << "plan for " << printable_text(plan->sku_key) << ", started " << plan->started_at
              << ", " << percent_text(plan->share, 1) << " of the hosts in arms\n";
    print_arm("answer", s.answer);
    for (const auto& a : s.arms)
        print_arm("arm   ", a);
    std::cout << printable_text(s.summary);
    if (std::any_of(s.arms.begin(), s.arms.end(), [](const auto& a) { return a.slower; }))
        std::cout << " (hugetune fleet plan --sku " << printable_text(plan->sku_key) << " --stop)";
    std::cout << "\n";
    return 0;
}

int start_plan(fleet_db::FleetDb& db, const PlanCommand& o) {
    const auto answer = answer_of_sku(db, o.sku, fleet_analysis_options());
    if (!model::fleet::is_settled(answer.status) || answer.kernel_cmdline.empty())
        throw UsageError("--sku: the answer of " + o.sku + " is " +
                         model::fleet::to_string(answer.status) +
                         (answer.kernel_cmdline.empty() ? ", and sets no value" : "") +
                         "; a canary plan tries values beside an answer the exports roll out "
                         "(fleet recommend says what it needs)");
    model::fleet::CanaryPlan plan;
    plan.sku_key = o.sku;
    plan.answer_threads = static_cast<int>(answer.hugepage_alloc_threads);
    plan.started_at = now_text();
    const int cpus = answer.sku.nodes * answer.sku.hardware_threads_per_node;
    plan.values = o.values.empty() ? model::fleet::default_canary_values(plan.answer_threads, cpus)
                                   : o.value_list;
    if (const auto problem =
            model::fleet::canary_values_problem(plan.values, plan.answer_threads, cpus))
        usage_error("--values", *problem + "; give other values, e.g. " +
                                    std::to_string(std::max(1, plan.answer_threads / 2)));
    if (!o.share.empty())
        plan.share = percent_option("--share", o.share, 0.1, model::fleet::kMaxCanaryShare * 100);
    db.start_plan(plan);
    const auto hosts = hosts_of_skus(db).hosts[o.sku];
    std::vector<std::vector<std::string>> arms(plan.values.size());
    for (const auto& host : hosts)
        if (const auto arm = model::fleet::canary_arm(plan, host))
            arms[*arm].push_back(host);
    std::cout << "started a canary plan for " << printable_text(o.sku) << " beside the answer "
              << plan.answer_threads << ": " << percent_text(plan.share, 1) << " of "
              << count_text(hosts.size(), "host") << "\n";
    for (std::size_t i = 0; i < arms.size(); ++i)
        std::cout << "arm hugepage_alloc_threads=" << plan.values[i] << ": "
                  << count_text(arms[i].size(), "host")
                  << (arms[i].empty() ? std::string() : " (" + printable_text(join(arms[i])) + ")")
                  << "\n";
    std::cout << "fleet export now carries each arm; the next reboots measure them "
                 "(fleet plan --status)\n";
    return 0;
}

}  // namespace

int run_fleet_plan(const Args& args) {
    const auto o = parse_plan(args);
    if (!o)
        return 0;
    auto db = open_fleet_db(o->db);
    if (o->status)
        return show_status(db, *o);
    if (o->stop) {
        if (!db.end_plan(o->sku, now_text(), "stopped"))
            throw UsageError("--stop: SKU " + o->sku + " has no open canary plan");
        std::cout << "stopped the canary plan of " << printable_text(o->sku)
                  << "; fleet export no longer carries its arms\n";
        return 0;
    }
    return start_plan(db, *o);
}

}  // namespace hugetune::cli
