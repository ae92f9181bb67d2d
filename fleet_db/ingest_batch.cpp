// The ingest writer: a batch of reports and boot records stored in one transaction, each
// report's host, run, digest and verification blocks (docs/fleet.md "Ingest").
#include <soci/soci.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "fleet_db/boot_store.hpp"
#include "fleet_db/fleet_db.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "fleet_db/pg_copy.hpp"
#include "fleet_db/session_guard.hpp"
#include "fleet_db/stored_rows.hpp"
#include "model/fleet/run_digest.hpp"
#include "model/text.hpp"

namespace hugetune::fleet_db {

// The batch's transaction (session_guard.hpp), as IngestBatch::State holds it.
namespace storage {
using fleet_db::Transaction;
}  // namespace storage

namespace {

template <typename T>
std::pair<double, soci::indicator> column(const std::optional<T>& value) {
    return {value ? static_cast<double>(*value) : 0.0, value ? soci::i_ok : soci::i_null};
}

std::pair<std::string, soci::indicator> column(const std::optional<std::string>& value) {
    return {value.value_or(""), value ? soci::i_ok : soci::i_null};
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
        // SQLite keeps each statement's own journal (the pages it changed, to undo that
        // statement alone) in a temporary file; a boot's insert has one since boot_records has
        // triggers (migration 18), and wrote about a dozen pages there per boot, which cut the
        // ingest of boots to 0.43 of its rate before. In memory it holds a few pages at a time.
        // Set before the batch's transaction begins, as SQLite requires; the ingest sorts
        // nothing large that would go there too.
        if (target_.dialect == Dialect::sqlite)
            *sql_ << "PRAGMA temp_store = MEMORY";
        return IngestBatch(std::make_unique<IngestBatch::State>(*sql_, target_));
    });
}

IngestResult FleetDb::ingest(const std::vector<IntakeReport>& reports) {
    IngestBatch batch = begin_ingest();
    for (const auto& r : reports)
        batch.store(r);  // a copy: this form is for small batches
    return batch.commit();
}

}  // namespace hugetune::fleet_db
