// One report file on its way into the fleet database: parsed, checked against the shipped
// schema and by the fleet model, and keyed. Pure: bytes in, a checked report or a refusal out.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "model/documents/boot_record.hpp"

#include "model/fleet/fleet.hpp"

namespace hugetune::fleet_db {

struct IntakeReport {
    std::string name;              // the file name, for messages
    std::string document;          // the report without its verification block, as stored
    model::fleet::RunFacts facts;  // its verifications, read and checked, in facts.verifications
    std::string content_hash;      // of `document`: a later verification block keeps the run's key
    std::optional<std::string> digest;  // of `facts` (model/fleet/run_digest.hpp)
    // What storing it writes: its text and its digest.
    std::size_t stored_bytes() const { return document.size() + (digest ? digest->size() : 0); }
};

// One boot record (model/documents/boot_record.hpp) on its way into the fleet database.
struct IntakeBoot {
    std::string name;      // the file name, for messages
    std::size_t line = 0;  // its line in a JSON Lines file; 0 for a file of its own
    model::BootRecord record;
    std::string document;  // the record as its one writer writes it, as stored
    // The boot: "boot <host> <boot id>", or for a record without a boot id (made from a saved
    // log) "record <hash of the record without recorded_at>".
    std::string boot_key;
};

// How far a report's generated_at may lie after the ingest's own time: a host's clock a day
// fast is still a clock; one further ahead would make its report the host's "newest" until that
// time comes, hiding every later run (docs/fleet.md "The clock rule").
inline constexpr std::int64_t kMaxClockSkewSeconds = 24 * 60 * 60;

// Throws FleetDbError (usage) "NAME: reason" for a truncated or malformed document, another
// schema_version or a schema violation, a host name that is not a DNS host name
// (model/fleet/host_name.hpp; facts.host is the canonical form of one that is), a generated_at more
// than kMaxClockSkewSeconds after `ingest_unix_seconds` (when given), and model::InputError about
// NAME for a report the fleet model cannot fit. `bytes` is taken, and let go once parsed: a large
// report is held once.
IntakeReport read_intake_report(const std::string& name, std::string bytes,
                                std::optional<std::int64_t> ingest_unix_seconds = std::nullopt);

// A boot record's checks (read_boot_record), keyed. Throws FleetDbError (usage) "NAME: reason",
// also for a recorded_at more than kMaxClockSkewSeconds after `ingest_unix_seconds` (when given):
// the clock rule of reports. The output of `hugetune verify --json` is taken for the boot record
// it holds.
IntakeBoot read_intake_boot(const std::string& name, std::string bytes,
                            std::optional<std::int64_t> ingest_unix_seconds = std::nullopt);
// A record made by this program: the same checks (model::boot_record_problem), the same error.
IntakeBoot intake_boot(const std::string& name, model::BootRecord record,
                       std::optional<std::int64_t> ingest_unix_seconds = std::nullopt);

// Whether `line` is one whole boot record: how standard input holding JSON Lines of them is told
// from one document (docs/fleet.md "Ingest").
bool is_boot_record_line(std::string_view line);

// A report or a boot record (or `verify --json`'s output, for the record in it), told apart by
// the record's `kind`; throws as the two above.
std::variant<IntakeReport, IntakeBoot> read_intake_document(
    const std::string& name, std::string bytes,
    std::optional<std::int64_t> ingest_unix_seconds = std::nullopt);

// 16 hex digits: FNV-1a (64 bits) of `text`. Identifies a document among one host's reports of
// one time, where only an accident or an edit makes two differ; not a defence against forgery.
std::string content_hash(std::string_view text);

}  // namespace hugetune::fleet_db
