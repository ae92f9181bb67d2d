// The database's schema, as numbered migrations: version N is what migrations 1..N create.
// Applied on open, each in the transaction that records its number; a database whose number is
// above the last one here was written by a newer hugetune and is refused, never altered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hugetune::fleet_db {

enum class Dialect { sqlite, postgresql };

// The statements of migration `version` (1-based) for `dialect`.
std::vector<std::string> migration_statements(int version, Dialect dialect);
// The newest schema this hugetune knows.
int latest_schema_version();

// Migration 3 carries each verification of version 2 over with this prefix and its run's id as
// its block_hash; whoever applies it then writes each such row's real hash.
inline constexpr int kVerificationsByBlockVersion = 3;
inline constexpr std::string_view kCarriedVerificationPrefix = "carried ";

// Migration 4 adds init_on_alloc to the SKU key (the skus column); the runs move to their new
// keys with migration 5's pass, which every database of version 4 or older goes through.

// Migration 5 changes no table; whoever applies it moves each run to the SKU key its report's
// reader gives now (a CPU that keyed `unknown` keys its identity or the table's name), and drops
// the SKUs left without runs and every kept answer.
inline constexpr int kCpuIdentityKeyVersion = 5;

// Migration 7 adds each run's digest; whoever applies it then writes the digest of every stored
// run from its report. A hugetune that raises model::fleet::kRunDigestVersion adds a migration
// that writes them again.
inline constexpr int kRunDigestsVersion = 7;
// Migration 15 raises the digest's version to 2 (warning codes judged from the report's facts):
// whoever applies it writes every digest again, as for migration 7.
inline constexpr int kJudgedWarningsVersion = 15;
// Migration 16 raises it to 3 (each run's hardware identity, which splits a host name's runs by
// machine: docs/fleet.md "The host-name rule"): the digests written again as for 15.
inline constexpr int kHardwareIdVersion = 16;

// Migration 8 changes no table; on PostgreSQL whoever applies it has the server compress the
// large text columns (kLz4Columns) with lz4 from then on, where the server was built with it.
inline constexpr int kLz4Version = 8;
inline constexpr std::string_view kLz4Columns[][2] = {
    {"runs", "report"}, {"run_digests", "digest"}, {"sku_answers", "answer"}};

// Migration 17 keeps a kept answer's fit in a column of its own (sku_answers.fit), compressed
// as migration 8 compresses the others.
inline constexpr int kAnswerFitVersion = 17;
inline constexpr std::string_view kAnswerFitColumn[][2] = {{"sku_answers", "fit"}};

// Migration 9 adds boot_records; a writer that may only add boot records (PostgreSQL's boot
// writer role) needs at least this version and never migrates.
inline constexpr int kBootRecordsVersion = 9;
// Migration 10 adds canary_plans.

// Migration 13 holds boot_records to the reader's rules (CHECK constraints), draws its ids
// itself, and on PostgreSQL adds the function that the boot writer role adds records through
// (docs/fleet.md "The boot writer role"); a PostgreSQL writer needs at least this version.
inline constexpr int kBootRulesVersion = 13;
inline constexpr const char* kAddBootRecordFunction = "hugetune_add_boot_record";
// boot_records' columns as its writers name them (its id apart).
inline constexpr const char* kBootColumns =
    "boot_key, host, sku_key, boot_id, kernel_release, pool_pages, page_size_kb, threads,"
    " milliseconds, line_present, absent_code, init_on_alloc, hvo, expected_threads, recorded_at,"
    " record";
// Its arguments: boot_records' columns in kBootColumns' order.
inline constexpr const char* kAddBootRecordArguments =
    "TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, BIGINT, INTEGER, BIGINT, INTEGER, TEXT, INTEGER,"
    " INTEGER, INTEGER, TEXT, TEXT";

// Migration 14 holds boot records to the report's host and clock rules and adds
// `virtualization`, a column derived from the record (no writer sets it, so none can make it
// disagree): the table made again as migration 13 made it, the function the same (its
// arguments and the role's right to it kept), the host it stores in its canonical form.
inline constexpr int kBootVirtualizationVersion = 14;

// Migration 18 adds boot_records.reported: 1 where a run of the boot's SKU names its host, kept
// so by triggers on boot_records, runs, hosts and skus (no writer sets it, so none can make it
// disagree), so that a SKU's tally reads its counted boots from one index.
inline constexpr int kBootReportedVersion = 18;
// boot_records.reported of a boot of `host` and `sku` (SQL expressions), as migration 18's
// triggers compute it: 1 where a run of that SKU names that host, else 0 (`as_number`), or the
// condition alone. `schema`: the tables' schema and a dot, or empty.
std::string boot_reported_sql(const std::string& host, const std::string& sku,
                              const std::string& schema = "", bool as_number = true);

}  // namespace hugetune::fleet_db
