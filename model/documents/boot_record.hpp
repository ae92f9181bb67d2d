// The boot record (docs/fleet.md "Boots"): what one boot's kernel said about its huge page
// allocation, made by `hugetune verify` on every host, with or without a ledger or a report.
// The document type, its one writer and its one reader; its shipped schema is
// model/documents/schema/boot-record.schema.json.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "model/documents/report.hpp"
#include "model/warning.hpp"

namespace hugetune::model {

// What tells a boot record from a report or any other document hugetune writes; the version
// changes only when a member changes meaning or disappears.
inline constexpr std::string_view kBootRecordKind = "hugetune-boot-record";
// Version 2 adds `virtualization`; a record of version 1 reads as one whose virtualization is
// unknown.
inline constexpr int kBootRecordSchemaVersion = 2;
inline constexpr int kOldestBootRecordSchemaVersion = 1;
// A boot record as its writer writes it is under 2 kB: a line of a JSON Lines file of records
// (`fleet ingest`) longer than this is not one, and is refused without being held.
inline constexpr std::size_t kMaxBootRecordLineBytes = 64 * 1024;
// No hugetune made a record before this: hugepage_alloc_threads= came with Linux 6.15, in 2025.
// A recorded_at before it (year 0000, a clock never set) is a clock's error, not a boot; one
// far ahead is refused where the record is stored, against that clock (docs/fleet.md "The
// clock rule").
inline constexpr std::string_view kEarliestBootRecordTime = "2025-01-01T00:00:00Z";
// What a record says of a machine that booted in no virtual machine (`virtualization`).
inline constexpr std::string_view kBareMetal = "none";
// A hypervisor's name as the probe reads it (/sys/hypervisor/type, the DMI vendor): at most 64
// printable characters.
inline constexpr std::size_t kMaxVirtualizationChars = 64;
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
    // The hypervisor the machine booted under, as the probe names it for reports, or kBareMetal;
    // absent: unknown (a record of version 1, a machine the probe could not read).
    std::optional<std::string> virtualization;
};

nlohmann::json to_json(const BootRecord& record);

// `hugetune verify --json` prints the verification with the boot record as this member.
inline constexpr const char* kBootRecordMember = "boot_record";

// The first value of `record` no boot record holds, named by its path in the document
// ("allocation_line.text") with what is wrong: a time that is not ISO 8601 UTC or is before
// kEarliestBootRecordTime, a virtualization that is no hypervisor's name, a host name the
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

// Reads and checks a record: its kind and version (1 or 2), the schema's types, a host read in
// its canonical form as a report's is (model/fleet/host_name.hpp), a SKU key `fleet recommend
// --sku` takes, whether version 2's virtualization member is there, and its values by
// boot_record_problem. Throws InputError naming the field by its path in the document
// ("allocation_line.absent_reason: ...").
BootRecord read_boot_record(const JsonField& document);

}  // namespace hugetune::model
