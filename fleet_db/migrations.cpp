#include "fleet_db/migrations.hpp"

#include <cassert>

#include "fleet_db/report_intake.hpp"
#include "model/alloc_threads.hpp"
#include "model/documents/boot_record.hpp"
#include "model/documents/verification.hpp"
#include "model/fleet/host_name.hpp"

namespace hugetune::fleet_db {
namespace {

// {id} is each table's key: SQLite's rowid alias, PostgreSQL's identity column.
const std::vector<std::vector<std::string>> kMigrations = {
    {
        "CREATE TABLE skus ({id}, sku_key TEXT NOT NULL UNIQUE, microarch TEXT NOT NULL,"
        " nodes INTEGER NOT NULL, hardware_threads_per_node INTEGER NOT NULL,"
        " memory_per_node_gib BIGINT NOT NULL, page_size_kb BIGINT NOT NULL)",
        "CREATE TABLE hosts ({id}, hostname TEXT NOT NULL UNIQUE)",
        // One row per report; `report` is the whole document without its verification block
        // (every sample, the model, the recommendation, the warnings). A report is the same run
        // when host, time and the hash of that document agree.
        "CREATE TABLE runs ({id}, host_id BIGINT NOT NULL REFERENCES hosts(id),"
        " sku_id BIGINT NOT NULL REFERENCES skus(id), generated_at TEXT NOT NULL,"
        " content_hash TEXT NOT NULL, tool_version TEXT NOT NULL, kernel_release TEXT,"
        " decision TEXT NOT NULL, hugepage_alloc_threads INTEGER NOT NULL,"
        " predicted_seconds DOUBLE PRECISION NOT NULL, confidence DOUBLE PRECISION,"
        " warnings TEXT NOT NULL, report TEXT NOT NULL,"
        " UNIQUE (host_id, generated_at, content_hash))",
        "CREATE INDEX runs_by_sku ON runs (sku_id)",
        // The block `hugetune verify --report` adds after the reboot, at most one per run.
        "CREATE TABLE verifications (run_id BIGINT PRIMARY KEY REFERENCES runs(id),"
        " verified INTEGER NOT NULL, measured_ms DOUBLE PRECISION, threads INTEGER,"
        " predicted_ms DOUBLE PRECISION, ratio DOUBLE PRECISION, kernel_release TEXT,"
        " boot_id TEXT, block TEXT NOT NULL)",
    },
    {
        // Each SKU's answer as the fleet commands computed it (the JSON of `fleet recommend
        // --json`), and what it was computed from: the tool, its options and the SKU's runs
        // (docs/fleet.md "Answers kept"). Another tool or another run set computes it anew.
        "CREATE TABLE sku_answers (sku_id BIGINT PRIMARY KEY REFERENCES skus(id),"
        " inputs TEXT NOT NULL, answer TEXT NOT NULL)",
    },
    {
        // Any number of verifications per run, one per distinct block: the same report verified
        // at another boot is kept beside the first. `block_hash` (content_hash of `block`)
        // tells blocks apart; the rows of version 2 come over with a placeholder that
        // kCarriedVerificationPrefix marks, replaced by their hash in the same transaction
        // (data_migrations.cpp), as SQL has no FNV-1a.
        "CREATE TABLE verifications_3 ({id}, run_id BIGINT NOT NULL REFERENCES runs(id),"
        " block_hash TEXT NOT NULL, verified INTEGER NOT NULL, measured_ms DOUBLE PRECISION,"
        " threads INTEGER, predicted_ms DOUBLE PRECISION, ratio DOUBLE PRECISION,"
        " kernel_release TEXT, boot_id TEXT, block TEXT NOT NULL, UNIQUE (run_id, block_hash))",
        "INSERT INTO verifications_3 (run_id, block_hash, verified, measured_ms, threads,"
        " predicted_ms, ratio, kernel_release, boot_id, block) SELECT run_id, '{carried}' ||"
        " CAST(run_id AS TEXT), verified, measured_ms, threads, predicted_ms, ratio,"
        " kernel_release, boot_id, block FROM verifications ORDER BY run_id",
        "DROP TABLE verifications",
        "ALTER TABLE verifications_3 RENAME TO verifications",
    },
    {
        // init_on_alloc joins the SKU key (docs/fleet.md): each SKU row says it (null: the
        // reports do not), and the runs stored under a key without it move to the key their
        // report gives, in the same transaction (data_migrations.cpp: SQL cannot read the reports).
        "ALTER TABLE skus ADD COLUMN init_on_alloc INTEGER",
    },
    {
        // No statement: a CPU the table did not name no longer keys `unknown` but its identity
        // (docs/fleet.md "The SKU key"), and each run moves to the key its report's reader now
        // gives, in the same transaction (data_migrations.cpp: SQL cannot read the reports).
    },
    {
        // Host names as DNS compares them (docs/fleet.md "The host-name rule"): lower case,
        // without the trailing dot. Rows that differ only so become the row of least id, their
        // runs moved to it; no two runs can collide on its unique key, as their documents name
        // the host differently. The kept answers counted them apart and go.
        "UPDATE runs SET host_id = (SELECT MIN(o.id) FROM hosts o, hosts h WHERE h.id ="
        " runs.host_id AND LOWER(RTRIM(o.hostname, '.')) = LOWER(RTRIM(h.hostname, '.')))"
        " WHERE host_id NOT IN (SELECT MIN(id) FROM hosts GROUP BY LOWER(RTRIM(hostname, '.')))",
        "DELETE FROM hosts WHERE id NOT IN (SELECT host_id FROM runs)",
        "UPDATE hosts SET hostname = LOWER(RTRIM(hostname, '.'))",
        "DELETE FROM sku_answers",
    },
    {
        // Each run's digest (model/fleet/run_digest.hpp): the facts of its report the SKU's
        // answer reads, so an answer reads numbers, not report texts; the report stays whole.
        // Written for every stored run in the same transaction (data_migrations.cpp).
        // A table of its own: SQLite reads a row's columns in order, so a digest stored after
        // the report would be reached through the report's overflow pages.
        "CREATE TABLE run_digests (run_id BIGINT PRIMARY KEY REFERENCES runs(id),"
        " digest TEXT NOT NULL)",
    },
    {
        // No statement: on PostgreSQL, the large texts (reports, digests, kept answers) are
        // compressed with lz4, the faster, where the server has it, not pglz (data_migrations.cpp,
        // docs/fleet.md "Schema and migrations").
        // SQLite does not compress.
    },
    {
        // One row per boot a host recorded (model/documents/boot_record.hpp, docs/fleet.md
        // "Boots"): the record as its one writer writes it and the columns the boots' statistics
        // read. Hosts and SKUs by name, not by key: a role that may only add boot records
        // (docs/fleet.md "The boot writer role") needs no other table. `boot_key` is the boot:
        // its host and boot id, or, for a record of a saved log (no boot id), the hash of the
        // record without its time; a boot recorded twice is stored once.
        "CREATE TABLE boot_records ({id}, boot_key TEXT NOT NULL UNIQUE, host TEXT, sku_key TEXT,"
        " boot_id TEXT, kernel_release TEXT, pool_pages BIGINT, page_size_kb BIGINT,"
        " threads INTEGER, milliseconds BIGINT, line_present INTEGER NOT NULL, absent_code TEXT,"
        " init_on_alloc INTEGER, hvo INTEGER, expected_threads INTEGER,"
        " recorded_at TEXT NOT NULL, record TEXT NOT NULL)",
        "CREATE INDEX boot_records_by_sku ON boot_records (sku_key, threads)",
    },
    {
        // Canary plans (docs/fleet.md "Canary plans"): per SKU, the values its arms boot, the
        // share of hosts, the answer and the time it started; ended_at once stopped. At most
        // one plan of a SKU is open (ended_at null), which fleet_queries.cpp keeps so.
        "CREATE TABLE canary_plans ({id}, sku_key TEXT NOT NULL, arm_values TEXT NOT NULL,"
        " share DOUBLE PRECISION NOT NULL, answer_threads INTEGER NOT NULL,"
        " started_at TEXT NOT NULL, ended_at TEXT, end_reason TEXT)",
    },
    {
        // A SKU's boots tallied from one index (docs/fleet.md "Boots at fleet size"): every
        // column the tally reads, in the order it groups them, hosts by their bytes, and the id
        // that the count and newest id of a kept answer's inputs read. PostgreSQL reads the
        // index alone where VACUUM has marked the table's pages visible; SQLite streams the rows
        // in order without sorting them. It replaces version 9's index, its prefix.
        "DROP INDEX boot_records_by_sku",
        "CREATE INDEX boot_records_tally ON boot_records (sku_key, threads, host{bytes},"
        " kernel_release, hvo, milliseconds, pool_pages, line_present, id)",
    },
    {
        // A SKU's runs listed from one index (docs/fleet.md "Run digests"): the id, host, time
        // and content hash that an answer's reading of the runs and the digest of its inputs
        // take, in id order, so neither reads a run's row, whose report fills a page of its own
        // in SQLite. It replaces version 1's index, its prefix.
        "DROP INDEX runs_by_sku",
        "CREATE INDEX runs_by_sku ON runs (sku_id, id, host_id, generated_at, content_hash)",
    },
    {
        // The boot records' rules in the database (boot_rules_migration below).
    },
    {
        // The report's host and clock rules for boot records, and their virtualization
        // (boot_rules_migration below).
    },
    {
        // A run's warning codes are those its report's facts give, not its list (docs/fleet.md
        // "How a SKU's answer is made"): every digest is written again (data_migrations.cpp), and
        // the answers kept were judged by the lists.
        "DELETE FROM sku_answers",
    },
    {
        // Each run's hardware identity joins its digest (docs/fleet.md "The host-name rule"),
        // where a SKU's answer reads it: every digest is written again (data_migrations.cpp), and
        // the answers kept counted a host name's machines as one host.
        "DELETE FROM sku_answers",
    },
    {
        // A kept answer's fit (its `recommendation`, nearly all of its text) in a column of its
        // own, so a command that prints the headline reads only that (docs/fleet.md "Answers
        // kept"); the answers kept before held both in one text.
        "DELETE FROM sku_answers",
        "ALTER TABLE sku_answers ADD COLUMN fit TEXT NOT NULL DEFAULT '{}'",
    },
    {
        // Each boot says whether a report of its SKU names its host, kept so by the database
        // itself (boot_reported_migration below).
    },
};

std::string with_dialect(std::string sql, Dialect dialect);

// `column` matches a regular expression on PostgreSQL, or SQLite's GLOB conditions.
std::string shaped(Dialect d, const std::string& column, const std::string& regex,
                   const std::vector<std::string>& globs) {
    std::string out = "(" + column + " IS NULL OR (";
    if (d == Dialect::postgresql)
        return out + column + " ~ '" + regex + "'))";
    for (std::size_t i = 0; i < globs.size(); ++i)
        out += (i == 0 ? "" : " AND ") + globs[i];
    return out + "))";
}

std::string glob_repeat(const std::string& set, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
        out += set;
    return out;
}

// `expression`, a host name the host-name rule takes, as it compares it
// (model::fleet::canonical_host_name): lower case, without its trailing dot.
std::string canonical_host_sql(Dialect d, const std::string& expression) {
    if (d == Dialect::postgresql)
        return "lower(regexp_replace(" + expression + ", '[.]$', ''))";
    return "lower(CASE WHEN " + expression + " GLOB '*.' THEN substr(" + expression +
           ", 1, length(" + expression + ") - 1) ELSE " + expression + " END)";
}

// The clock as the text of recorded_at, a tolerance ahead (PostgreSQL; SQLite allows no clock
// in a CHECK, so its triggers compare with its own).
std::string clock_ahead_sql(Dialect d) {
    const std::string ahead = std::to_string(kMaxClockSkewSeconds);
    if (d == Dialect::postgresql)
        return "to_char((now() AT TIME ZONE 'UTC') + interval '" + ahead +
               " seconds', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')";
    return "strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+" + ahead + " seconds')";
}

// Migration 14's rules: the report's clock rule (not before any hugetune made a record, at most
// kMaxClockSkewSeconds ahead of the database's clock: PostgreSQL's CHECK, SQLite's triggers),
// the virtualization's shape and type, and a boot's key made of its canonical host and boot id.
void v14_checks(Dialect d, std::vector<std::string>& c) {
    const bool pg = d == Dialect::postgresql;
    c.push_back("recorded_at >= '" + std::string(model::kEarliestBootRecordTime) + "'");
    if (pg)
        c.push_back("recorded_at <= " + clock_ahead_sql(d));
    const std::string most = std::to_string(model::kMaxVirtualizationChars);
    c.push_back(shaped(
        d, "virtualization", "^[!-~]([ -~]*[!-~])?$",
        {"length(virtualization) BETWEEN 1 AND " + most, "virtualization NOT GLOB '*[^ -~]*'",
         "virtualization NOT GLOB ' *'", "virtualization NOT GLOB '* '"}));
    c.push_back("(virtualization IS NULL OR length(virtualization) <= " + most + ")");
    c.push_back(pg ? "(virtualization IS NULL OR jsonb_typeof(CAST(record AS jsonb) ->"
                     " 'virtualization') = 'string')"
                   : "(virtualization IS NULL OR json_type(record, '$.virtualization') = 'text')");
    c.push_back(
        "((boot_id IS NULL AND boot_key LIKE 'record %') OR (boot_id IS NOT NULL AND boot_key ="
        " 'boot ' || COALESCE(host, '') || ' ' || boot_id))");
}

// Every rule the boot record's reader applies to a column it is stored in
// (model/documents/boot_record.cpp), as CHECK constraints: a row another writer makes (the boot
// writer role, SQL by hand) is held to what `fleet ingest` accepts. The shapes are the
// reader's; on SQLite a host's labels are not held to 63 characters, which GLOB cannot say.
// From migration 14 (`version`), the clock's and virtualization's rules too, and the record's
// host compared as the host-name rule compares names.
std::string boot_checks(Dialect d, int version) {
    const bool pg = d == Dialect::postgresql;
    std::vector<std::string> c;
    const auto threads = kMaxAllocThreads;
    const std::string most = std::to_string(threads);
    c.push_back("(threads IS NULL OR threads BETWEEN 1 AND " + most + ")");
    c.push_back("(expected_threads IS NULL OR expected_threads BETWEEN 1 AND " + most + ")");
    c.push_back("(milliseconds IS NULL OR milliseconds BETWEEN 0 AND " +
                std::to_string(model::kMaxBootAllocationMs) + ")");
    c.push_back("(pool_pages IS NULL OR (pool_pages >= 0 AND page_size_kb >= 4))");
    c.push_back("line_present IN (0, 1)");
    c.push_back("(init_on_alloc IS NULL OR init_on_alloc IN (0, 1))");
    c.push_back("(hvo IS NULL OR hvo IN (0, 1))");
    // A present line comes with its numbers and pool; an absent one with its reason alone.
    c.push_back(
        "(line_present = 0 OR (threads IS NOT NULL AND milliseconds IS NOT NULL AND"
        " pool_pages IS NOT NULL AND absent_code IS NULL))");
    c.push_back(
        "(line_present = 1 OR (absent_code IS NOT NULL AND threads IS NULL AND"
        " milliseconds IS NULL AND pool_pages IS NULL))");
    const std::string digit = "[0-9]";
    c.push_back(shaped(d, "recorded_at",
                       "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}[:][0-9]{2}[:][0-9]{2}Z$",
                       {"recorded_at GLOB '" + glob_repeat(digit, 4) + "-" + glob_repeat(digit, 2) +
                        "-" + glob_repeat(digit, 2) + "T" + glob_repeat(digit, 2) + ":" +
                        glob_repeat(digit, 2) + ":" + glob_repeat(digit, 2) + "Z'"}));
    c.push_back("recorded_at IS NOT NULL");
    const std::string hex = "[0-9a-f]";
    c.push_back(shaped(
        d, "boot_id", "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
        {"boot_id GLOB '" + glob_repeat(hex, 8) + "-" + glob_repeat(hex, 4) + "-" +
         glob_repeat(hex, 4) + "-" + glob_repeat(hex, 4) + "-" + glob_repeat(hex, 12) + "'"}));
    const std::string release_chars = std::to_string(model::kMaxKernelReleaseChars);
    c.push_back(shaped(d, "kernel_release", "^[!-~]{1," + release_chars + "}$",
                       {"length(kernel_release) BETWEEN 1 AND " + release_chars,
                        "kernel_release NOT GLOB '*[^!-~]*'"}));
    // The host-name rule (model/fleet/host_name.hpp), names as stored: lower case, no
    // trailing dot.
    const std::string label = "[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?";
    c.push_back(shaped(d, "host", "^" + label + "([.]" + label + ")*$",
                       {"host NOT GLOB '*[^a-z0-9._-]*'", "host NOT GLOB '.*'",
                        "host NOT GLOB '*.'", "host NOT GLOB '*..*'", "host NOT GLOB '-*'",
                        "host NOT GLOB '*-'", "host NOT GLOB '*.-*'", "host NOT GLOB '*-.*'"}));
    c.push_back("(host IS NULL OR length(host) BETWEEN 1 AND " +
                std::to_string(model::fleet::kMaxHostNameChars) + ")");
    const bool v14 = version >= kBootVirtualizationVersion;
    if (v14)
        v14_checks(d, c);
    // The record is a boot record, and says what its columns say.
    if (pg) {
        c.push_back("CAST(record AS jsonb) ->> 'kind' = 'hugetune-boot-record' AND " +
                    (v14 ? canonical_host_sql(d, "CAST(record AS jsonb) ->> 'host'")
                         : std::string("(CAST(record AS jsonb) ->> 'host')")) +
                    " IS NOT DISTINCT FROM host AND"
                    " (CAST(record AS jsonb) ->> 'boot_id') IS NOT DISTINCT FROM boot_id AND"
                    " (CAST(record AS jsonb) ->> 'kernel_release') IS NOT DISTINCT FROM"
                    " kernel_release AND (CAST(record AS jsonb) ->> 'recorded_at') IS NOT"
                    " DISTINCT FROM recorded_at AND (CAST(record AS jsonb) ->> 'threads') IS NOT"
                    " DISTINCT FROM CAST(threads AS TEXT) AND (CAST(record AS jsonb) ->>"
                    " 'milliseconds') IS NOT DISTINCT FROM CAST(milliseconds AS TEXT) AND"
                    " (CAST(record AS jsonb) -> 'pool' ->> 'pages') IS NOT DISTINCT FROM"
                    " CAST(pool_pages AS TEXT)");
    } else {
        c.push_back(
            "CASE WHEN json_valid(record) THEN json_extract(record, '$.kind') ="
            " 'hugetune-boot-record' AND " +
            (v14 ? canonical_host_sql(d, "json_extract(record, '$.host')")
                 : std::string("json_extract(record, '$.host')")) +
            " IS host AND"
            " json_extract(record, '$.boot_id') IS boot_id AND json_extract(record,"
            " '$.kernel_release') IS kernel_release AND json_extract(record,"
            " '$.recorded_at') IS recorded_at AND json_extract(record, '$.threads') IS"
            " threads AND json_extract(record, '$.milliseconds') IS milliseconds AND"
            " json_extract(record, '$.pool.pages') IS pool_pages ELSE 0 END");
    }
    std::string out;
    for (const auto& check : c)
        out += ", CHECK (" + check + ")";
    return out;
}

// Migrations 13 and 14 (`version`): boot_records made again with boot_checks, its ids drawn by
// the database alone (PostgreSQL's GENERATED ALWAYS: no writer sets one, so none can fill the
// ids ahead of the boots to come), the rows that meet the rules carried over in their order and
// the others kept in boot_records_refused; on PostgreSQL, the one function the boot writer role
// adds records through (fleet_db/sql/boot-writer-role.sql). From 14, `virtualization` is
// derived from the record, and the function stores the host in its canonical form.
std::vector<std::string> boot_rules_migration(Dialect d, int version) {
    const bool pg = d == Dialect::postgresql;
    const bool v14 = version >= kBootVirtualizationVersion;
    const std::string id =
        pg ? "id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "id INTEGER PRIMARY KEY";
    const std::string made = "boot_records_" + std::to_string(version);
    std::string derived;
    if (v14)
        derived = std::string(", virtualization TEXT GENERATED ALWAYS AS (") +
                  (pg ? "CAST(record AS jsonb) ->> 'virtualization'"
                      : "json_extract(record, '$.virtualization')") +
                  ") STORED";
    std::vector<std::string> out;
    out.push_back("CREATE TABLE " + made + " (" + id +
                  ", boot_key TEXT NOT NULL UNIQUE, host TEXT, sku_key TEXT, boot_id TEXT,"
                  " kernel_release TEXT, pool_pages BIGINT, page_size_kb BIGINT, threads INTEGER,"
                  " milliseconds BIGINT, line_present INTEGER NOT NULL, absent_code TEXT,"
                  " init_on_alloc INTEGER, hvo INTEGER, expected_threads INTEGER,"
                  " recorded_at TEXT NOT NULL, record TEXT NOT NULL" +
                  derived + boot_checks(d, version) + ")");
    // IF NOT EXISTS and OR REPLACE below: a database taken back to an older version by hand
    // (the tests do) keeps them.
    out.push_back(
        std::string("CREATE TABLE IF NOT EXISTS boot_records_refused (boot_key TEXT"
                    " NOT NULL, record TEXT NOT NULL)"));
    const std::string columns = kBootColumns;
    if (pg) {
        // All rows at once; where one breaks a rule (a CHECK, or a record that is not JSON),
        // row by row, each in a savepoint of its own.
        std::string values;
        for (std::size_t at = 0; at < columns.size();) {
            const std::size_t end = std::min(columns.find(',', at), columns.size());
            std::string name = columns.substr(at, end - at);
            name.erase(0, name.find_first_not_of(' '));
            values += (values.empty() ? "r." : ", r.") + name;
            at = end + 1;
        }
        out.push_back("DO $do$ DECLARE r RECORD; BEGIN BEGIN INSERT INTO " + made + " (" + columns +
                      ") SELECT " + columns +
                      " FROM boot_records ORDER BY id; EXCEPTION WHEN OTHERS THEN FOR r IN"
                      " SELECT * FROM boot_records ORDER BY id LOOP BEGIN INSERT INTO " +
                      made + " (" + columns + ") VALUES (" + values +
                      "); EXCEPTION WHEN OTHERS THEN NULL; END; END LOOP; END; END $do$");
    } else {
        // A row ahead of the clock is left to boot_records_refused, as the triggers below
        // would refuse it, not the whole migration.
        out.push_back("INSERT OR IGNORE INTO " + made + " (" + columns + ") SELECT " + columns +
                      " FROM boot_records" +
                      (v14 ? " WHERE recorded_at <= " + clock_ahead_sql(d) : std::string()) +
                      " ORDER BY id");
    }
    out.push_back(
        "INSERT INTO boot_records_refused (boot_key, record) SELECT boot_key, record"
        " FROM boot_records o WHERE NOT EXISTS (SELECT 1 FROM " +
        made + " n WHERE n.boot_key = o.boot_key) ORDER BY id");
    out.push_back("DROP INDEX boot_records_tally");
    out.push_back("DROP TABLE boot_records");
    out.push_back("ALTER TABLE " + made + " RENAME TO boot_records");
    out.push_back(with_dialect(
        std::string("CREATE INDEX boot_records_tally ON boot_records (sku_key, threads,"
                    " host{bytes}, kernel_release, hvo, milliseconds, pool_pages,"
                    " line_present, ") +
            (v14 ? "virtualization, " : "") + "id)",
        d));
    // The answers kept were judged by the rules before these.
    out.push_back("DELETE FROM sku_answers");
    if (v14 && !pg) {
        // SQLite allows no clock in a CHECK: the same rule as PostgreSQL's, as triggers.
        for (const char* when : {"INSERT", "UPDATE OF recorded_at"})
            out.push_back(std::string("CREATE TRIGGER boot_records_clock_") +
                          (when[0] == 'I' ? "insert" : "update") + " BEFORE " + when +
                          " ON boot_records WHEN NEW.recorded_at > " + clock_ahead_sql(d) +
                          " BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: recorded_at"
                          " lies more than " +
                          std::to_string(kMaxClockSkewSeconds) +
                          " seconds ahead of the clock'); END");
    }
    if (pg) {
        // Runs as its owner (SECURITY DEFINER) with the table's schema and nothing a caller
        // could put before it (pg_temp last); the conflict target is the boot's own key, so a
        // record counts as stored before only where a row of that key is. From 14 the host is
        // stored as the host-name rule compares it, and the key made of it: "WEB-17." and
        // "web-17" are one host, and one boot of it is stored once. Replaced, not dropped: the
        // role keeps its right to it.
        std::string row = "$1, $2";
        if (v14) {
            const std::string host = canonical_host_sql(d, "$2");
            row = "CASE WHEN $4 IS NULL THEN $1 ELSE 'boot ' || COALESCE(" + host +
                  ", '') || ' ' || $4 END, " + host;
        }
        out.push_back(
            "DO $do$ BEGIN EXECUTE format($f$CREATE OR REPLACE FUNCTION %I." +
            std::string(kAddBootRecordFunction) + "(" + kAddBootRecordArguments +
            ") RETURNS INTEGER LANGUAGE sql SECURITY DEFINER SET search_path = %I, pg_temp AS"
            " $body$ INSERT INTO %I.boot_records (" +
            columns + ") VALUES (" + row +
            ", $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
            " ON CONFLICT (boot_key) DO NOTHING RETURNING 1 $body$$f$, current_schema(),"
            " current_schema(), current_schema()); END $do$");
        out.push_back("REVOKE ALL ON FUNCTION " + std::string(kAddBootRecordFunction) + "(" +
                      kAddBootRecordArguments + ") FROM PUBLIC");
    }
    return out;
}

}  // namespace

// The host's runs are searched by host, and their SKU compared: a host has few runs, a SKU many.
// The unary plus keeps SQLite, which has no statistics, from searching them by SKU instead
// (runs_by_sku holds the host too), which made each boot read all of its SKU's runs.
std::string boot_reported_sql(const std::string& host, const std::string& sku,
                              const std::string& schema, bool as_number) {
    const std::string exists = "EXISTS (SELECT 1 FROM " + schema + "hosts h JOIN " + schema +
                               "runs r ON r.host_id = h.id WHERE h.hostname = " + host +
                               " AND +r.sku_id = (SELECT s.id FROM " + schema +
                               "skus s WHERE s.sku_key = " + sku + "))";
    return as_number ? "CASE WHEN " + exists + " THEN 1 ELSE 0 END" : exists;
}

namespace {

// Migration 18 (docs/fleet.md "Boots at fleet size"): boot_records.reported, 1 where a run of
// the boot's SKU names its host (a host the SKU's reports name, the only boots its answer
// counts), kept so by triggers on every table it depends on, whoever writes them: the boots'
// own (an insert, or an update of the host, the SKU or the mark itself), the runs' (added,
// forgotten, moved to another host or SKU), the hosts' names and the SKUs' keys. A tally then
// reads the SKU's counted boots from one index, without looking up its reporting hosts. On
// PostgreSQL a boot's mark is set before the row is written; SQLite's triggers cannot change the
// row being written, so they put it right just after. Either way a mark that is wrong is flipped,
// and one that is right is not written again.
std::vector<std::string> boot_reported_migration(Dialect d) {
    const bool pg = d == Dialect::postgresql;
    // Inside PostgreSQL's trigger functions every table is named with the schema the migration
    // ran in (format's %1$I), so a caller's search_path cannot put another table first.
    const std::string in = pg ? "%1$I." : "";
    const auto named = [&](const std::string& host, const std::string& sku, bool qualify) {
        return boot_reported_sql(host, sku, qualify ? in : "", false);
    };
    const auto reported = [&](const std::string& host, const std::string& sku, bool qualify) {
        return boot_reported_sql(host, sku, qualify ? in : "");
    };
    // The mark of the boots `where` selects flipped where it is wrong.
    const auto put_right = [&](const std::string& where) {
        return "UPDATE " + in + "boot_records SET reported = 1 - reported WHERE " + where +
               " AND reported <> " + reported("boot_records.host", "boot_records.sku_key", true);
    };
    // The boots of a run's host and SKU.
    const auto of_run = [&](const std::string& row) {
        return "host = (SELECT hostname FROM " + in + "hosts WHERE id = " + row +
               ".host_id) AND sku_key = (SELECT sku_key FROM " + in + "skus WHERE id = " + row +
               ".sku_id)";
    };
    const std::string of_hosts = "host IN (OLD.hostname, NEW.hostname)";
    const std::string of_skus = "sku_key IN (OLD.sku_key, NEW.sku_key)";
    std::vector<std::string> out;
    out.push_back(
        "ALTER TABLE boot_records ADD COLUMN reported INTEGER NOT NULL DEFAULT 0"
        " CHECK (reported IN (0, 1))");
    // Each boot looks its host and SKU up by their unique names, and the host's runs by host.
    out.push_back("UPDATE boot_records SET reported = 1 WHERE " +
                  named("boot_records.host", "boot_records.sku_key", false));
    // The tally's index with the mark after the SKU: a SKU's counted boots are one range of it,
    // in the order the tally groups them.
    out.push_back("DROP INDEX IF EXISTS boot_records_tally");
    out.push_back(
        with_dialect("CREATE INDEX boot_records_tally ON boot_records (sku_key, reported, threads,"
                     " host{bytes}, kernel_release, hvo, milliseconds, pool_pages, line_present,"
                     " virtualization, id)",
                     d));
    // What a change of a run or a host's name finds its boots by.
    out.push_back(
        "CREATE INDEX IF NOT EXISTS boot_records_by_host ON boot_records (host, sku_key)");
    // Triggers of before are replaced: a database taken back to an older version by hand (the
    // tests do) keeps them.
    if (!pg) {
        struct Trigger {
            const char* name;
            const char* table;
            const char* when;
            std::string condition;  // its WHEN, if any
            std::vector<std::string> body;
        };
        // A boot's own row: the trigger fires only where its mark is wrong (hugetune's own
        // insert sets it right, boot_store.cpp), and flips it.
        const std::string wrong_mark =
            "NEW.reported <> " + reported("NEW.host", "NEW.sku_key", false);
        const std::string flip =
            "UPDATE boot_records SET reported = 1 - reported WHERE id = NEW.id";
        const std::vector<Trigger> triggers = {
            {"boot_records_reported_insert", "boot_records", "AFTER INSERT", wrong_mark, {flip}},
            {"boot_records_reported_update",
             "boot_records",
             "AFTER UPDATE OF host, sku_key, reported",
             wrong_mark,
             {flip}},
            {"runs_report_boots_insert", "runs", "AFTER INSERT", "", {put_right(of_run("NEW"))}},
            {"runs_report_boots_delete", "runs", "AFTER DELETE", "", {put_right(of_run("OLD"))}},
            {"runs_report_boots_update",
             "runs",
             "AFTER UPDATE OF host_id, sku_id",
             "",
             {put_right(of_run("OLD")), put_right(of_run("NEW"))}},
            {"hosts_report_boots", "hosts", "AFTER UPDATE OF hostname", "", {put_right(of_hosts)}},
            {"skus_report_boots", "skus", "AFTER UPDATE OF sku_key", "", {put_right(of_skus)}},
        };
        for (const auto& t : triggers) {
            std::string body;
            for (const auto& statement : t.body)
                body += " " + statement + ";";
            out.push_back(std::string("DROP TRIGGER IF EXISTS ") + t.name);
            out.push_back(std::string("CREATE TRIGGER ") + t.name + " " + t.when + " ON " +
                          t.table + (t.condition.empty() ? "" : " WHEN " + t.condition) + " BEGIN" +
                          body + " END");
        }
        return out;
    }
    // PostgreSQL: one function per table, made in the migration's schema.
    const auto function = [&](const std::string& name, const std::string& body) {
        return "DO $do$ BEGIN EXECUTE format($f$CREATE OR REPLACE FUNCTION %1$I." + name +
               "() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN " + body +
               " END $body$$f$, current_schema()); END $do$";
    };
    const auto trigger = [&](const std::string& name, const std::string& table,
                             const std::string& when, const std::string& fn) {
        out.push_back("DROP TRIGGER IF EXISTS " + name + " ON " + table);
        out.push_back("CREATE TRIGGER " + name + " " + when + " ON " + table +
                      " FOR EACH ROW EXECUTE FUNCTION " + fn + "()");
    };
    out.push_back(
        function("hugetune_boot_reported",
                 "NEW.reported := " + reported("NEW.host", "NEW.sku_key", true) + "; RETURN NEW;"));
    trigger("boot_records_reported", "boot_records",
            "BEFORE INSERT OR UPDATE OF host, sku_key, reported", "hugetune_boot_reported");
    out.push_back(function("hugetune_run_reports_boots",
                           "IF TG_OP <> 'INSERT' THEN " + put_right(of_run("OLD")) +
                               "; END IF; IF TG_OP <> 'DELETE' THEN " + put_right(of_run("NEW")) +
                               "; END IF; RETURN NULL;"));
    trigger("runs_report_boots", "runs", "AFTER INSERT OR DELETE OR UPDATE OF host_id, sku_id",
            "hugetune_run_reports_boots");
    out.push_back(function("hugetune_host_reports_boots", put_right(of_hosts) + "; RETURN NULL;"));
    trigger("hosts_report_boots", "hosts", "AFTER UPDATE OF hostname",
            "hugetune_host_reports_boots");
    out.push_back(function("hugetune_sku_reports_boots", put_right(of_skus) + "; RETURN NULL;"));
    trigger("skus_report_boots", "skus", "AFTER UPDATE OF sku_key", "hugetune_sku_reports_boots");
    return out;
}

std::string with_dialect(std::string sql, Dialect dialect) {
    const std::string id = dialect == Dialect::sqlite
                               ? "id INTEGER PRIMARY KEY"
                               : "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
    for (auto at = sql.find("{id}"); at != std::string::npos; at = sql.find("{id}"))
        sql.replace(at, 4, id);
    if (const auto at = sql.find("{carried}"); at != std::string::npos)
        sql.replace(at, 9, std::string(kCarriedVerificationPrefix));
    // Text ordered by its bytes: PostgreSQL's C collation, SQLite's default (BINARY).
    if (const auto at = sql.find("{bytes}"); at != std::string::npos)
        sql.replace(at, 7, dialect == Dialect::sqlite ? "" : " COLLATE \"C\"");
    return sql;
}

}  // namespace

std::vector<std::string> migration_statements(int version, Dialect dialect) {
    assert(version >= 1 && version <= latest_schema_version());
    std::vector<std::string> out;
    for (const auto& sql : kMigrations[static_cast<std::size_t>(version - 1)])
        out.push_back(with_dialect(sql, dialect));
    if (version == kBootRulesVersion || version == kBootVirtualizationVersion)
        return boot_rules_migration(dialect, version);
    if (version == kBootReportedVersion)
        return boot_reported_migration(dialect);
    return out;
}

int latest_schema_version() {
    return static_cast<int>(kMigrations.size());
}

}  // namespace hugetune::fleet_db
