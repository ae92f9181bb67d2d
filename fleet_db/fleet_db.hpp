// The fleet database: hosts, SKUs, runs (one per report), verifications and the answers kept
// per SKU, over SOCI on an embedded SQLite file or a PostgreSQL server, with the same
// statements on both (docs/fleet.md "The database").
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fleet_db/migrations.hpp"
#include "fleet_db/report_intake.hpp"
#include "model/fleet/boot_hosts.hpp"
#include "model/fleet/canary.hpp"
#include "model/fleet/fleet.hpp"

namespace soci {
class session;
}

namespace hugetune::fleet_db {

// PostgreSQL timeouts hugetune adds when the connection string sets none: connecting (libpq's
// connect_timeout, which also ends a server that accepts and never answers) and each statement
// (the server's statement_timeout).
inline constexpr int kPostgresConnectSeconds = 10;
inline constexpr int kPostgresStatementSeconds = 300;
// How long a statement waits for a lock another session holds (the server's lock_timeout,
// advisory locks included: an ingest waiting behind another) before it gives up, naming it.
inline constexpr int kPostgresLockSeconds = 30;

// Where the database is: a `postgresql://` (or `postgres://`) URL or a libpq keyword/value
// string (`host=... dbname=...`), else the path of a SQLite file.
struct DbTarget {
    Dialect dialect = Dialect::sqlite;
    std::string location;  // the path, or the connection string with hugetune's timeouts
    std::string display;   // for messages: the path, or the connection string without its
                           // password (and without the timeouts hugetune added)
    // Every text of the value that may be a password (secrets_in): masked in every message
    // about this target, whatever libpq or the file system put in it.
    std::vector<std::string> secrets;
};
// Throws FleetDbError (usage) for a value that looks like a PostgreSQL URL but is not one
// (another case, a missing "//" or ':'), which would otherwise be taken for a SQLite path.
DbTarget parse_db_target(const std::string& value);

// What in `value` may be a password, however it is written: after the user in a URL's or a
// near-URL's user:password@ (up to the last '@' of the authority, and up to the first), a
// `password=` value (URL query or keyword form, quoted or not), each also percent-decoded.
std::vector<std::string> secrets_in(const std::string& value);
// `text` with every occurrence of each of `secrets` as "***", the longest first.
std::string masked(std::string text, std::vector<std::string> secrets);

// A host's newest report of one SKU (a host whose hardware changed has one row per SKU).
struct HostSkuLatest {
    std::string host;
    std::string sku_key;
    std::string generated_at;  // ISO 8601 UTC, as the report has it
};

struct IngestResult {
    std::vector<std::string> added;               // names of reports stored as new runs
    std::vector<std::string> skipped;             // already stored, nothing new
    std::vector<std::string> verification_added;  // stored before, their verification now
    // Not stored: the host already has another report of the same generated_at (one run per
    // host and time; the first stored stands).
    std::vector<std::string> conflicts;
    std::vector<std::string> boots_added;    // boot records stored
    std::vector<std::string> boots_skipped;  // boot records of boots stored before
    // The records of JSON Lines files, counted per file rather than named line by line.
    struct BootLines {
        std::string file;
        int added = 0, stored_before = 0;
    };
    std::vector<BootLines> boot_lines;
};

// A verification's key, as `fleet runs` prints it and `fleet forget --verification` takes it:
// its run's key (the report's content hash), ':', the hash of the block.
std::string verification_key(const std::string& run_key, const std::string& block_hash);

// One stored verification as `fleet runs` lists it, from the table's columns.
struct StoredVerification {
    std::string key;
    std::optional<std::string> boot_id;
    bool verified = false;
    std::optional<double> ratio;
};

// One stored run as `fleet runs` lists it, from the table's columns.
struct StoredRun {
    std::string run_key;  // the report's content hash
    std::string host, sku, generated_at, tool_version;
    std::optional<std::string> kernel_release;
    std::vector<std::string> warning_codes;
    std::vector<StoredVerification> verifications;  // oldest first
};

// Which runs: those that match every selector given (none given: every run).
struct RunSelection {
    std::optional<std::string> host;
    std::optional<std::string> sku;
    std::optional<std::string> before;  // generated before this ISO 8601 time or date
    std::optional<std::string> kernel_release;
    std::optional<std::string> tool_version;
};

// What `fleet forget` removes (or, in a dry run, would remove).
struct ForgetResult {
    std::vector<StoredRun> runs;                    // with their verifications
    std::vector<StoredVerification> verifications;  // every one removed, the runs' included
    std::vector<std::string> hosts;                 // left without runs
    std::vector<std::string> skus;                  // left without runs
    std::vector<std::string> answers_dropped;       // SKUs whose kept answer goes
    int boot_records = 0;                           // the selection's boots (none by tool version)
    std::vector<std::string> plans_ended;           // SKUs whose open canary plan ends with them
};

// A SKU's answer as the database keeps it (docs/fleet.md "Answers kept"): the JSON that
// `fleet recommend --json` prints, its fit (the top-level `recommendation`) as {} in
// `headline` and kept whole in `fit`.
struct KeptAnswer {
    std::string headline;
    std::string fit;
};

class IngestBatch;

class FleetDb {
  public:
    // Connects and applies the migrations the database lacks. `create`: a SQLite file that does
    // not exist is created (ingest); otherwise its absence is refused. Throws FleetDbError.
    static FleetDb open(const DbTarget& target, bool create);
    // For adding boot records only, as a host's `hugetune verify --fleet-db` does: a SQLite file
    // as open() does it; a PostgreSQL database is never migrated (the boot writer role may not),
    // and one older than kBootRecordsVersion is refused, saying who brings it up to date.
    static FleetDb open_for_boot_records(const DbTarget& target);
    FleetDb(FleetDb&&) noexcept;
    FleetDb& operator=(FleetDb&&) noexcept;
    ~FleetDb();

