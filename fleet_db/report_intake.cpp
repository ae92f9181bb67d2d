#include "fleet_db/report_intake.hpp"

#include "model/fleet/run_digest.hpp"

#include <chrono>
#include <cstdint>
#include <ctime>
#include <nlohmann/json.hpp>

#include "fleet_db/fleet_db_error.hpp"
#include "model/digest.hpp"
#include "model/documents/report.hpp"
#include "model/fleet/host_name.hpp"
#include "model/input/json_fields.hpp"
#include "model/input/json_text.hpp"
#include "model/report_version.hpp"
#include "model/text.hpp"

namespace hugetune::fleet_db {
namespace {

[[noreturn]] void refuse(const std::string& name, const Message& reason) {
    throw FleetDbError(FleetDbError::Kind::usage, name + ": " + reason);
}

nlohmann::json parse_document(const std::string& name, std::string_view bytes,
                              model::CompactText& compact) {
    try {
        return model::parse_json_document(bytes, compact);
    } catch (const model::JsonTextError& e) {
        if (e.beyond_bounds())
            refuse(name, std::string(e.what()) + "; not a hugetune report");
        if (e.byte() == 0)  // read whole, but holds what no reader may take
            refuse(name, std::string("not a report hugetune writes: ") + e.what() +
                             "; write the report with hugetune again");
        refuse(name, std::string(e.truncated() ? "truncated: " : "not JSON: ") +
                         "the document ends or breaks at byte " + std::to_string(e.byte()) +
                         "; copy the whole report again");
    }
}

// The clock rule (docs/fleet.md "The clock rule"): a document's time (`member`, `at`) at most
// kMaxClockSkewSeconds after the ingest's own, when given.
void refuse_ahead(const std::string& name, const std::string& member, const std::string& at,
                  std::optional<std::int64_t> ingest_unix_seconds, const std::string& why) {
    if (!ingest_unix_seconds)
        return;
    const auto seconds = unix_seconds_of_iso8601_utc(at);
    if (!seconds || *seconds <= *ingest_unix_seconds + kMaxClockSkewSeconds)
        return;
    refuse(name, member + " " + at + " lies " +
                     decimals_text(
                         static_cast<double>(*seconds - *ingest_unix_seconds) / (24 * 60 * 60), 1) +
                     " days after this ingest (" +
                     iso8601_utc(std::chrono::system_clock::from_time_t(
                         static_cast<std::time_t>(*ingest_unix_seconds))) +
                     "), more than the day a host's clock may be fast: " + why);
}

}  // namespace

std::string content_hash(std::string_view text) {
    return model::fnv1a_hex(text);
}

namespace {

IntakeReport intake_report(const std::string& name, nlohmann::json doc, model::CompactText& compact,
                           std::optional<std::int64_t> ingest_unix_seconds) {
    if (!doc.is_object())
        refuse(name, "not a hugetune report (a JSON object)");
    if (!doc.contains("schema_version") || doc["schema_version"] != kReportSchemaVersion)
        refuse(name, "schema_version " +
                         (doc.contains("schema_version") ? doc["schema_version"].dump()
                                                         : std::string("missing")) +
                         ", this hugetune stores " + std::to_string(kReportSchemaVersion) +
                         "; write the report with a matching hugetune");
    IntakeReport in;
    in.name = name;
    // The report's one reader: each field's bounds, then the shipped schema. The document is
    // handed over, not copied, and taken back to be stored.
    model::ReportReading reading;
    reading.need_run = true;
    reading.input = {name};
    model::Report report = model::read_report(std::move(doc), reading);
    in.facts = model::fleet::read_run(report);
    if (const auto problem = model::fleet::host_name_problem(in.facts.host))
        refuse(name, "host name '" + printable_text(in.facts.host) +
                         "' is not a DNS host name: " + *problem +
                         "; give the host such a name (hostnamectl set-hostname) and write the "
                         "report again (docs/fleet.md \"The host-name rule\")");
    if (const auto unlike = model::fleet::warnings_unlike_facts(report, in.facts))
        refuse(name, *unlike +
                         ": not the list hugetune writes from these facts; write the report with "
                         "'hugetune run' again (docs/fleet.md \"How a SKU's answer is made\")");
    in.facts.host = model::fleet::canonical_host_name(in.facts.host);
    refuse_ahead(name, "generated_at", in.facts.generated_at, ingest_unix_seconds,
                 "it would stand as the host's newest report until then; set the host's clock "
                 "and write the report again");
    if (compact.written) {
        in.document = std::move(compact.text);
        in.document.shrink_to_fit();  // reserved for the text read, which was indented
    } else {
        report.document.erase("verification");
        in.document = report.document.dump();
    }
    in.content_hash = content_hash(in.document);
    in.digest = model::fleet::run_digest(in.facts);
    return in;
}

bool is_boot_record(const nlohmann::json& doc) {
    const auto kind = doc.is_object() ? doc.find("kind") : doc.end();
    return kind != doc.end() && *kind == model::kBootRecordKind;
}

// What `hugetune verify --json` prints: the verification, with this boot's record as a member
// (and no kind or schema_version of its own, as a report and a record have).
bool holds_boot_record(const nlohmann::json& doc) {
    if (!doc.is_object() || doc.contains("kind") || doc.contains("schema_version"))
        return false;
    const auto record = doc.find(model::kBootRecordMember);
    return record != doc.end() && is_boot_record(*record);
}

IntakeBoot boot_of(const std::string& name, const nlohmann::json& doc,
                   std::optional<std::int64_t> ingest_unix_seconds) {
    const model::JsonField field(
        doc, "make the record again with 'hugetune verify " + Flag{"boot_record"} + " FILE'",
        {name});
    // Read where it stands, so an error names it by its path in what was given.
    return intake_boot(
        name,
        model::read_boot_record(holds_boot_record(doc) ? field[model::kBootRecordMember] : field),
        ingest_unix_seconds);
}

}  // namespace

bool is_boot_record_line(std::string_view line) {
    try {
        model::CompactText compact;
        return is_boot_record(model::parse_json_document(line, compact));
    } catch (const model::JsonTextError&) {
        return false;
    }
}

IntakeBoot intake_boot(const std::string& name, model::BootRecord record,
                       std::optional<std::int64_t> ingest_unix_seconds) {
    // A record made here (`verify --fleet-db`) is held to the rules its reader holds one read from
    // a file to: the database stores no record `fleet ingest` would refuse.
    if (const auto problem = model::boot_record_problem(record))
        refuse(name, problem->path + ": " + problem->problem);
    refuse_ahead(name, "recorded_at", record.recorded_at, ingest_unix_seconds,
                 "it would count in every canary plan started before then; set the host's "
                 "clock and verify again");
    IntakeBoot in;
    in.name = name;
    nlohmann::json written = model::to_json(record);
    in.document = written.dump();
    if (record.boot_id) {
        in.boot_key = "boot " + record.host.value_or("") + " " + *record.boot_id;
    } else {
        written.erase("recorded_at");  // the same saved log read again is the same boot
        in.boot_key = "record " + content_hash(written.dump());
    }
    in.record = std::move(record);
    return in;
}

IntakeReport read_intake_report(const std::string& name, std::string bytes,
                                std::optional<std::int64_t> ingest_unix_seconds) {
    // The text stored is the document as dump() writes it, without its verification blocks
    // (they are stored apart): written while reading where hugetune wrote the report.
    model::CompactText compact;
    compact.omit = "verification";
    nlohmann::json doc = parse_document(name, bytes, compact);
    std::string().swap(bytes);
    return intake_report(name, std::move(doc), compact, ingest_unix_seconds);
}

IntakeBoot read_intake_boot(const std::string& name, std::string bytes,
                            std::optional<std::int64_t> ingest_unix_seconds) {
    model::CompactText compact;
    const nlohmann::json doc = parse_document(name, bytes, compact);
    if (!is_boot_record(doc) && !holds_boot_record(doc))
        refuse(name, "not a hugetune boot record (its kind is not " +
                         std::string(model::kBootRecordKind) +
                         "); make one with 'hugetune verify " + Flag{"boot_record"} + " FILE'");
    return boot_of(name, doc, ingest_unix_seconds);
}

std::variant<IntakeReport, IntakeBoot> read_intake_document(
    const std::string& name, std::string bytes, std::optional<std::int64_t> ingest_unix_seconds) {
    model::CompactText compact;
    compact.omit = "verification";
    nlohmann::json doc = parse_document(name, bytes, compact);
    std::string().swap(bytes);
    if (is_boot_record(doc) || holds_boot_record(doc))
        return boot_of(name, doc, ingest_unix_seconds);
    return intake_report(name, std::move(doc), compact, ingest_unix_seconds);
}

}  // namespace hugetune::fleet_db
