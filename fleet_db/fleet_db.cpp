#include "fleet_db/fleet_db.hpp"

#include "model/fleet/run_digest.hpp"

#include "model/input/json_text.hpp"

#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>
#include <soci/sqlite3/soci-sqlite3.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "fleet_db/boot_store.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "fleet_db/pg_copy.hpp"
#include "fleet_db/session_guard.hpp"
#include "model/documents/report.hpp"
#include "model/text.hpp"

namespace hugetune::fleet_db {
namespace {

using Kind = FleetDbError::Kind;

// SQLite waits this long for another writer (a second ingest) before giving up.
constexpr int kSqliteBusySeconds = 60;

bool starts_with(const std::string& text, std::string_view prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

// The batch's transaction (session_guard.hpp), as IngestBatch::State holds it.
namespace storage {
using fleet_db::Transaction;
}  // namespace storage

namespace {

long long id_of(soci::session& sql, const std::string& select, const std::string& value) {
    long long id = 0;
    sql << select, soci::use(value), soci::into(id);
    return id;
}

long long stored_sku(soci::session& sql, const model::fleet::SkuKey& sku) {
    const std::string key = model::fleet::to_string(sku);
    const long long nodes = sku.nodes, threads = sku.hardware_threads_per_node;
    const long long gib = static_cast<long long>(sku.memory_per_node_gib);
    const long long page = static_cast<long long>(sku.page_size_kb);
    int init_on_alloc = sku.init_on_alloc ? (*sku.init_on_alloc ? 1 : 0) : 0;
    soci::indicator known = sku.init_on_alloc ? soci::i_ok : soci::i_null;
    sql << "INSERT INTO skus (sku_key, microarch, nodes, hardware_threads_per_node,"
           " memory_per_node_gib, page_size_kb, init_on_alloc) VALUES (:k, :m, :n, :t, :g, :p,"
           " :i) ON CONFLICT (sku_key) DO NOTHING",
        soci::use(key), soci::use(sku.microarch), soci::use(nodes), soci::use(threads),
        soci::use(gib), soci::use(page), soci::use(init_on_alloc, known);
    return id_of(sql, "SELECT id FROM skus WHERE sku_key = :k", key);
}

template <typename T>
std::pair<double, soci::indicator> column(const std::optional<T>& value) {
    return {value ? static_cast<double>(*value) : 0.0, value ? soci::i_ok : soci::i_null};
}

std::pair<std::string, soci::indicator> column(const std::optional<std::string>& value) {
    return {value.value_or(""), value ? soci::i_ok : soci::i_null};
}

// A document the database holds, parsed; one that is not JSON is damage, named by its run.
nlohmann::json stored_json(const std::string& text, const std::string& what,
                           const std::string& key) {
    // The one reader of every document (model/input/json_text.hpp): a stored text, a report's
    // dump(), goes its fast way.
    try {
        return model::parse_json_document(text);
    } catch (const model::JsonTextError&) {
        throw FleetDbError(Kind::failure,
                           "the stored " + what + " " + key +
                               " is not JSON; the database is damaged: forget it (hugetune "
                               "fleet forget) or restore the database from a backup");
    }
}

}  // namespace

namespace storage {

// PostgreSQL's ingest sends reports in groups of at most this many, or of this many bytes of
// stored text (a report larger than that goes alone): a few round trips per group instead of
// three per report, and memory that holds one group.
inline constexpr std::size_t kRunCopyRows = 500;
inline constexpr std::size_t kRunCopyBytes = std::size_t{16} << 20;

// The statements an ingest runs for every report, prepared once per batch (SQLite and
// PostgreSQL parse and plan a statement's text once, not once per report), and the ids of the
// SKUs and hosts met so far: the batch's transaction holds the ingest lock, so they stay true.
// A new report costs three statements (its host's when the host is new, its run's, its
// digest's) and one per verification block: each returns what the next needs (RETURNING). A
// host's runs are known here (none for a host new to the database, its stored ones read once
// for another), so a conflict or a report stored before is found without a query, and no
// statement scans the runs: PostgreSQL plans a prepared statement once for all its executions,
// from the table as it was, which for a table filling up in this very batch is a full scan.
// That is SQLite's path. PostgreSQL's gathers reports (gather(), send()): per group one query
// for the hosts it has not met (and one for their runs), ids drawn from the tables' sequences,
// and the hosts, runs and digests each sent with one COPY; a run's verification blocks still go
// one statement each. The outcomes are decided here as above, in the order gathered.
class RunStore {
  public:
    explicit RunStore(soci::session& sql)
        : sql_(sql),
          insert_host_((sql.prepare << "INSERT INTO hosts (hostname) VALUES (:h)"
                                       " ON CONFLICT (hostname) DO NOTHING RETURNING id",
                        soci::use(host_), soci::into(id_))),
          select_host_((sql.prepare << "SELECT id FROM hosts WHERE hostname = :h", soci::use(host_),
                        soci::into(id_))),
          insert_run_(
              (sql.prepare << "INSERT INTO runs (host_id, sku_id, generated_at, content_hash,"
                              " tool_version, kernel_release, decision, hugepage_alloc_threads,"
                              " predicted_seconds, confidence, warnings, report) VALUES (:h, :s,"
                              " :at, :hash, :tool, :kernel, :decision, :threads, :predicted,"
                              " :confidence, :warnings, :report)"
                              " ON CONFLICT (host_id, generated_at, content_hash) DO NOTHING"
                              " RETURNING id",
               soci::use(host_id_), soci::use(sku_id_), soci::use(generated_at_), soci::use(hash_),
               soci::use(tool_), soci::use(kernel_, kernel_ind_), soci::use(decision_),
               soci::use(threads_), soci::use(predicted_), soci::use(confidence_, confidence_ind_),
               soci::use(warnings_), soci::use(report_), soci::into(id_))),
          insert_digest_((sql.prepare << "INSERT INTO run_digests (run_id, digest) VALUES (:r, :d)",
                          soci::use(id_), soci::use(digest_))),
          select_run_((sql.prepare << "SELECT id FROM runs WHERE host_id = :h AND"
                                      " generated_at = :at AND content_hash = :hash",
                       soci::use(host_id_), soci::use(generated_at_), soci::use(hash_),
                       soci::into(id_))),
          insert_verification_(
              (sql.prepare << "INSERT INTO verifications (run_id, block_hash, verified,"
                              " measured_ms, threads, predicted_ms, ratio, kernel_release,"
                              " boot_id, block) VALUES (:r, :hash, :v, :m, :t, :p, :ratio, :k, :b,"
                              " :block) ON CONFLICT (run_id, block_hash) DO NOTHING",
               soci::use(id_), soci::use(block_hash_), soci::use(verified_),
               soci::use(measured_, measured_ind_), soci::use(block_threads_, block_threads_ind_),
               soci::use(block_predicted_, block_predicted_ind_), soci::use(ratio_, ratio_ind_),
               soci::use(block_kernel_, block_kernel_ind_), soci::use(boot_id_, boot_id_ind_),
               soci::use(block_))) {}

    long long sku_id(const model::fleet::SkuKey& sku) {
        const std::string key = model::fleet::to_string(sku);
        if (const auto it = skus_.find(key); it != skus_.end())
            return it->second;
        return skus_[key] = stored_sku(sql_, sku);
    }

    enum class Outcome { added, stored_before, conflict };

    // Files the report in `result` by its outcome and whether a verification block was new.
    static void file(IngestResult& result, const std::string& name, Outcome outcome,
                     bool verified) {
        if (outcome == Outcome::conflict)
            result.conflicts.push_back(name);
        else if (outcome == Outcome::added)
            result.added.push_back(name);
        else if (verified)
            result.verification_added.push_back(name);
        else
            result.skipped.push_back(name);
    }

    // The run stored, or why not, and its id (none for a conflict: the host already has a run
    // of the same time with other content, and two reports cannot both be its run of that time).
    std::pair<long long, Outcome> store_run(IntakeReport& r, long long sku_id) {
        const auto& f = r.facts;
        HostRuns& host = host_runs(f.host);
        std::size_t at = 0;
        if (const Outcome known = outcome_of(host, r, at); known != Outcome::added)
            return {known == Outcome::conflict ? 0 : host.runs[at].id, known};
        host_id_ = host.id;
        sku_id_ = sku_id;
        generated_at_ = f.generated_at;
        hash_ = r.content_hash;
        tool_ = f.tool_version;
        kernel_ = f.kernel_release.value_or("");
        kernel_ind_ = f.kernel_release ? soci::i_ok : soci::i_null;
        decision_ = model::to_string(f.decision);
        threads_ = f.hugepage_alloc_threads;
        predicted_ = f.predicted_seconds;
        confidence_ = f.confidence.value_or(0);
        confidence_ind_ = f.confidence ? soci::i_ok : soci::i_null;
        warnings_ = join(f.warning_codes, ",");
        report_.swap(r.document);  // a report may be tens of MB: bound, not copied
        const bool added = insert_run_.execute(true);
        report_.swap(r.document);
        if (!added) {  // cannot be, as the batch holds the ingest lock: stored all the same
            select_run_.execute(true);
            return {id_, Outcome::stored_before};
        }
        host.runs.push_back({f.generated_at, r.content_hash, id_});
        if (r.digest) {
            digest_.swap(*r.digest);
            insert_digest_.execute(true);
            digest_.swap(*r.digest);
        }
        return {id_, Outcome::added};
    }

    // True when the block is new to the run: a run keeps every distinct block (the same report
    // verified at another boot), an identical one again is already stored. The block is stored
    // as its one writer writes it, and known by the hash of that text.
    bool store_verification(long long run_id, const model::Verification& v) {
        id_ = run_id;
        verified_ = v.verified ? 1 : 0;
        std::tie(measured_, measured_ind_) = column(v.measured_ms);
        double threads = 0;
        std::tie(threads, block_threads_ind_) = column(v.threads);
        block_threads_ = static_cast<int>(threads);
        std::tie(block_predicted_, block_predicted_ind_) = column(v.pool_predicted_ms);
        std::tie(ratio_, ratio_ind_) = column(v.ratio);
        std::tie(block_kernel_, block_kernel_ind_) = column(v.kernel_release);
        std::tie(boot_id_, boot_id_ind_) = column(v.boot_id);
        block_ = model::to_json(v).dump();
        block_hash_ = content_hash(block_);
        insert_verification_.execute(true);
        return insert_verification_.get_affected_rows() > 0;
    }

    // PostgreSQL's ingest: reports gathered here, then sent together by send(), which files
    // each in `result` as store_run() and the verifications would, in the order gathered.
    void gather(IntakeReport&& r, long long sku_id) {
        gathered_bytes_ += r.stored_bytes();
        gathered_.push_back({std::move(r), sku_id});
    }
    bool gathered_full() const {
        return gathered_.size() >= kRunCopyRows || gathered_bytes_ >= kRunCopyBytes;
    }
    void send(IngestResult& result);

  private:
    struct KnownRun {
        std::string generated_at, content_hash;
        long long id = 0;
    };
    struct Gathered {
        IntakeReport report;
        long long sku_id = 0;
    };
    struct HostRuns {
        long long id = 0;
        std::vector<KnownRun> runs;  // stored before this batch or in it
    };

    // The report's outcome among its host's runs: a conflict when a run of the same time has
    // other content, else stored before (`at`: that run) when one has the same, else added.
    static Outcome outcome_of(const HostRuns& host, const IntakeReport& r, std::size_t& at) {
        std::optional<std::size_t> same;
        for (std::size_t i = 0; i < host.runs.size(); ++i)
            if (host.runs[i].generated_at == r.facts.generated_at) {
                if (host.runs[i].content_hash != r.content_hash)
                    return Outcome::conflict;
                same = i;
            }
        if (!same)
            return Outcome::added;
        at = *same;
        return Outcome::stored_before;
    }

    HostRuns& host_runs(const std::string& name) {
        if (const auto it = hosts_.find(name); it != hosts_.end())
            return it->second;
        HostRuns host;
        host_ = name;
        if (insert_host_.execute(true)) {  // new: no runs yet
            host.id = id_;
        } else {
            select_host_.execute(true);
            host.id = id_;
            // A statement of its own, so planned for this host's runs as they are now.
            soci::rowset<soci::row> rows =
                (sql_.prepare << "SELECT CAST(id AS TEXT), generated_at, content_hash FROM runs"
                                 " WHERE host_id = :h",
                 soci::use(host.id));
            for (const auto& row : rows)
                host.runs.push_back({row.get<std::string>(1), row.get<std::string>(2),
                                     std::stoll(row.get<std::string>(0))});
        }
        return hosts_.emplace(name, std::move(host)).first->second;
    }

    // Ids for `n` new rows of `table`, from its identity column's sequence, in ascending order.
    std::vector<long long> new_ids(const char* table, std::size_t n) {
        std::vector<long long> ids;
        ids.reserve(n);
        soci::rowset<std::string> rows =
            (sql_.prepare << "SELECT CAST(nextval(pg_get_serial_sequence('" << table
                          << "', 'id')) AS TEXT) FROM generate_series(1, " << n << ")");
        for (const auto& id : rows)
            ids.push_back(std::stoll(id));
        std::sort(ids.begin(), ids.end());
        return ids;
    }

    // The hosts `names` (new to this batch), with their runs: read for those stored, made
    // (one COPY) for the others.
    void meet_hosts(const std::vector<std::string>& names) {
        // chr(31) between the names: a DNS host name never holds it.
        const std::string joined = join(names, std::string(1, '\x1f'));
        std::map<long long, HostRuns*> stored;
        std::string stored_ids;
        {
            soci::rowset<soci::row> rows =
                (sql_.prepare << "SELECT CAST(id AS TEXT), hostname FROM hosts"
                                 " WHERE hostname = ANY(string_to_array(:n, chr(31)))",
                 soci::use(joined));
            for (const auto& row : rows) {
                HostRuns& host = hosts_[row.get<std::string>(1)];
                host.id = std::stoll(row.get<std::string>(0));
                stored[host.id] = &host;
                stored_ids += (stored_ids.empty() ? "" : " ") + std::to_string(host.id);
            }
        }
        if (!stored.empty()) {
            soci::rowset<soci::row> rows =
                (sql_.prepare << "SELECT CAST(host_id AS TEXT), CAST(id AS TEXT), generated_at,"
                                 " content_hash FROM runs WHERE host_id ="
                                 " ANY(CAST(string_to_array(:ids, ' ') AS BIGINT[])) ORDER BY id",
                 soci::use(stored_ids));
            for (const auto& row : rows)
                stored.at(std::stoll(row.get<std::string>(0)))
                    ->runs.push_back({row.get<std::string>(2), row.get<std::string>(3),
                                      std::stoll(row.get<std::string>(1))});
        }
        std::vector<const std::string*> made;
        for (const auto& name : names)
            if (!hosts_.count(name))
                made.push_back(&name);
        if (made.empty())
            return;
        const std::vector<long long> ids = new_ids("hosts", made.size());
        std::string rows;
        for (std::size_t i = 0; i < made.size(); ++i) {
            hosts_[*made[i]].id = ids[i];
            storage::binary_row(rows, 2);
            storage::binary_bigint(rows, ids[i]);
            storage::binary_text(rows, *made[i]);
        }
        storage::copy_in(sql_, "COPY hosts (id, hostname) FROM STDIN", rows, "hosts",
                         storage::CopyFormat::binary);
    }

    soci::session& sql_;
    std::vector<Gathered> gathered_;
    std::size_t gathered_bytes_ = 0;
    std::map<std::string, long long> skus_;
    std::map<std::string, HostRuns> hosts_;
    // The statements' values, bound by reference: declared before the statements.
    std::string host_, generated_at_, hash_, tool_, kernel_, decision_, warnings_, report_, digest_;
    long long host_id_ = 0, sku_id_ = 0, id_ = 0;
    int threads_ = 0;
    double predicted_ = 0, confidence_ = 0;
    soci::indicator kernel_ind_ = soci::i_ok, confidence_ind_ = soci::i_ok;
    std::string block_hash_, block_kernel_, boot_id_, block_;
    int verified_ = 0, block_threads_ = 0;
    double measured_ = 0, block_predicted_ = 0, ratio_ = 0;
    soci::indicator measured_ind_ = soci::i_ok, block_threads_ind_ = soci::i_ok,
                    block_predicted_ind_ = soci::i_ok, ratio_ind_ = soci::i_ok,
                    block_kernel_ind_ = soci::i_ok, boot_id_ind_ = soci::i_ok;
    soci::statement insert_host_, select_host_, insert_run_, insert_digest_, select_run_,
        insert_verification_;
};

void RunStore::send(IngestResult& result) {
    if (gathered_.empty())
        return;
    {
        std::vector<std::string> unmet;
        std::set<std::string> seen;
        for (const auto& g : gathered_)
            if (!hosts_.count(g.report.facts.host) && seen.insert(g.report.facts.host).second)
                unmet.push_back(g.report.facts.host);
        if (!unmet.empty())
            meet_hosts(unmet);
    }
    // Each report's outcome, as store_run() decides it, in the order gathered; a run new here
    // is known by its place in its host's runs until the ids are drawn.
    struct Place {
        Outcome outcome = Outcome::added;
        HostRuns* host = nullptr;
        std::size_t at = 0;
    };
    std::vector<Place> places;
    places.reserve(gathered_.size());
    std::vector<KnownRun*> added;
    for (const auto& g : gathered_) {
        HostRuns& host = hosts_.at(g.report.facts.host);
        Place place{Outcome::added, &host, host.runs.size()};
        place.outcome = outcome_of(host, g.report, place.at);
        if (place.outcome == Outcome::added)
            host.runs.push_back({g.report.facts.generated_at, g.report.content_hash, 0});
        places.push_back(place);
    }
    for (const auto& p : places)
        if (p.outcome == Outcome::added)
            added.push_back(&p.host->runs[p.at]);
    const std::vector<long long> ids =
        added.empty() ? std::vector<long long>{} : new_ids("runs", added.size());
    for (std::size_t i = 0; i < added.size(); ++i)
        added[i]->id = ids[i];
    if (!added.empty()) {
        // Each row made and sent as the report's turn comes, its text given back after; in
        // COPY's binary format, so a report's text goes as it is, neither escaped here nor
        // parsed by the server (docs/fleet.md "Ingest").
        storage::CopyIn runs(sql_,
                             "COPY runs (id, host_id, sku_id, generated_at, content_hash,"
                             " tool_version, kernel_release, decision, hugepage_alloc_threads,"
                             " predicted_seconds, confidence, warnings, report) FROM STDIN",
                             "reports", storage::CopyFormat::binary);
        std::string row;
        for (std::size_t i = 0; i < gathered_.size(); ++i) {
            if (places[i].outcome != Outcome::added)
                continue;
            IntakeReport& r = gathered_[i].report;
            const auto& f = r.facts;
            row.clear();
            storage::binary_row(row, 13);
            storage::binary_bigint(row, places[i].host->runs[places[i].at].id);
            storage::binary_bigint(row, places[i].host->id);
            storage::binary_bigint(row, gathered_[i].sku_id);
            storage::binary_text(row, f.generated_at);
            storage::binary_text(row, r.content_hash);
            storage::binary_text(row, f.tool_version);
            if (f.kernel_release)
                storage::binary_text(row, *f.kernel_release);
            else
                storage::binary_null(row);
            storage::binary_text(row, model::to_string(f.decision));
            storage::binary_integer(row, f.hugepage_alloc_threads);
            storage::binary_double(row, f.predicted_seconds);
            if (f.confidence)
                storage::binary_double(row, *f.confidence);
            else
                storage::binary_null(row);
            storage::binary_text(row, join(f.warning_codes, ","));
            storage::binary_text(row, r.document);
            std::string().swap(r.document);
            runs.put(row);
        }
        runs.end();
        std::string digests;
        for (std::size_t i = 0; i < gathered_.size(); ++i)
            if (places[i].outcome == Outcome::added && gathered_[i].report.digest) {
                storage::binary_row(digests, 2);
                storage::binary_bigint(digests, places[i].host->runs[places[i].at].id);
                storage::binary_text(digests, *gathered_[i].report.digest);
            }
        if (!digests.empty())
            storage::copy_in(sql_, "COPY run_digests (run_id, digest) FROM STDIN", digests,
                             "run digests", storage::CopyFormat::binary);
    }
    for (std::size_t i = 0; i < gathered_.size(); ++i) {
        const Place& p = places[i];
        bool verified = false;
        if (p.outcome != Outcome::conflict)
            for (const auto& v : gathered_[i].report.facts.verifications)
                verified = store_verification(p.host->runs[p.at].id, v) || verified;
        file(result, gathered_[i].report.name, p.outcome, verified);
    }
    gathered_.clear();
    gathered_bytes_ = 0;
}

}  // namespace storage

namespace {

// Migration 3's rows of version 2 by their block's hash (migrations.hpp).
void hash_carried_verifications(soci::session& sql) {
    std::vector<std::pair<std::string, std::string>> carried;  // id as text, block
    const std::string placeholder = std::string(kCarriedVerificationPrefix) + "%";
    soci::rowset<soci::row> rows =
        (sql.prepare << "SELECT CAST(id AS TEXT), block FROM verifications WHERE block_hash"
                        " LIKE :p ORDER BY id",
         soci::use(placeholder));
    for (const auto& row : rows)
        carried.emplace_back(row.get<std::string>(0), row.get<std::string>(1));
    for (const auto& [id, block] : carried) {
        const long long row_id = std::stoll(id);
        const std::string hash = content_hash(block);
        sql << "UPDATE verifications SET block_hash = :h WHERE id = :id", soci::use(hash),
            soci::use(row_id);
    }
}

// Migration 7 (and any that raises the digest's version): every stored run's digest from its
// report, read as ingest reads it, in slices of runs so that memory holds a slice, not the
// database. A report the reader refuses keeps no digest; its answer reads it and names it.
void write_run_digests(soci::session& sql) {
    constexpr long long kSlice = 500;
    long long after = -1;
    for (;;) {
        std::vector<std::pair<long long, std::string>> digests;
        long long last = after;
        {
            soci::rowset<soci::row> rows =
                (sql.prepare << "SELECT CAST(id AS TEXT), report FROM runs WHERE id > :a"
                                " ORDER BY id LIMIT "
                             << kSlice,
                 soci::use(after));
            for (const auto& row : rows) {
                last = std::stoll(row.get<std::string>(0));
                try {
                    model::InputSource input;
                    input.stored = true;
                    const auto facts = model::fleet::read_run(
                        model::parse_json_document(row.get<std::string>(1)), input);
                    if (auto digest = model::fleet::run_digest(facts))
                        digests.emplace_back(last, std::move(*digest));
                } catch (const std::exception&) {  // damaged: read, and named, where it is used
                }
            }
        }
        for (const auto& [id, digest] : digests) {
            sql << "DELETE FROM run_digests WHERE run_id = :id", soci::use(id);
            sql << "INSERT INTO run_digests (run_id, digest) VALUES (:id, :d)", soci::use(id),
                soci::use(digest);
        }
        if (last == after)
            return;
        after = last;
    }
}

// Each run whose report the reader now gives another SKU key than the one it is stored under
// moves to that key (docs/fleet.md "The SKU key": init_on_alloc joined the key with version 4,
// and `unknown` becomes the CPU's identity or the table's name with version 5); the SKUs left
// without runs go, and every kept answer. A report the reader refuses stays where it is, for
// its reader to name. Run once, by migration 5, for a database of version 4 or older.
void rekey_by_reader(soci::session& sql) {
    struct Move {
        long long run_id;
        model::fleet::SkuKey key;
    };
    std::vector<Move> moves;
    {
        soci::rowset<soci::row> rows =
            (sql.prepare << "SELECT CAST(r.id AS TEXT), s.sku_key, r.report FROM runs r"
                            " JOIN skus s ON s.id = r.sku_id ORDER BY r.id");
        for (const auto& row : rows) {
            const long long id = std::stoll(row.get<std::string>(0));
            const auto stored = row.get<std::string>(1);
            try {
                model::ReportReading reading;
                reading.need_run = true;
                reading.input.stored = true;
                model::fleet::SkuKey key =
                    model::read_report(nlohmann::json::parse(row.get<std::string>(2)), reading)
                        .run->sku;
                if (model::fleet::to_string(key) != stored)
                    moves.push_back({id, std::move(key)});
            } catch (const std::exception&) {
                continue;
            }
        }
    }
    for (const auto& m : moves) {
        const long long sku_id = stored_sku(sql, m.key);
        sql << "UPDATE runs SET sku_id = :s WHERE id = :r", soci::use(sku_id), soci::use(m.run_id);
    }
    sql << "DELETE FROM sku_answers";
    sql << "DELETE FROM skus WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.sku_id = skus.id)";
}

}  // namespace

namespace {

// libpq's connection keywords (PostgreSQL documentation, "Parameter Key Words"): a value that
// starts with one of them followed by '=' is a keyword/value connection string.
constexpr std::string_view kLibpqKeywords[] = {"host",
                                               "hostaddr",
                                               "port",
                                               "dbname",
                                               "user",
                                               "password",
                                               "passfile",
                                               "service",
                                               "options",
                                               "sslmode",
                                               "sslrootcert",
                                               "application_name",
                                               "connect_timeout",
                                               "target_session_attrs",
                                               "gssencmode"};

bool keyword_form(const std::string& value) {
    for (const auto keyword : kLibpqKeywords)
        if (starts_with(value, std::string(keyword) + "="))
            return true;
    return false;
}

// The connection string with hugetune's timeouts where the caller set none, so a server that
// accepts and never answers cannot hang a command (docs/fleet.md "The database").
std::string with_timeouts(const std::string& location, bool url) {
    if (location.find("connect_timeout=") != std::string::npos)
        return location;
    const std::string setting = "connect_timeout=" + std::to_string(kPostgresConnectSeconds);
    if (!url)
        return location + " " + setting;
    return location + (location.find('?') == std::string::npos ? "?" : "&") + setting;
}

}  // namespace

namespace {

std::string lowered(std::string_view text) {
    std::string out(text);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// "%41" as "A"; a '%' not followed by two hex digits stays as it is.
std::string percent_decoded(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() &&
            std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// A value that names PostgreSQL without being a URL libpq takes: "PostgreSQL://",
// "postgresql:u:pw@h", "postgresql//h", a leading blank.
bool near_url(const std::string& value) {
    std::size_t start = 0;
    while (start < value.size() && std::isspace(static_cast<unsigned char>(value[start])))
        ++start;
    const std::string head = lowered(std::string_view(value).substr(start, 12));
    return starts_with(head, "postgres") && value.find_first_of(":/", start) != std::string::npos;
}

}  // namespace

std::vector<std::string> secrets_in(const std::string& value) {
    std::vector<std::string> out;
    const auto add = [&](const std::string& secret) {
        for (const auto& s : {secret, percent_decoded(secret)})
            if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end())
                out.push_back(s);
    };
    // user:password@ in the authority: from after "://" (or the start) to the path.
    if (const auto first_at = value.find('@'); first_at != std::string::npos) {
        const auto scheme = value.find("://");
        const std::size_t start = scheme != std::string::npos && scheme < first_at ? scheme + 3 : 0;
        const auto path = value.find('/', first_at);
        const auto last_at = value.rfind('@', path == std::string::npos ? value.size() : path);
        for (const auto at : {first_at, last_at}) {
            const std::string userinfo = value.substr(start, at - start);
            if (const auto colon = userinfo.find(':'); colon != std::string::npos)
                add(userinfo.substr(colon + 1));
            if (const auto colon = userinfo.rfind(':'); colon != std::string::npos)
                add(userinfo.substr(colon + 1));
        }
    }
    // password=VALUE, in a query or the keyword form, in any case.
    const std::string low = lowered(value);
    for (auto p = low.find("password="); p != std::string::npos; p = low.find("password=", p + 1)) {
        const std::size_t at = p + 9;
        std::size_t end = at;
        if (at < value.size() && value[at] == '\'') {
            end = value.find('\'', at + 1);
            if (end == std::string::npos)
                end = value.size() - 1;
            add(value.substr(at, end + 1 - at));  // with its quotes: password=***
            add(value.substr(at + 1, end - at - 1));
            continue;
        }
        end = std::min(value.find_first_of(" \t&", at), value.size());
        add(value.substr(at, end - at));
    }
    return out;
}

// A secret this short is masked only where it stands alone (no letter or digit beside it), so
// that a one-letter password does not take every such letter out of a message.
constexpr std::size_t kShortSecret = 4;

std::string masked(std::string text, std::vector<std::string> secrets) {
    std::sort(secrets.begin(), secrets.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    const auto word = [&](std::size_t i) {
        return i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]));
    };
    for (const auto& secret : secrets)
        for (auto p = text.find(secret); p != std::string::npos;) {
            if (secret.size() < kShortSecret &&
                ((p > 0 && word(p - 1)) || word(p + secret.size()))) {
                p = text.find(secret, p + 1);
                continue;
            }
            text.replace(p, secret.size(), "***");
            p = text.find(secret, p + 3);
        }
    return text;
}

namespace {

// libpq's words with every quoted part (where it repeats the value) as "***".
std::string without_quoted(const std::string& message) {
    std::string out;
    bool quoted = false;
    for (const char c : message) {
        if (c == '"') {
            out += quoted ? "***\"" : "\"";
            quoted = !quoted;
        } else if (!quoted && c != '\n') {
            out += c;
        }
    }
    return out;
}

// The connection string as libpq reads it (PQconninfoParse), never as a guess at its text: the
// password libpq will send joins the secrets, and a string libpq cannot read, or reads so that
// part of what was meant as the password would stand in a message as a host or a port, is
// refused without showing it.
void read_as_libpq(const std::string& value, bool url, DbTarget& t) {
    const std::string fix =
        ": keep the password out of it (libpq's password file, ~/.pgpass or PGPASSFILE), or "
        "percent-encode '@', '/', ':', '&' and spaces in it (%40, %2F, %3A, %26, %20)";
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(value.c_str(), &error);
    if (options == nullptr) {
        const std::string said = error != nullptr ? without_quoted(error) : "out of memory";
        PQfreemem(error);
        throw FleetDbError(Kind::usage,
                           "the PostgreSQL connection string (not shown) is one "
                           "libpq cannot read (" +
                               said + ")" + fix);
    }
    std::string problem, keywords;
    for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
        if (o->val == nullptr)
            continue;
        const std::string keyword = o->keyword, val = o->val;
        // The keyword form is shown as libpq read it, not as written: its escapes ("pass\ word")
        // would keep a password from being found in the text.
        std::string shown = keyword == "password" ? "***" : val;
        if (shown.empty() || shown.find_first_of(" '\\") != std::string::npos) {
            std::string quoted = "'";
            for (const char c : shown)
                quoted += c == '\'' || c == '\\' ? std::string("\\") + c : std::string(1, c);
            shown = quoted + "'";
        }
        keywords += (keywords.empty() ? "" : " ") + keyword + "=" + shown;
        if (keyword == "password" && !val.empty()) {
            t.secrets.push_back(val);
        } else if (keyword == "host" && val.find('@') != std::string::npos) {
            problem = "a host name with '@'";
        } else if (keyword == "port" && val.find_first_not_of("0123456789,") != std::string::npos) {
            problem = "a port that is not a number";
        }
    }
    PQconninfoFree(options);
    t.display = url ? masked(value, t.secrets) : keywords;
    if (!problem.empty())
        throw FleetDbError(Kind::usage,
                           "the PostgreSQL connection string (not shown) reads, as "
                           "libpq reads it, with " +
                               problem + ", where a password was likely meant" + fix);
}

}  // namespace

DbTarget parse_db_target(const std::string& value) {
    DbTarget t;
    t.location = value;
    t.secrets = secrets_in(value);
    t.display = masked(value, t.secrets);
    const bool url = starts_with(value, "postgresql://") || starts_with(value, "postgres://");
    if (!url && near_url(value))
        throw FleetDbError(Kind::usage,
                           t.display +
                               ": looks like a PostgreSQL connection URL but is not one; write "
                               "postgresql://USER@HOST/DATABASE (lowercase, with '://', nothing "
                               "before it), or give a SQLite file path");
    if (!url && !keyword_form(value))
        return t;
    read_as_libpq(value, url, t);
    t.dialect = Dialect::postgresql;
    t.location = with_timeouts(value, url);
    return t;
}

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

namespace {

// Migration 8 on PostgreSQL: lz4 for the large texts stored from now on, where the server has
// it (PostgreSQL 14 and later, built with lz4, as Debian's is); pglz, the default, stays where
// it does not. A value already stored keeps its compression until it is written again.
void compress_with_lz4(soci::session& sql) {
    int available = 0;
    sql << "SELECT COUNT(*) FROM pg_settings WHERE name = 'default_toast_compression' AND"
           " 'lz4' = ANY(enumvals)",
        soci::into(available);
    if (available == 0)
        return;
    for (const auto& [table, column] : kLz4Columns)
        sql << "ALTER TABLE " + std::string(table) + " ALTER COLUMN " + std::string(column) +
                   " SET COMPRESSION lz4";
}

}  // namespace

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
    storage::Transaction t(*sql_, target_.dialect);
    if (target_.dialect == Dialect::postgresql) {
        int one = 0;  // two first opens at once: the second waits, then finds the schema made
        *sql_ << "SELECT 1 FROM (SELECT pg_advisory_xact_lock(4711)) AS l", soci::into(one);
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
            compress_with_lz4(*sql_);
    }
    if (digests)
        write_run_digests(*sql_);
    *sql_ << "DELETE FROM schema_info";
    *sql_ << "INSERT INTO schema_info (version) VALUES (:v)", soci::use(latest);
    t.commit();
}

}  // namespace hugetune::fleet_db