    // Every report in one transaction: all of them are stored, or none.
    IngestResult ingest(const std::vector<IntakeReport>& reports);
    // The same, a report at a time, so a batch is never held whole: the transaction (and
    // SQLite's write lock, PostgreSQL's ingest lock) is taken here and held until the batch is
    // committed or dropped. The batch uses this FleetDb's connection and must not outlive it.
    IngestBatch begin_ingest();

    std::vector<std::string> sku_keys();
    // Every run of the SKU, by host then time, each report with every verification block stored
    // for it. A stored document that is not JSON throws FleetDbError (failure).
    std::vector<model::fleet::FleetRun> runs_of_sku(const std::string& sku_key);
    // The same, each run handed to `take` as it is read, in the same order, so that a SKU of
    // 100,000 hosts is never held here whole: `runs_per_batch` runs at a time, their digests
    // fetched together and read on every CPU.
    static constexpr std::size_t kRunsPerBatch = 4096;
    void runs_of_sku(const std::string& sku_key,
                     const std::function<void(model::fleet::FleetRun&&)>& take,
                     std::size_t runs_per_batch = kRunsPerBatch);
    // The SKU's boots whose kernel logged the allocation line, not in a virtual machine, of
    // `hosts` (model::fleet::boots_of_hosts: each under its host's name, those under an
    // ambiguous name marked), in the order they were stored; given `recorded_since` (ISO 8601
    // UTC), only those recorded then or later (a canary plan's).
    std::vector<model::fleet::SkuBoot> boots_of_sku(
        const std::string& sku_key, const model::fleet::BootHosts& hosts,
        const std::optional<std::string>& recorded_since = {});
    // The SKU's boots of `hosts` tallied by the database (docs/fleet.md "Boots at fleet size"):
    // the same as model::fleet::tally_boots(boots_of_sku(sku_key, hosts)), without holding every
    // boot. `virtual_machines_count`: boots recorded in VMs count too (the answer accepts `vm`).
    model::fleet::BootTally boot_tally(const std::string& sku_key,
                                       const model::fleet::BootHosts& hosts,
                                       bool virtual_machines_count = false);
    // How many boot records the host has.
    int boot_records_of_host(const std::string& host);
    // The SKU's open canary plan, if any; every open plan, by SKU.
    std::optional<model::fleet::CanaryPlan> open_plan(const std::string& sku_key);
    std::vector<model::fleet::CanaryPlan> open_plans();
    // Opens the plan; throws FleetDbError (usage) when the SKU has an open one.
    void start_plan(const model::fleet::CanaryPlan& plan);
    // Ends the SKU's open plan at `at`; false when it had none.
    bool end_plan(const std::string& sku_key, const std::string& at, const std::string& reason);
    // The SKU of the host's latest run.
    std::optional<std::string> sku_of_host(const std::string& host);
    // Each host's newest report per SKU, by host name, then time, then SKU key: a host's last
    // row is the SKU of its latest run (of two SKUs at one time, the larger key).
    std::vector<HostSkuLatest> host_sku_latest();

