// One `hugetune-report` document -> the facts the fleet needs, each field checked by its path.
#include <algorithm>
#include <cmath>

#include "model/alloc_threads.hpp"
#include "model/fleet/fleet.hpp"
#include "model/input/json_fields.hpp"
#include "model/report_version.hpp"

namespace hugetune::model::fleet {
namespace {

// Finite and at least 0 (a prediction may be zero, a measured time may not).
double non_negative(const JsonField& field) {
    if (!field.present())
        field.fail("missing");
    const auto value = field.hint<double>();
    if (!value)
        field.fail("must be a number");
    if (!std::isfinite(*value) || *value < 0)
        field.fail("must be at least 0");
    return *value;
}

SkuKey read_sku(const JsonField& sku) {
    sku.object();
    SkuKey key;
    key.microarch = sku["microarch"].string();
    if (key.microarch.empty() || key.microarch.find('/') != std::string::npos)
        sku["microarch"].fail("must be a name without '/'");
    key.nodes = static_cast<int>(sku["nodes"].whole_number({1, kMaxNodes}));
    key.hardware_threads_per_node =
        static_cast<int>(sku["hardware_threads_per_node"].whole_number({1, 1'000'000}));
    key.memory_per_node_gib =
        static_cast<std::uint64_t>(sku["memory_per_node_gib"].whole_number({0}));
    key.page_size_kb = static_cast<std::uint64_t>(sku["page_size_kb"].whole_number({4}));
    return key;
}

// "bios <version>, microcode <revision>" from the optional `firmware` block.
std::optional<std::string> read_firmware(const JsonField& firmware) {
    if (!firmware.present())
        return std::nullopt;
    firmware.object();
    const auto bios = firmware["bios_version"].optional_string();
    const auto microcode = firmware["microcode"].optional_string();
    if (!bios && !microcode)
        return std::nullopt;
    return "bios " + bios.value_or("unknown") + ", microcode " + microcode.value_or("unknown");
}

void read_recommendation(const JsonField& r, RunFacts& run) {
    r.object();
    run.decision = r["decision"].string();
    if (run.decision != "set" && run.decision != "keep_default")
        r["decision"].fail("'" + run.decision + "' is not one of set, keep_default");
    run.hugepage_alloc_threads = static_cast<int>(
        r["hugepage_alloc_threads"].whole_number({1, static_cast<std::int64_t>(kMaxAllocThreads)}));
    run.predicted_seconds = non_negative(r["predicted_seconds"]);
    if (r["saving_seconds"].present())
        run.saving_seconds = r["saving_seconds"].hint<double>().value_or(0);
    if (r["confidence"].present()) {
        const double confidence = non_negative(r["confidence"]);
        if (confidence > 1)
            r["confidence"].fail("must be from 0 to 1");
        run.confidence = confidence;
    }
}

std::vector<std::string> read_warning_codes(const JsonField& warnings) {
    std::vector<std::string> codes;
    const std::size_t n = warnings.array_size();
    for (std::size_t i = 0; i < n; ++i)
        codes.push_back(warnings[i]["code"].string());
    return codes;
}

}  // namespace

RunFacts read_run(const nlohmann::json& report, const InputSource& input) {
    const JsonField doc(report, "give a report written by 'hugetune run'", input);
    doc.object();
    const auto version = doc["schema_version"].whole_number({0});
    if (version != kReportSchemaVersion)
        doc["schema_version"].fail(std::to_string(version) +
                                   " is not supported (this hugetune reads version " +
                                   std::to_string(kReportSchemaVersion) + ")");
    RunFacts run;
    run.host = doc["host"]["hostname"].string();
    if (run.host.empty())
        doc["host"]["hostname"].fail("must not be empty");
    run.sku = read_sku(doc["sku"]);
    run.generated_at = doc["generated_at"].string();
    run.tool_version = doc["tool"]["version"].string();
    doc["kernel"].object();
    run.kernel_release = doc["kernel"]["release"].optional_string();
    run.firmware = read_firmware(doc["firmware"]);
    doc["sweep"].object();
    run.sweep = read_sweep_fields(doc["sweep"], doc);
    read_recommendation(doc["recommendation"], run);
    run.warning_codes = read_warning_codes(doc["warnings"]);
    if (doc["verification"].present())
        run.verification = read_verification(doc["verification"]);
    return run;
}

}  // namespace hugetune::model::fleet
