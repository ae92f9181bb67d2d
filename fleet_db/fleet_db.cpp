// Opening the fleet database: the SQLite file or PostgreSQL connection, the schema's version,
// and its migrations in one transaction (docs/fleet.md "Schema versions").
#include "fleet_db/fleet_db.hpp"

#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>
#include <soci/sqlite3/soci-sqlite3.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "fleet_db/boot_store.hpp"
#include "fleet_db/data_migrations.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "fleet_db/migrations.hpp"
#include "fleet_db/session_guard.hpp"
#include "fleet_db/stored_rows.hpp"

namespace hugetune::fleet_db {
namespace {

using Kind = FleetDbError::Kind;

}  // namespace

FleetDb::FleetDb(DbTarget target, std::unique_ptr<soci::session> session)
    : target_(std::move(target)), sql_(std::move(session)) {}
FleetDb::FleetDb(FleetDb&&) noexcept = default;
FleetDb& FleetDb::operator=(FleetDb&&) noexcept = default;
FleetDb::~FleetDb() = default;

namespace {

std::unique_ptr<soci::session> connect_postgresql(const DbTarget& target) {
    return guarded(target, "connect", [&] {
        auto session = std::make_unique<soci::session>(soci::postgresql, target.location);
        // A statement the server takes longer than this on is cancelled by the server; a
        // caller's own setting (options=-c statement_timeout=...) is kept.
        if (target.location.find("statement_timeout") == std::string::npos)
            *session << "SET statement_timeout = " +
                            std::to_string(kPostgresStatementSeconds * 1000);
        if (target.location.find("lock_timeout") == std::string::npos)
            *session << "SET lock_timeout = " + std::to_string(kPostgresLockSeconds * 1000);
        // hugetune's statements are short: compiling one with JIT costs more than it saves.
        if (target.location.find("jit") == std::string::npos)
            *session << "SET jit = off";
        return session;
    });
}

}  // namespace

FleetDb FleetDb::open_for_boot_records(const DbTarget& target) {
    if (target.dialect == Dialect::sqlite)
        return open(target, true);
    FleetDb db(target, connect_postgresql(target));
    const int version = db.schema_version();
    if (version > latest_schema_version())
        throw FleetDbError(Kind::usage, target.display + ": schema version " +
                                            std::to_string(version) +
                                            " was written by a newer hugetune; use that "
                                            "hugetune, this one leaves the database as it is");
    if (version < kBootRulesVersion)
        throw FleetDbError(Kind::usage,
                           target.display + ": schema version " + std::to_string(version) +
                               " takes no boot records from a host (version " +
                               std::to_string(kBootRulesVersion) +
                               " does): let the database's owner run any 'hugetune fleet' "
                               "command on it once, which brings it up to date");
    return db;
}

bool FleetDb::store_boot_record(const IntakeBoot& boot) {
    return guarded(target_, "store the boot record",
                   [&] { return storage::insert_boot_record(*sql_, target_.dialect, boot); });
}

FleetDb FleetDb::open(const DbTarget& target, bool create) {
    std::unique_ptr<soci::session> sql;
    if (target.dialect == Dialect::sqlite) {
        namespace fs = std::filesystem;
        const fs::path path(target.location);
        std::error_code ec;
        if (!create && !fs::exists(path, ec))
            throw FleetDbError(Kind::usage, target.display +
                                                ": no fleet database there; ingest reports "
                                                "first (hugetune fleet ingest) or give " +
                                                Flag{"db"});
        const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
        if (!fs::is_directory(dir, ec))
            throw FleetDbError(Kind::usage, target.display + ": directory " +
                                                masked(dir.string(), target.secrets) +
                                                " does not exist; create it or give another " +
                                                Flag{"db"});
        if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
            throw FleetDbError(Kind::usage, target.display + ": not a regular file; give " +
                                                Flag{"db"} + " a file path");
        if (target.location.find_first_of(" \"'\\") != std::string::npos)
            throw FleetDbError(Kind::usage, target.display +
                                                ": a database path with spaces, quotes or "
                                                "backslashes is not supported; rename it");
        sql = guarded(target, "open", [&] {
            return std::make_unique<soci::session>(
                soci::sqlite3,
                "db=" + target.location + " timeout=" + std::to_string(kSqliteBusySeconds));
        });
    } else {
        sql = connect_postgresql(target);
    }
    FleetDb db(target, std::move(sql));
    guarded(target, "open", [&] { db.migrate(); });
    return db;
}

int FleetDb::schema_version() {
    return guarded(target_, "read the schema version", [&] {
        int exists = 0, others = 0;
        if (target_.dialect == Dialect::sqlite) {
            *sql_ << "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND"
                     " name = 'schema_info'",
                soci::into(exists);
            *sql_ << "SELECT COUNT(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
                soci::into(others);
        } else {
            *sql_ << "SELECT COUNT(*) FROM information_schema.tables WHERE"
                     " table_schema = current_schema() AND table_name = 'schema_info'",
                soci::into(exists);
            *sql_ << "SELECT COUNT(*) FROM information_schema.tables WHERE"
                     " table_schema = current_schema()",
                soci::into(others);
        }
        if (exists == 0) {
            // Tables of another application: hugetune's must not be added beside them.
            if (others > 0)
                throw FleetDbError(Kind::usage,
                                   target_.display + ": holds other tables (" +
                                       std::to_string(others) +
                                       ") but no hugetune schema (no schema_info table): "
                                       "another application's database; point " +
                                       Flag{"db"} + " at a hugetune fleet database or a new one");
            return 0;
        }
        // As text: a damaged row may hold anything (a negative number, one beyond 64 bits,
        // a word), and no such value may pick a migration.
        std::vector<std::string> rows(4);
        std::vector<soci::indicator> inds(4);
        *sql_ << "SELECT CAST(version AS TEXT) FROM schema_info", soci::into(rows, inds);
        const Message fix = "; the database is damaged: restore it from a backup, or point " +
                            Flag{"db"} + " at another";
        if (rows.size() != 1 || inds[0] != soci::i_ok)
            throw FleetDbError(Kind::usage, target_.display + ": schema_info holds " +
                                                std::to_string(rows.size()) +
                                                " rows, not one schema version" + fix);
        const std::string& text = rows[0];
        const bool digits = !text.empty() && text.size() <= 9 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        const int version = digits ? std::stoi(text) : 0;
        if (version < 1)
            throw FleetDbError(Kind::usage,
                               target_.display + ": schema_info.version is '" + text.substr(0, 40) +
                                   "', not a schema version any hugetune writes" + fix);
        return version;
    });
}

void FleetDb::migrate() {
    const int latest = latest_schema_version();
    auto refuse_newer = [&](int version) {
        if (version > latest)
            throw FleetDbError(Kind::usage,
                               target_.display + ": schema version " + std::to_string(version) +
                                   " was written by a newer hugetune (this one knows up to " +
                                   std::to_string(latest) +
                                   "); use that hugetune, this one leaves the database as it is");
    };
    int version = schema_version();
    refuse_newer(version);
    if (version == latest)
        return;  // nothing to write: a read-only database stays readable
    Transaction t(*sql_, target_.dialect);
    if (target_.dialect == Dialect::postgresql) {
        int one = 0;  // two first opens at once: the second waits, then finds the schema made
        *sql_ << "SELECT 1 FROM (SELECT pg_advisory_xact_lock(4711)) AS l", soci::into(one);
        // A statement that makes what is there already (IF NOT EXISTS) says so as a notice,
        // which the server sends and libpq prints on stderr: not news to whoever opens it.
        *sql_ << "SET LOCAL client_min_messages = warning";
    }
    version = schema_version();
    refuse_newer(version);
    if (version == 0)
        *sql_ << "CREATE TABLE schema_info (version INTEGER NOT NULL)";
    // The digests are written once, after the last migration that raises their version: each
    // writes the digest of this hugetune, and no migration reads them.
    bool digests = false;
    for (int v = version + 1; v <= latest; ++v) {
        for (const auto& statement : migration_statements(v, target_.dialect))
            *sql_ << statement;
        if (v == kVerificationsByBlockVersion)
            hash_carried_verifications(*sql_);
        if (v == kCpuIdentityKeyVersion)
            rekey_by_reader(*sql_);
        if (v == kRunDigestsVersion || v == kJudgedWarningsVersion || v == kHardwareIdVersion)
            digests = true;
        if (v == kLz4Version && target_.dialect == Dialect::postgresql)
            compress_with_lz4(*sql_, kLz4Columns);
        if (v == kAnswerFitVersion && target_.dialect == Dialect::postgresql)
            compress_with_lz4(*sql_, kAnswerFitColumn);
    }
    if (digests)
        write_run_digests(*sql_);
    *sql_ << "DELETE FROM schema_info";
    *sql_ << "INSERT INTO schema_info (version) VALUES (:v)", soci::use(latest);
    t.commit();
}

}  // namespace hugetune::fleet_db
