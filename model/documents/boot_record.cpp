#include "model/documents/boot_record.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/alloc_threads.hpp"
#include "model/documents/json_schema.hpp"
#include "model/documents/json_values.hpp"
#include "model/documents/verification.hpp"
#include "model/fleet/fleet.hpp"
#include "model/fleet/host_name.hpp"
#include "model/input/json_fields.hpp"
#include "model/text.hpp"

namespace hugetune::model {

// model/documents/schema_text.cpp.in, filled in by CMake with boot-record.schema.json.
extern const char kBootRecordSchemaText[];

namespace {

using nlohmann::json;

// The report's host-name rule (docs/fleet.md "The host-name rule"): any case and a trailing dot
// are taken, and the name is the one DNS compares, so "WEB-17." is the host "web-17" a report
// of it names. A name the rule refuses is kept as written, for boot_record_problem to name.
std::optional<std::string> read_host(const JsonField& field) {
    auto host = field.optional_string();
    if (!host || fleet::host_name_problem(*host))
        return host;
    return fleet::canonical_host_name(*host);
}

// Version 1 has no such member (unknown); version 2 has it, null where the probe could not say.
// Its value by boot_record_problem.
std::optional<std::string> read_virtualization(const JsonField& document, std::int64_t version) {
    const JsonField field = document["virtualization"];
    const bool member = document.object().contains("virtualization");
    if (version < 2 && member)
        field.fail("not a member of a boot record of schema_version " + std::to_string(version));
    if (version >= 2 && !member)
        field.fail("missing: a boot record of schema_version " + std::to_string(version) +
                   " says its hypervisor, '" + std::string(kBareMetal) + "' or null");
    return field.optional_string();
}

// The rule `fleet recommend --sku` keeps (model/fleet/sku_key.cpp); its error names the field.
std::optional<SkuKey> read_sku_key(const JsonField& field) {
    auto text = field.optional_string();
    if (!text)
        return std::nullopt;
    return fleet::parse_sku_key(*text, field.input().part(field.path()));
}

std::optional<BootRecordPool> read_record_pool(const JsonField& field) {
    if (!field.present())
        return std::nullopt;
    field.object();
    return BootRecordPool{static_cast<std::uint64_t>(field["pages"].whole_number({0})),
                          static_cast<std::uint64_t>(field["page_size_kb"].whole_number({0}))};
}

AllocationLine read_line(const JsonField& field) {
    field.object();
    AllocationLine line;
    line.present = field["present"].boolean();
    line.text = field["text"].optional_string();
    if (field["absent_reason"].present())
        line.absent_reason = read_warning(field["absent_reason"]);
    return line;
}

// The field at `path` ("allocation_line.text") of `document`.
JsonField field_at(const JsonField& document, std::string_view path) {
    JsonField field = document;
    for (std::size_t start = 0; start <= path.size();) {
        const std::size_t dot = std::min(path.find('.', start), path.size());
        field = field[path.substr(start, dot - start)];
        start = dot + 1;
    }
    return field;
}

using Problem = std::optional<BootRecordProblem>;

Problem host_problem(const std::optional<std::string>& host) {
    if (!host)
        return std::nullopt;
    if (auto problem = fleet::host_name_problem(*host))
        return BootRecordProblem{"host", *problem};
    if (fleet::canonical_host_name(*host) != *host)
        return BootRecordProblem{
            "host", "'" + printable_text(*host) + "' is not in its canonical form '" +
                        fleet::canonical_host_name(*host) + "' (lower case, no trailing dot)"};
    return std::nullopt;
}

// A boot id as the kernel writes it (/proc/sys/kernel/random/boot_id): a UUID in lower case.
Problem boot_id_problem(const std::optional<std::string>& id) {
    if (!id)
        return std::nullopt;
    bool uuid = id->size() == 36;
    for (std::size_t i = 0; uuid && i < id->size(); ++i) {
        const char c = (*id)[i];
        uuid = (i == 8 || i == 13 || i == 18 || i == 23)
                   ? c == '-'
                   : std::isxdigit(static_cast<unsigned char>(c)) && !std::isupper(c);
    }
    if (uuid)
        return std::nullopt;
    return BootRecordProblem{
        "boot_id", "'" + printable_text(id->substr(0, 80)) +
                       "' is not a boot id (36 characters, as /proc/sys/kernel/random/boot_id)"};
}

Problem release_problem(const std::optional<std::string>& release) {
    if (!release)
        return std::nullopt;
    const bool printable = std::all_of(release->begin(), release->end(), [](char c) {
        return std::isgraph(static_cast<unsigned char>(c)) != 0;
    });
    if (!release->empty() && release->size() <= kMaxKernelReleaseChars && printable)
        return std::nullopt;
    return BootRecordProblem{"kernel_release",
                             "'" + printable_text(release->substr(0, 80)) +
                                 "' is not a kernel release (1 to " +
                                 std::to_string(kMaxKernelReleaseChars) +
                                 " printable characters without spaces, as uname -r)"};
}

// The time as the report's clock rule has it: ISO 8601 UTC, and not before any hugetune made a
// record (a clock's error that would count in every canary plan).
Problem recorded_at_problem(const std::string& at) {
    if (!is_iso8601_utc(at))
        return BootRecordProblem{"recorded_at",
                                 "'" + printable_text(at.substr(0, 80)) +
                                     "' is not an ISO 8601 UTC time such as 2026-12-01T10:00:00Z"};
    // The text's order is time order: fixed width, most significant first.
    if (at < kEarliestBootRecordTime)
        return BootRecordProblem{"recorded_at", "'" + at + "' is before " +
                                                    std::string(kEarliestBootRecordTime) +
                                                    ", when no hugetune made a record: set the "
                                                    "host's clock and verify again"};
    return std::nullopt;
}

Problem virtualization_problem(const std::optional<std::string>& name) {
    if (!name)
        return std::nullopt;
    const bool printable = std::all_of(name->begin(), name->end(), [](char c) {
        return std::isprint(static_cast<unsigned char>(c)) != 0;
    });
    if (!name->empty() && name->size() <= kMaxVirtualizationChars && printable &&
        name->front() != ' ' && name->back() != ' ')
        return std::nullopt;
    return BootRecordProblem{
        "virtualization",
        "'" + printable_text(name->substr(0, 80)) + "' is not a hypervisor's name (1 to " +
            std::to_string(kMaxVirtualizationChars) +
            " printable characters, as the probe reads it) nor '" + std::string(kBareMetal) + "'"};
}

// A count outside [min, max], said as the document's reader says it of any whole number.
Problem count_problem(const char* path, const std::optional<std::uint64_t>& value,
                      std::uint64_t min, std::uint64_t max) {
    if (!value || (*value >= min && *value <= max))
        return std::nullopt;
    return BootRecordProblem{path, "is " + std::to_string(*value) +
                                       "; must be a whole number from " + std::to_string(min) +
                                       " to " + std::to_string(max)};
}

// A present line comes with its numbers and the pool they are for; an absent one with its
// reason and no numbers.
Problem line_problem(const BootRecord& r) {
    const AllocationLine& line = r.allocation_line;
    const std::pair<const char*, bool> numbers[] = {{"milliseconds", r.milliseconds.has_value()},
                                                    {"threads", r.threads.has_value()},
                                                    {"pool", r.pool.has_value()}};
    if (line.present) {
        if (line.absent_reason)
            return BootRecordProblem{"allocation_line.absent_reason",
                                     "must be null when present is true"};
        for (auto [name, there] : numbers)
            if (!there)
                return BootRecordProblem{name, "missing, but allocation_line.present is true"};
        if (!line.text)
            return BootRecordProblem{"allocation_line.text", "missing, but present is true"};
        return std::nullopt;
    }
    if (!line.absent_reason)
        return BootRecordProblem{"allocation_line.absent_reason",
                                 "missing, but present is false: say why the line is absent"};
    for (auto [name, there] : numbers)
        if (there)
            return BootRecordProblem{name, "must be null when allocation_line.present is false"};
    if (line.text)
        return BootRecordProblem{"allocation_line.text", "must be null when present is false"};
    return std::nullopt;
}

// The first way `document` breaks the shipped schema (members it does not know above all), as
// "PATH: what", or nothing.
std::optional<std::string> schema_problem(const json& document) {
    static const JsonSchema validator(json::parse(kBootRecordSchemaText));
    return validator.problem(document);
}

}  // namespace

json to_json(const BootRecord& r) {
    json j;
    j["kind"] = kBootRecordKind;
    j["schema_version"] = kBootRecordSchemaVersion;
    j["recorded_at"] = r.recorded_at;
    j["host"] = or_null(r.host);
    j["sku_key"] = r.sku ? json(fleet::to_string(*r.sku)) : json();
    j["boot_id"] = or_null(r.boot_id);
    j["kernel_release"] = or_null(r.kernel_release);
    j["pool"] =
        r.pool ? json{{"pages", r.pool->pages}, {"page_size_kb", r.pool->page_size_kb}} : json();
    j["threads"] = or_null(r.threads);
    j["milliseconds"] = or_null(r.milliseconds);
    j["init_on_alloc"] = or_null(r.init_on_alloc);
    j["hvo"] = or_null(r.hvo);
    const auto& line = r.allocation_line;
    j["allocation_line"] = {
        {"present", line.present},
        {"text", or_null(line.text)},
        {"absent_reason", line.absent_reason ? warning_json(*line.absent_reason) : json()}};
    j["expected_alloc_threads"] = or_null(r.expected_threads);
    j["virtualization"] = or_null(r.virtualization);
    return j;
}

std::optional<BootRecordProblem> boot_record_problem(const BootRecord& r) {
    const Problem checks[] = {
        recorded_at_problem(r.recorded_at),
        host_problem(r.host),
        boot_id_problem(r.boot_id),
        release_problem(r.kernel_release),
        count_problem("pool.page_size_kb",
                      r.pool ? std::optional(r.pool->page_size_kb) : std::nullopt, 4,
                      std::numeric_limits<std::int64_t>::max()),
        count_problem("threads", r.threads, 1, kMaxAllocThreads),
        count_problem("milliseconds", r.milliseconds, 0, kMaxBootAllocationMs),
        line_problem(r),
        count_problem("expected_alloc_threads", r.expected_threads, 1, kMaxAllocThreads),
        virtualization_problem(r.virtualization),
    };
    for (const auto& problem : checks)
        if (problem)
            return problem;
    return std::nullopt;
}

BootRecord read_boot_record(const JsonField& document) {
    document.object();
    if (document["kind"].string() != kBootRecordKind)
        document["kind"].fail("must be \"" + std::string(kBootRecordKind) +
                              "\": this is not a boot record");
    const std::int64_t version = document["schema_version"].whole_number(
        {kOldestBootRecordSchemaVersion, kBootRecordSchemaVersion});
    // The members' types here; their values by the rules a record made in this program is held
    // to too (boot_record_problem).
    BootRecord r;
    r.recorded_at = document["recorded_at"].string();
    r.host = read_host(document["host"]);
    r.sku = read_sku_key(document["sku_key"]);
    r.boot_id = document["boot_id"].optional_string();
    r.kernel_release = document["kernel_release"].optional_string();
    r.pool = read_record_pool(document["pool"]);
    r.threads = document["threads"].optional_count({0});
    r.milliseconds = document["milliseconds"].optional_count({0});
    r.init_on_alloc = document["init_on_alloc"].optional_boolean();
    r.hvo = document["hvo"].optional_boolean();
    r.allocation_line = read_line(document["allocation_line"]);
    r.expected_threads = document["expected_alloc_threads"].optional_count({0});
    r.virtualization = read_virtualization(document, version);
    if (const auto problem = boot_record_problem(r))
        field_at(document, problem->path).fail(problem->problem);
    // After the members it reads (their messages say how to fix them), the schema covers the
    // rest: every member there, none it does not know.
    if (const auto problem = schema_problem(document.object()))
        document.fail("does not match the boot record schema: " + *problem);
    return r;
}

}  // namespace hugetune::model
