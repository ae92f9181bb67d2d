// Reads `hugetune run` reports: the one place a report's fields are named on the way in.
#include "model/documents/report.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "model/alloc_threads.hpp"
#include "model/documents/boot_comparison.hpp"
#include "model/documents/breakdown.hpp"
#include "model/documents/fit.hpp"
#include "model/documents/report_schema.hpp"
#include "model/input/fit_input.hpp"
#include "model/input/json_fields.hpp"
#include "model/input/probe_nodes.hpp"
#include "model/microarch.hpp"
#include "model/report_version.hpp"
#include "model/text.hpp"

namespace hugetune::model {
namespace {

// A host's name keys its runs in the fleet database: bounded and plain once here, so neither
// backend sees one it stores differently (a NUL ends a PostgreSQL string, a megabyte breaks its
// index) and no message prints a control character from it.
void check_hostname(const JsonField& field, const std::string& name) {
    if (name.empty())
        field.fail("must not be empty");
    if (name.size() > kMaxHostnameBytes)
        field.fail("is " + std::to_string(name.size()) + " bytes, above " +
                   std::to_string(kMaxHostnameBytes) + " (a host name has at most 253)");
    for (const unsigned char c : name)
        if (c <= ' ' || c >= 0x7f)
            field.fail(
                "holds a blank, a control character or a byte outside ASCII; a host "
                "name is plain ASCII letters, digits and punctuation");
}

constexpr const char* kReportFix = "give the report written by 'hugetune run'";

void check_schema_version(const JsonField& version) {
    const std::string supported = "this hugetune reads version " +
                                  std::to_string(kReportSchemaVersion) +
                                  "; give a report written by this version of 'hugetune run'";
    if (!version.present())
        version.with_fix(supported).fail("missing");
    const JsonField value = version.with_fix(supported);
    const std::int64_t number = value.whole_number({std::numeric_limits<std::int64_t>::min()});
    if (number != kReportSchemaVersion)
        value.fail(std::to_string(number) + " is not supported");
}

std::optional<double> read_prediction(const JsonField& predicted, const ReportReading& reading) {
    if (!reading.need_prediction)
        return reading.need_run ? predicted.non_negative_number()
                                : predicted.optional_non_negative_number();
    if (!predicted.present())
        predicted
            .with_fix(
                "the boot log has nothing to be compared with; give the report written by "
                "'hugetune run'")
            .fail("missing");
    return predicted.optional_positive_number();
}

std::optional<std::array<double, 2>> read_interval(const JsonField& interval) {
    if (interval.hint_size() != 2)
        return std::nullopt;
    const auto low = interval[0].hint<double>();
    const auto high = interval[1].hint<double>();
    if (!low || !high)
        return std::nullopt;
    return std::array<double, 2>{*low, *high};
}

std::optional<double> read_confidence(const JsonField& field) {
    const auto confidence = field.optional_non_negative_number();
    if (confidence && *confidence > 1)
        field.fail("must be from 0 to 1");
    return confidence;
}

// Only the validated number leaves here as the kernel_cmdline: one that says anything else
// (another parameter, init=/bin/sh) would be printed for scripts to paste into the boot
// configuration. A kept default adds nothing; reports written before that said so carried the
// default's setting, which still reads.
ReportRecommendation read_recommendation(const JsonField& rec, const ReportReading& reading) {
    rec.with_fix("is this a hugetune report?").object();
    ReportRecommendation r;
    r.hugepage_alloc_threads = static_cast<std::uint64_t>(
        rec["hugepage_alloc_threads"]
            .with_fix(reading.threads_fix)
            .whole_number({1, static_cast<std::int64_t>(kMaxAllocThreads)}));
    // Reports written before the decision was recorded always set their value.
    const JsonField decision = rec["decision"];
    r.decision = decision.present() || reading.need_run ? read_decision(decision) : Decision::set;
    const std::string setting = alloc_threads_setting(r.hugepage_alloc_threads);
    const bool kept = r.decision == Decision::keep_default;
    if (const std::string given = rec["kernel_cmdline"].string();
        given != setting && !(kept && given.empty()))
        rec["kernel_cmdline"]
            .with_fix("the report is inconsistent or edited; run 'hugetune run' again")
            .fail("'" + given + "' is not '" + (kept ? std::string() : setting) +
                  "', what recommendation." + (kept ? "decision" : "hugepage_alloc_threads") +
                  " says");
    r.kernel_cmdline = kept ? std::string() : setting;
    r.predicted_seconds = read_prediction(rec["predicted_seconds"], reading);
    r.threads_per_node = rec.hint<double>("threads_per_node");
    r.nodes = rec.hint<int>("nodes");
    r.predicted_seconds_interval = read_interval(rec["predicted_seconds_interval"]);
    r.default_threads = rec.hint<std::uint64_t>("default_threads");
    r.default_threads_per_node = rec.hint<double>("default_threads_per_node");
    r.predicted_default_seconds = rec["predicted_default_seconds"].optional_non_negative_number();
    r.saving_seconds = rec.hint<double>("saving_seconds");
    r.confidence = read_confidence(rec["confidence"]);
    r.verdict = rec.hint<std::string>("verdict");
    return r;
}

ReportKernel read_kernel(const JsonField& kernel) {
    return {kernel.hint<std::string>("release"), kernel.hint<bool>("init_on_alloc"),
            kernel.hint<int>("online_cpus")};
}

std::optional<ReportBootPool> read_boot_pool(const JsonField& pool) {
    if (!pool.present())
        return std::nullopt;
    return ReportBootPool{static_cast<std::uint64_t>(pool["pages"].whole_number()),
                          static_cast<std::uint64_t>(pool["page_size_kb"].whole_number({4})),
                          pool.hint<std::string>("source").value_or("")};
}

std::vector<Warning> read_warnings(const JsonField& warnings) {
    std::vector<Warning> out;
    const std::size_t n = warnings.array_size();
    for (std::size_t i = 0; i < n; ++i)
        out.push_back({warnings[i]["code"].string(), warnings[i]["message"].string()});
    return out;
}

// The sku block's microarchitecture as this hugetune names the cpu block's CPU (docs/fleet.md
// "The SKU key"): the same name, or the name an older hugetune gave a CPU its table did not
// name then (its identity name, or `unknown` before identity names), which the current name
// replaces, so those hosts leave the one SKU they shared and a CPU the table names later joins
// its named SKU. Anything else is a report whose blocks disagree.
std::string checked_microarch(const JsonField& doc, const std::string& stored) {
    const JsonField cpu = doc["cpu"];
    CpuFields fields;
    fields.vendor = cpu.hint<std::string>("vendor").value_or("");
    fields.family = cpu.hint<int>("family").value_or(-1);
    fields.model = cpu.hint<int>("model").value_or(-1);
    fields.stepping = cpu.hint<int>("stepping").value_or(-1);
    if (const JsonField midr = cpu["midr"]; midr.present()) {
        fields.arm_implementer = midr.hint<int>("implementer");
        fields.arm_part = midr.hint<int>("part");
    }
    const std::string name = microarch_of(fields);
    if (stored == name || older_name_of(fields, stored))
        return name;
    doc["sku"]["microarch"]
        .with_fix("the report's sku and cpu blocks disagree (edited?); run 'hugetune run' again")
        .fail("'" + stored + "' is not what cpu (" + printable_text(describe(fields)) +
              ") is: " + name);
}

// The sku block is what the rest of the report shows, derived again here as the probe derives
// it (model/input/probe_nodes.hpp, model/documents/sku.hpp): the nodes with memory, the most
// hardware threads on one of them and the smallest one's memory as installed, from the topology
// block; the huge page size from the sweep that measured it; init_on_alloc from the kernel
// block. A report whose blocks disagree was edited, and would put its host in a SKU its machine
// is not of, or make a SKU no machine is. A topology without a node with memory holds the key to
// nothing.
void check_sku_facts(const JsonField& doc, const SkuKey& sku, std::uint64_t swept_page_size_kb) {
    // stated and derived as the sku block writes them; `unit` follows the derived value.
    const auto disagree = [&](const JsonField& field, const std::string& stated,
                              const std::string& derived, const std::string& unit,
                              const std::string& block) {
        if (stated != derived)
            field
                .with_fix("the report's sku and " + block +
                          " blocks disagree (edited?); run 'hugetune run' again")
                .fail("'" + stated + "' is not what the " + block + " block says: " + derived +
                      unit);
    };
    MachineFacts machine;
    set_node_facts(read_probe_nodes(doc["topology"]), {}, machine);
    if (machine.sku_memory_nodes > 0) {
        disagree(doc["sku"]["nodes"], std::to_string(sku.nodes),
                 std::to_string(machine.sku_memory_nodes), " nodes with memory", "topology");
        disagree(doc["sku"]["hardware_threads_per_node"],
                 std::to_string(sku.hardware_threads_per_node),
                 std::to_string(machine.sku_hardware_threads_per_node),
                 " hardware threads on its largest such node", "topology");
        disagree(doc["sku"]["memory_per_node_gib"], std::to_string(sku.memory_per_node_gib),
                 std::to_string(machine.sku_memory_per_node_gib),
                 " GiB on its smallest node with memory, as memory is installed", "topology");
    }
    disagree(doc["sku"]["page_size_kb"], std::to_string(sku.page_size_kb),
             std::to_string(swept_page_size_kb), " kB pages measured", "sweep");
    const auto kernel_init = doc["kernel"].hint<bool>("init_on_alloc");
    const auto text = [](bool b) { return std::string(b ? "true" : "false"); };
    if (sku.init_on_alloc && kernel_init)
        disagree(doc["sku"]["init_on_alloc"], text(*sku.init_on_alloc), text(*kernel_init), "",
                 "kernel");
}

ReportRun read_run_part(const JsonField& doc) {
    ReportRun run;
    run.tool = {doc["tool"]["version"].string(),
                doc["tool"].hint<std::string>("commit").value_or("unknown")};
    run.generated_at = doc["generated_at"].string();
    if (!is_iso8601_utc(run.generated_at))
        doc["generated_at"].fail("'" + run.generated_at.substr(0, 40) +
                                 "' is not a UTC time the calendar has, written like "
                                 "2026-12-01T10:00:00Z");
    check_hostname(doc["host"]["hostname"], doc["host"]["hostname"].string());
    run.probe = read_probe_record(doc);
    run.sku = read_sku(doc["sku"]);
    run.sku.microarch = checked_microarch(doc, run.sku.microarch);
    // Reports made before the key held init_on_alloc say it in their kernel block.
    if (!run.sku.init_on_alloc)
        run.sku.init_on_alloc = doc["kernel"].hint<bool>("init_on_alloc");
    doc["sweep"].object();
    run.sweep = read_measured_sweep(doc["sweep"]);
    check_sku_facts(doc, run.sku, run.sweep.page_size_kb);
    run.fit = read_fit(doc["fit"]);
    run.warnings = read_warnings(doc["warnings"]);
    run.breakdown = read_breakdown(doc["breakdown"]);
    run.what_if = read_what_if(doc["what_if"]);
    run.first_touch = read_first_touch(doc["first_touch"]);
    if (doc["boot_sweep"].present())
        run.boot_sweep = read_boot_comparison(doc["boot_sweep"]);
    return run;
}

// The short form holds nothing but these members; a document with any other is a whole report
// and is held to the schema (so no field of one is passed over unchecked).
bool is_short_form(const nlohmann::json& document) {
    static const std::set<std::string> members = {"schema_version", "recommendation", "kernel",
                                                  "boot_pool", "verification"};
    if (!document.is_object())
        return true;
    for (const auto& [key, value] : document.items())
        if (!members.contains(key))
            return false;
    return true;
}

}  // namespace

std::uint64_t nominal_memory_gib(std::uint64_t memory_total_bytes) {
    const double gib = static_cast<double>(memory_total_bytes) / (1024.0 * 1024 * 1024);
    if (!(gib > 0))
        return 0;
    for (std::uint64_t power = 1; power <= (std::uint64_t{1} << 40); power *= 2) {
        if (gib <= static_cast<double>(power))
            return power;
        if (power >= 2 && gib <= 1.5 * static_cast<double>(power))
            return power * 3 / 2;
    }
    return std::uint64_t{1} << 40;
}

SkuKey read_sku(const JsonField& sku) {
    sku.object();
    SkuKey key;
    key.microarch = sku["microarch"].string();
    // The rule `--sku` keeps (model/microarch.hpp): a key read from a report is one `--sku`
    // can name.
    if (!is_microarch_name(key.microarch))
        sku["microarch"].fail("'" + printable_text(key.microarch.substr(0, 80)) + "' " +
                              std::string(kMicroarchRule));
    key.nodes = static_cast<int>(sku["nodes"].whole_number({1, kMaxNodes}));
    key.hardware_threads_per_node =
        static_cast<int>(sku["hardware_threads_per_node"].whole_number({1, 1'000'000}));
    key.memory_per_node_gib =
        static_cast<std::uint64_t>(sku["memory_per_node_gib"].whole_number({0}));
    key.page_size_kb = static_cast<std::uint64_t>(sku["page_size_kb"].whole_number({4}));
    key.init_on_alloc = sku["init_on_alloc"].optional_boolean();
    return key;
}

Decision read_decision(const JsonField& decision) {
    return named_value(decision, kDecisionNames);
}

Report read_report(nlohmann::json document, const ReportReading& reading) {
    const JsonField doc(document, kReportFix, reading.input);
    if (reading.need_run)
        doc.object();
    check_schema_version(doc["schema_version"]);
    const bool whole = reading.need_run || !is_short_form(document);
    Report report;
    report.recommendation = read_recommendation(doc["recommendation"], reading);
    report.kernel = read_kernel(doc["kernel"]);
    report.boot_pool = read_boot_pool(doc["boot_pool"]);
    if (whole)
        report.run = read_run_part(doc);
    if (doc["verification"].present())
        report.verification = read_verification(doc["verification"]);
    // After the fields it reads (their messages say how to fix them), the schema covers the
    // rest of a whole report.
    if (whole && !reading.input.stored)
        if (const auto problem = report_schema_problem(document))
            throw InputError(reading.input, std::nullopt,
                             "does not match the report schema: " + *problem);
    report.document = std::move(document);
    return report;
}

}  // namespace hugetune::model
