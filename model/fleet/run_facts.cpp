// One `hugetune-report` -> the facts the fleet needs. The report's reader checked every field.
#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "model/digest.hpp"
#include "model/fleet/fleet.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

std::uint64_t samples_digest(const MeasuredSweep& sweep) {
    Fnv1a h;
    for (const auto& p : sweep.points) {
        h.add(p.phase);
        h.add(static_cast<std::uint64_t>(p.threads_per_node));
        for (const double s : p.samples_seconds)
            h.add(s);
        if (p.samples_seconds.empty())
            h.add(p.median_seconds);
    }
    return h.value();
}

}  // namespace

RunFacts read_run(const Report& report) {
    const ReportRun& r = report.run.value();
    const ReportRecommendation& rec = report.recommendation;
    RunFacts run;
    run.host = r.probe.hostname;
    run.samples_digest = samples_digest(r.sweep);
    run.sku = r.sku;
    run.generated_at = r.generated_at;
    run.tool_version = r.tool.version;
    run.kernel_release = report.kernel.release;
    run.firmware = r.probe.firmware_text;
    if (r.probe.hardware_identity)
        run.hardware = identity_key(*r.probe.hardware_identity);
    // The report's top holds the probe's blocks (cpu, topology, kernel, virtualization).
    run.sweep = fit_input(r.sweep, JsonField(report.document), "sweep.points");
    run.decision = rec.decision;
    run.hugepage_alloc_threads = static_cast<int>(rec.hugepage_alloc_threads);
    run.predicted_seconds = rec.predicted_seconds.value_or(0);
    run.saving_seconds = rec.saving_seconds.value_or(0);
    run.confidence = rec.confidence;
    // What the facts show, not what the list claims (docs/fleet.md "How a SKU's answer is made").
    for (const auto& w : judged_report_warnings(report, run.sweep))
        run.warning_codes.push_back(w.code);
    if (report.verification)
        run.verifications.push_back(*report.verification);
    run.boot_pool = report.boot_pool;
    return run;
}

std::optional<std::string> warnings_unlike_facts(const Report& report, const RunFacts& run) {
    const std::set<std::string> judged(run.warning_codes.begin(), run.warning_codes.end());
    std::set<std::string> listed;
    for (const auto& w : report.run.value().warnings)
        listed.insert(w.code);
    std::vector<std::string> missing, extra;
    std::set_difference(judged.begin(), judged.end(), listed.begin(), listed.end(),
                        std::back_inserter(missing));
    std::set_difference(listed.begin(), listed.end(), judged.begin(), judged.end(),
                        std::back_inserter(extra));
    if (missing.empty() && extra.empty())
        return std::nullopt;
    std::vector<std::string> parts;
    if (!missing.empty())
        parts.push_back("lack " + join(missing) + ", which its own facts give");
    if (!extra.empty())
        parts.push_back("list " + join(extra) + ", which its own facts do not give");
    return "its warnings " + join(parts, " and ");
}

RunFacts read_run(const nlohmann::json& document, const InputSource& input) {
    ReportReading reading;
    reading.need_run = true;
    reading.input = input;
    return read_run(read_report(document, reading));
}

Verification read_stored_verification(nlohmann::json block, const std::string& key,
                                      const std::string& host, const InputSource& input) {
    // Under its key, so a message names it as the report's block is named.
    nlohmann::json holder = nlohmann::json::object();
    holder["verification"] = std::move(block);
    const JsonField field(holder,
                          "the database holds a block this hugetune refuses: forget it with "
                          "'hugetune fleet forget " +
                              Flag{"verification"} + " " + key + "'",
                          input.part("verification " + key + " of host " + host));
    return read_verification(field["verification"]);
}

RunFacts read_stored_run(const FleetRun& run, const InputSource& input) {
    FleetRun copy{run.host, run.run_key, nullptr, run.verifications, run.facts};
    if (!run.facts)
        copy.report = run.report;
    return read_stored_run(std::move(copy), input);
}

RunFacts read_stored_run(FleetRun&& run, const InputSource& input) {
    RunFacts facts =
        run.facts ? (run.facts.use_count() == 1 ? std::move(*run.facts) : *run.facts)
                  : read_run(run.report, input.part("run " + run.run_key + " of host " + run.host));
    for (auto& stored : run.verifications)
        facts.verifications.push_back(std::move(stored.verification));
    if (!run.host.empty())
        facts.host = run.host;
    return facts;
}

std::vector<Verification> verified_boots_of(const std::vector<RunFacts>& host_runs) {
    std::vector<std::string> order;
    std::map<std::string, Verification> by_boot;
    for (const auto& run : host_runs)
        for (const auto& v : run.verifications) {
            if (!v.verified)
                continue;
            const std::string boot = v.boot_id ? "boot " + *v.boot_id : to_json(v).dump();
            if (by_boot.find(boot) == by_boot.end())
                order.push_back(boot);
            by_boot.insert_or_assign(boot, v);
        }
    std::vector<Verification> boots;
    for (const auto& boot : order)
        boots.push_back(by_boot.at(boot));
    return boots;
}

}  // namespace hugetune::model::fleet
