// The boot record (docs/fleet.md "Boots"): what one boot's kernel said about its huge page
// allocation, made by `hugetune verify` on every host, with or without a ledger or a report.
// The document type, its one writer and its one reader; its shipped schema is
// model/documents/schema/boot-record.schema.json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "model/documents/report.hpp"
#include "model/warning.hpp"

namespace hugetune::model {

// What tells a boot record from a report or any other document hugetune writes; the version
// changes only when a member changes meaning or disappears.
inline constexpr std::string_view kBootRecordKind = "hugetune-boot-record";
inline constexpr int kBootRecordSchemaVersion = 1;
// A boot record as its writer writes it is under 2 kB: a line of a JSON Lines file of records
// (`fleet ingest`) longer than this is not one, and is refused without being held.
inline constexpr std::size_t kMaxBootRecordLineBytes = 64 * 1024;
// The kernel's release as uname(2) holds it: at most 64 characters.
inline constexpr std::size_t kMaxKernelReleaseChars = 64;

// The pool the kernel allocated with the threads, as its log says.
struct BootRecordPool {
    std::uint64_t pages = 0;
    std::uint64_t page_size_kb = 0;

    bool operator==(const BootRecordPool&) const = default;
};

// Whether the kernel's "HugeTLB: allocation took <ms>ms with hugepage_allocation_threads=<n>"
// line for the pool was in the boot's log, and why not when it was not.
struct AllocationLine {
    bool present = false;
    std::optional<std::string> text;       // the line, when present
    std::optional<Warning> absent_reason;  // kernel_too_old, node_format_hugepages, ...
};

struct BootRecord {
    std::string recorded_at;             // iso8601_utc
    std::optional<std::string> host;     // canonical_host_name; absent when unknown
    std::optional<SkuKey> sku;           // this machine's, as the probe makes it
    std::optional<std::string> boot_id;  // absent for a saved log
    std::optional<std::string> kernel_release;
    std::optional<BootRecordPool> pool;         // absent without the line
    std::optional<std::uint64_t> threads;       // the line's
    std::optional<std::uint64_t> milliseconds;  // the line's
    std::optional<bool> init_on_alloc;          // as booted; absent: unknown
    std::optional<bool> hvo;  // hugetlb_optimize_vmemmap as booted; absent: unknown
    AllocationLine allocation_line;
    std::optional<std::uint64_t> expected_threads;  // the ledger's value, else the report's
};

nlohmann::json to_json(const BootRecord& record);

// `hugetune verify --json` prints the verification with the boot record as this member.
inline constexpr const char* kBootRecordMember = "boot_record";

// The first value of `record` no boot record holds, named by its path in the document
// ("allocation_line.text") with what is wrong: a time that is not ISO 8601 UTC, a host name the
// fleet does not store (model/fleet/host_name.hpp) or not in its canonical form, a boot id or
// kernel release not as the kernel writes them, threads outside 1 to kMaxAllocThreads, a time
// above kMaxBootAllocationMs, a line present without its numbers or absent with them or
// without its reason. The one set of rules of the reader below and of a record made in this
// program before the fleet database stores it; nothing when every value is one a record holds.
struct BootRecordProblem {
    std::string path;
    std::string problem;
};
std::optional<BootRecordProblem> boot_record_problem(const BootRecord& record);

class JsonField;

// Reads and checks a record: its kind and version, the schema's types, a SKU key `fleet
// recommend --sku` takes, and its values by boot_record_problem. Throws InputError naming the
// field by its path in the document ("allocation_line.absent_reason: ...").
BootRecord read_boot_record(const JsonField& document);

}  // namespace hugetune::model