    // What a SKU's answer is computed from, as 16 hex digits: a digest of its runs (id and
    // content hash, in id order) and of their verifications (id, run and block hash, in id
    // order): a run or a verification added or forgotten gives another digest.
    std::string runs_digest(const std::string& sku_key);
    // Every run the selection matches, by host then time, with its verifications.
    std::vector<StoredRun> list_runs(const RunSelection& selection);
    // Removes the runs the selection matches with their verifications, the hosts and SKUs left
    // without runs, and the kept answers of every SKU touched, in one transaction; `dry_run`:
    // only says what would go. The selection must name at least one selector.
    ForgetResult forget_runs(const RunSelection& selection, bool dry_run);
    // Removes one verification, by its key or "<run key>:<boot id>", and its SKU's kept answer.
    // Throws FleetDbError (usage) when no verification or more than one has that key.
    ForgetResult forget_verification(const std::string& key, bool dry_run);

    // The answer kept for the SKU when it was computed from `inputs`, else nothing; its fit
    // only when `with_fit` (else empty: the fit is nearly all of a kept answer's bytes).
    std::optional<KeptAnswer> kept_answer(const std::string& sku_key, const std::string& inputs,
                                          bool with_fit);
    // Keeps the answer for the SKU, replacing the one before. False when the database does not
    // take it now (read-only; another writer holds SQLite's lock, not waited for): the answer
    // stands, it is computed again next time.
    bool keep_answer(const std::string& sku_key, const std::string& inputs,
                     const KeptAnswer& answer);
    int schema_version();

    // Stores the record (its own transaction); false when its boot is stored already.
    bool store_boot_record(const IntakeBoot& boot);

  private:
    friend class IngestBatch;
    FleetDb(DbTarget target, std::unique_ptr<soci::session> session);
    void migrate();
    DbTarget target_;
    std::unique_ptr<soci::session> sql_;
};

// An ingest in progress: one transaction, its statements prepared once and run for each
// report. Dropped without commit(), nothing of it is stored.
class IngestBatch {
  public:
    IngestBatch(IngestBatch&&) noexcept;
    IngestBatch& operator=(IngestBatch&&) noexcept;
    ~IngestBatch();
    // Stores one report (a new run, a verification added, or nothing when stored before) and
    // files its name in the result. Throws FleetDbError; the batch is then to be dropped.
    void store(IntakeReport report);
    // Stores one boot record, or files it as stored before.
    void store(const IntakeBoot& boot);
    // Throws FleetDbError; nothing is stored then.
    IngestResult commit();

  private:
    friend class FleetDb;
    struct State;
    explicit IngestBatch(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace hugetune::fleet_db