namespace hugetune::fleet_db {

struct IngestBatch::State {
    State(soci::session& session, DbTarget where)
        : target(std::move(where)), transaction(session, target.dialect), sql(session) {
        if (target.dialect == Dialect::postgresql) {
            // Ingests take turns, as SQLite's write lock makes them: two batches that hold the
            // same hosts in another order would otherwise each wait for the other's rows.
            int one = 0;
            sql << "SELECT 1 FROM (SELECT pg_advisory_xact_lock(4712)) AS l", soci::into(one);
        }
        runs.emplace(sql);
        boots.emplace(sql, target.dialect, result);
        if (target.dialect == Dialect::sqlite)
            writeback = ::open(target.location.c_str(), O_RDONLY | O_CLOEXEC);
    }
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() {
        if (writeback >= 0)
            ::close(writeback);
    }
    // SQLite: after every kWritebackBytes stored, the kernel is asked to start writing the
    // database file's dirty pages out (sync_file_range, which waits for nothing), so that the
    // commit's sync finds little left to write instead of the whole batch. Durability is the
    // commit's, as before; a file that cannot be opened here only loses the head start.
    static constexpr std::size_t kWritebackBytes = std::size_t{32} << 20;
    void stored(std::size_t bytes) {
        if (writeback < 0 || (unwritten += bytes) < kWritebackBytes)
            return;
        unwritten = 0;
        ::sync_file_range(writeback, 0, 0, SYNC_FILE_RANGE_WRITE);
    }
    int writeback = -1;
    std::size_t unwritten = 0;
    DbTarget target;
    storage::Transaction transaction;
    soci::session& sql;
    IngestResult result;
    std::optional<storage::RunStore> runs;  // after the lock: preparing reads the schema
    std::optional<storage::BootStore> boots;
};

IngestBatch::IngestBatch(std::unique_ptr<State> state) : state_(std::move(state)) {}
IngestBatch::IngestBatch(IngestBatch&&) noexcept = default;
IngestBatch& IngestBatch::operator=(IngestBatch&&) noexcept = default;
IngestBatch::~IngestBatch() {
    if (state_) {  // the statements end before the transaction rolls back
        state_->boots.reset();
        state_->runs.reset();
    }
}

void IngestBatch::store(IntakeReport r) {
    guarded(state_->target, "ingest", [&] {
        storage::RunStore& runs = *state_->runs;
        const long long sku_id = runs.sku_id(r.facts.sku);
        auto& result = state_->result;
        if (state_->target.dialect == Dialect::postgresql) {
            runs.gather(std::move(r), sku_id);
            if (runs.gathered_full())
                runs.send(result);
            return;
        }
        state_->stored(r.stored_bytes());
        const auto [run_id, outcome] = runs.store_run(r, sku_id);
        bool verified = false;
        if (outcome != storage::RunStore::Outcome::conflict)
            for (const auto& v : r.facts.verifications)
                verified = runs.store_verification(run_id, v) || verified;
        storage::RunStore::file(result, r.name, outcome, verified);
    });
}

void IngestBatch::store(const IntakeBoot& boot) {
    guarded(state_->target, "ingest", [&] { state_->boots->store(boot); });
}

IngestResult IngestBatch::commit() {
    return guarded(state_->target, "ingest", [&] {
        state_->runs->send(state_->result);
        state_->boots->flush();
        const bool analyze = state_->boots->copied() >= storage::kVacuumAfterBootRows;
        state_->boots.reset();
        state_->runs.reset();
        state_->transaction.commit();
        if (analyze)
            try {  // outside the transaction, as VACUUM must be
                state_->sql << "VACUUM (ANALYZE) boot_records";
            } catch (const soci::soci_error&) {  // not the table's owner: autovacuum does it
            }
        return std::move(state_->result);
    });
}

IngestBatch FleetDb::begin_ingest() {
    return guarded(target_, "ingest", [&] {
        return IngestBatch(std::make_unique<IngestBatch::State>(*sql_, target_));
    });
}

IngestResult FleetDb::ingest(const std::vector<IntakeReport>& reports) {
    IngestBatch batch = begin_ingest();
    for (const auto& r : reports)
        batch.store(r);  // a copy: this form is for small batches
    return batch.commit();
}

std::vector<std::string> FleetDb::sku_keys() {
    return guarded(target_, "read the SKUs", [&] {
        std::vector<std::string> keys;
        soci::rowset<std::string> rows =
            (sql_->prepare << "SELECT sku_key FROM skus ORDER BY sku_key");
        for (const auto& key : rows)
            keys.push_back(key);
        return keys;
    });
}

std::vector<model::fleet::FleetRun> FleetDb::runs_of_sku(const std::string& sku_key) {
    std::vector<model::fleet::FleetRun> runs;
    runs_of_sku(sku_key, [&runs](model::fleet::FleetRun&& run) { runs.push_back(std::move(run)); });
    return runs;
}

void FleetDb::runs_of_sku(const std::string& sku_key,
                          const std::function<void(model::fleet::FleetRun&&)>& take) {
    guarded(target_, "read the runs", [&] {
        // The verifications first (a SKU has few beside its runs), so that each run goes to
        // `take` whole as it is read and the SKU's runs are never all held here.
        std::map<std::string, std::vector<model::fleet::FleetVerification>> verifications_of;
        {
            soci::rowset<soci::row> blocks =
                (sql_->prepare << "SELECT CAST(v.run_id AS TEXT), r.content_hash, v.block_hash,"
                                  " v.block FROM verifications v JOIN runs r ON r.id = v.run_id"
                                  " JOIN skus s ON s.id = r.sku_id WHERE s.sku_key = :k"
                                  " ORDER BY v.id",
                 soci::use(sku_key));
            for (const auto& row : blocks) {
                const std::string key =
                    verification_key(row.get<std::string>(1), row.get<std::string>(2));
                verifications_of[row.get<std::string>(0)].push_back(
                    {key, stored_json(row.get<std::string>(3), "verification", key)});
            }
        }
        // A run's digest stands for its report; the report is read only where the digest is
        // missing or of another version (model/fleet/run_digest.hpp), as the run comes: the
        // runs' rows are all fetched before the first is handed out (PostgreSQL), or the
        // statement steps on while another runs beside it (SQLite). The digests are read a
        // batch at a time, on every CPU, the runs then handed out in order.
        constexpr std::size_t kRunsPerBatch = 4096;
        std::vector<std::string> ids, digests;
        std::vector<model::fleet::FleetRun> batch;
        const auto hand_out = [&] {
            auto facts = model::fleet::read_run_digests(digests, {});
            for (std::size_t i = 0; i < batch.size(); ++i) {
                model::fleet::FleetRun& run = batch[i];
                if (facts[i] && model::fleet::to_string(facts[i]->sku) == sku_key)
                    run.facts = std::make_shared<model::fleet::RunFacts>(std::move(*facts[i]));
                // else none, another version's, damaged, or of before the run moved: the report
                if (!run.facts) {
                    std::string text;
                    const long long run_id = std::stoll(ids[i]);
                    *sql_ << "SELECT report FROM runs WHERE id = :id", soci::use(run_id),
                        soci::into(text);
                    run.report = stored_json(text, "report of run", run.run_key);
                }
                if (const auto v = verifications_of.find(ids[i]); v != verifications_of.end())
                    run.verifications = std::move(v->second);
                take(std::move(run));
                run = model::fleet::FleetRun();  // what `take` left of it (a report) goes now
            }
            ids.clear();
            digests.clear();
            batch.clear();
        };
        soci::rowset<soci::row> rows =
            (sql_->prepare << "SELECT CAST(r.id AS TEXT), h.hostname, r.content_hash,"
                              " d.digest FROM runs r JOIN hosts h ON h.id = r.host_id"
                              " JOIN skus s ON s.id = r.sku_id"
                              " LEFT JOIN run_digests d ON d.run_id = r.id WHERE s.sku_key = :k"
                              " ORDER BY h.hostname, r.generated_at, r.id",
             soci::use(sku_key));
        for (const auto& row : rows) {
            batch.push_back({row.get<std::string>(1), row.get<std::string>(2), nullptr});
            ids.push_back(row.get<std::string>(0));
            digests.push_back(row.get_indicator(3) == soci::i_ok ? row.get<std::string>(3) : "");
            if (batch.size() == kRunsPerBatch)
                hand_out();
        }
        hand_out();
    });
}

std::optional<std::string> FleetDb::sku_of_host(const std::string& host) {
    return guarded(target_, "read the host", [&]() -> std::optional<std::string> {
        std::string key;
        *sql_ << "SELECT s.sku_key FROM runs r JOIN hosts h ON h.id = r.host_id"
                 " JOIN skus s ON s.id = r.sku_id WHERE h.hostname = :h"
                 " ORDER BY r.generated_at DESC, r.id DESC LIMIT 1",
            soci::use(host), soci::into(key);
        if (!sql_->got_data())
            return std::nullopt;
        return key;
    });
}

std::string FleetDb::runs_digest(const std::string& sku_key) {
    return guarded(target_, "read the runs", [&] {
        std::string text;
        soci::rowset<soci::row> rows =
            (sql_->prepare << "SELECT CAST(r.id AS TEXT), r.content_hash FROM runs r"
                              " JOIN skus s ON s.id = r.sku_id WHERE s.sku_key = :k"
                              " ORDER BY r.id",
             soci::use(sku_key));
        // The id as text: an INTEGER in SQLite and a BIGINT in PostgreSQL come back as
        // different C++ types.
        for (const auto& row : rows)
            text += row.get<std::string>(0) + ":" + row.get<std::string>(1) + ";";
        soci::rowset<soci::row> verifications =
            (sql_->prepare << "SELECT CAST(v.id AS TEXT), CAST(v.run_id AS TEXT), v.block_hash"
                              " FROM verifications v JOIN runs r ON r.id = v.run_id"
                              " JOIN skus s ON s.id = r.sku_id WHERE s.sku_key = :k"
                              " ORDER BY v.id",
             soci::use(sku_key));
        for (const auto& row : verifications)
            text += "v" + row.get<std::string>(0) + ":" + row.get<std::string>(1) + ":" +
                    row.get<std::string>(2) + ";";
        // Boots are only ever added (or forgotten with their SKU's runs): their count and
        // newest id tell a new one.
        std::string boots, newest;
        soci::indicator none = soci::i_ok;
        *sql_ << "SELECT CAST(COUNT(*) AS TEXT), CAST(MAX(id) AS TEXT) FROM boot_records"
                 " WHERE sku_key = :k",
            soci::use(sku_key), soci::into(boots), soci::into(newest, none);
        if (boots != "0")
            text += "b" + boots + ":" + (none == soci::i_ok ? newest : "") + ";";
        return content_hash(text);
    });
}

namespace {

std::vector<model::fleet::CanaryPlan> plans_where(soci::session& sql, const std::string& where,
                                                  const std::string& sku_key) {
    std::vector<model::fleet::CanaryPlan> plans;
    soci::rowset<soci::row> rows =
        (sql.prepare << "SELECT sku_key, arm_values, CAST(share AS TEXT),"
                        " CAST(answer_threads AS TEXT), started_at FROM canary_plans WHERE"
                        " ended_at IS NULL" +
                            where + " ORDER BY sku_key",
         soci::use(sku_key));
    for (const auto& row : rows) {
        model::fleet::CanaryPlan p;
        p.sku_key = row.get<std::string>(0);
        p.values = model::fleet::arm_values_of(row.get<std::string>(1));
        p.share = std::stod(row.get<std::string>(2));
        p.answer_threads = std::stoi(row.get<std::string>(3));
        p.started_at = row.get<std::string>(4);
        plans.push_back(std::move(p));
    }
    return plans;
}

}  // namespace

int FleetDb::boot_records_of_host(const std::string& host) {
    return guarded(target_, "read the boots", [&] {
        int n = 0;
        *sql_ << "SELECT COUNT(*) FROM boot_records WHERE host = :h", soci::use(host),
            soci::into(n);
        return n;
    });
}

std::optional<model::fleet::CanaryPlan> FleetDb::open_plan(const std::string& sku_key) {
    return guarded(target_, "read the canary plans",
                   [&]() -> std::optional<model::fleet::CanaryPlan> {
                       auto plans = plans_where(*sql_, " AND sku_key = :k", sku_key);
                       if (plans.empty())
                           return std::nullopt;
                       return std::move(plans.front());
                   });
}

std::vector<model::fleet::CanaryPlan> FleetDb::open_plans() {
    return guarded(target_, "read the canary plans",
                   [&] { return plans_where(*sql_, " AND sku_key <> :k", ""); });
}

void FleetDb::start_plan(const model::fleet::CanaryPlan& plan) {
    guarded(target_, "start the canary plan", [&] {
        Transaction t(*sql_, target_.dialect);
        if (target_.dialect == Dialect::postgresql) {  // two starts at once: one after the other
            int one = 0;
            *sql_ << "SELECT 1 FROM (SELECT pg_advisory_xact_lock(4712)) AS l", soci::into(one);
        }
        if (!plans_where(*sql_, " AND sku_key = :k", plan.sku_key).empty())
            throw FleetDbError(Kind::usage, Flag{"sku"} + ": " + plan.sku_key +
                                                " has an open canary plan; see it with 'fleet "
                                                "plan " +
                                                Flag{"plan_status"} +
                                                "' or end it with 'fleet plan " +
                                                Flag{"plan_stop"} + "'");
        const std::string values = model::fleet::arm_values_text(plan.values);
        *sql_ << "INSERT INTO canary_plans (sku_key, arm_values, share, answer_threads,"
                 " started_at) VALUES (:k, :v, :s, :a, :t)",
            soci::use(plan.sku_key), soci::use(values), soci::use(plan.share),
            soci::use(plan.answer_threads), soci::use(plan.started_at);
        t.commit();
    });
}

bool FleetDb::end_plan(const std::string& sku_key, const std::string& at,
                       const std::string& reason) {
    return guarded(target_, "end the canary plan", [&] {
        soci::statement st = (sql_->prepare << "UPDATE canary_plans SET ended_at = :t,"
                                               " end_reason = :r WHERE sku_key = :k AND"
                                               " ended_at IS NULL",
                              soci::use(at), soci::use(reason), soci::use(sku_key));
        st.execute(true);
        return st.get_affected_rows() > 0;
    });
}

std::vector<model::fleet::SkuBoot> FleetDb::boots_of_sku(
    const std::string& sku_key, const model::fleet::BootHosts& hosts,
    const std::optional<std::string>& recorded_since) {
    return guarded(target_, "read the boots", [&] {
        std::vector<model::fleet::SkuBoot> boots;
        const std::string since = recorded_since.value_or("");
        soci::rowset<soci::row> rows =
            (sql_->prepare << "SELECT host, kernel_release, CAST(threads AS TEXT),"
                              " CAST(milliseconds AS TEXT), CAST(pool_pages AS TEXT),"
                              " CAST(hvo AS TEXT), recorded_at" +
                                  storage::line_boots_condition() +
                                  " AND recorded_at >= :s ORDER BY id",
             soci::use(sku_key), soci::use(since));
        for (const auto& row : rows) {
            model::fleet::SkuBoot b;
            b.host = row.get<std::string>(0);
            if (row.get_indicator(1) == soci::i_ok)
                b.kernel_release = row.get<std::string>(1);
            b.threads = std::stoi(row.get<std::string>(2));
            b.milliseconds = std::stod(row.get<std::string>(3));
            b.pool_pages = std::stoull(row.get<std::string>(4));
            if (row.get_indicator(5) == soci::i_ok)
                b.hvo = row.get<std::string>(5) == "1";
            b.recorded_at = row.get<std::string>(6);
            boots.push_back(std::move(b));
        }
        return model::fleet::boots_of_hosts(std::move(boots), hosts);
    });
}

model::fleet::BootTally FleetDb::boot_tally(const std::string& sku_key,
                                            const model::fleet::BootHosts& hosts,
                                            bool virtual_machines_count) {
    return guarded(target_, "read the boots", [&] {
        return storage::tally_stored_boots(*sql_, target_.dialect, sku_key, hosts,
                                           virtual_machines_count);
    });
}

std::optional<std::string> FleetDb::kept_answer(const std::string& sku_key,
                                                const std::string& inputs) {
    return guarded(target_, "read the kept answers", [&]() -> std::optional<std::string> {
        std::string answer;
        *sql_ << "SELECT a.answer FROM sku_answers a JOIN skus s ON s.id = a.sku_id"
                 " WHERE s.sku_key = :k AND a.inputs = :i",
            soci::use(sku_key), soci::use(inputs), soci::into(answer);
        if (!sql_->got_data())
            return std::nullopt;
        return answer;
    });
}

bool FleetDb::keep_answer(const std::string& sku_key, const std::string& inputs,
                          const std::string& answer) {
    // A reader must not queue behind an ingest for SQLite's write lock: it tries once.
    const bool sqlite = target_.dialect == Dialect::sqlite;
    try {
        if (sqlite)
            *sql_ << "PRAGMA busy_timeout = 0";
        *sql_ << "INSERT INTO sku_answers (sku_id, inputs, answer)"
                 " SELECT id, :i, :a FROM skus WHERE sku_key = :k"
                 " ON CONFLICT (sku_id) DO UPDATE SET inputs = excluded.inputs,"
                 " answer = excluded.answer",
            soci::use(inputs), soci::use(answer), soci::use(sku_key);
        if (sqlite)
            *sql_ << "PRAGMA busy_timeout = " + std::to_string(kSqliteBusySeconds * 1000);
        return true;
    } catch (const soci::soci_error&) {
        if (sqlite)
            try {
                *sql_ << "PRAGMA busy_timeout = " + std::to_string(kSqliteBusySeconds * 1000);
            } catch (const soci::soci_error&) {  // the session is unusable: the next call says so
            }
        return false;
    }
}

std::vector<HostSkuLatest> FleetDb::host_sku_latest() {
    return guarded(target_, "read the hosts", [&] {
        std::vector<HostSkuLatest> out;
        soci::rowset<soci::row> rows =
            (sql_->prepare << "SELECT h.hostname, s.sku_key, MAX(r.generated_at) FROM runs r"
                              " JOIN hosts h ON h.id = r.host_id JOIN skus s ON s.id = r.sku_id"
                              " GROUP BY h.hostname, s.sku_key ORDER BY 1, 3, 2");
        for (const auto& row : rows)
            out.push_back(
                {row.get<std::string>(0), row.get<std::string>(1), row.get<std::string>(2)});
        return out;
    });
}

}  // namespace hugetune::fleet_db
