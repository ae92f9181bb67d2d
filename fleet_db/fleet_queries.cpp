// What the fleet database answers: the SKUs, a SKU's runs and boots, a host's SKU, the canary
// plans, and the kept answers (docs/fleet.md).
#include <soci/soci.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "fleet_db/boot_store.hpp"
#include "fleet_db/fleet_db.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "fleet_db/session_guard.hpp"
#include "fleet_db/stored_rows.hpp"
#include "model/fleet/run_digest.hpp"
#include "model/parallel.hpp"
#include "model/text.hpp"

namespace hugetune::fleet_db {
namespace {

using Kind = FleetDbError::Kind;

// Below this many verification blocks per thread, reading them on more threads costs more than
// it saves.
constexpr std::size_t kBlocksPerThread = 2048;

}  // namespace

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

namespace {

// A statement's rows handed to `take` one by one as the database gives them. SQLite steps the
// statement. PostgreSQL's client library holds a statement's whole result before it hands out
// the first row (a SKU of 100,000 hosts: every digest at once), so there a cursor fetches
// `per_fetch` rows at a time, in a read-only transaction whose snapshot the caller's other
// statements share (`read` runs inside it).
class RowStream {
  public:
    RowStream(soci::session& sql, Dialect dialect)
        : sql_(sql), pg_(dialect == Dialect::postgresql) {
        if (pg_)
            sql_ << "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";
    }
    RowStream(const RowStream&) = delete;
    RowStream& operator=(const RowStream&) = delete;
    ~RowStream() {
        if (pg_)
            try {
                sql_ << "ROLLBACK";              // it wrote nothing: ending it is all
            } catch (const soci::soci_error&) {  // the connection is gone: so is the transaction
            }
    }

    void each(const std::string& select, const std::string& key, std::size_t per_fetch,
              const std::function<void(const soci::row&)>& take) {
        if (!pg_) {
            soci::rowset<soci::row> rows = (sql_.prepare << select, soci::use(key));
            for (const auto& row : rows)
                take(row);
            return;
        }
        sql_ << "DECLARE rows_of_key NO SCROLL CURSOR FOR " + select, soci::use(key);
        const std::string fetch = "FETCH " + std::to_string(per_fetch) + " FROM rows_of_key";
        for (std::size_t got = per_fetch; got == per_fetch;) {
            got = 0;
            soci::rowset<soci::row> rows = sql_.prepare << fetch;
            for (const auto& row : rows) {
                ++got;
                take(row);
            }
        }
        sql_ << "CLOSE rows_of_key";
    }

  private:
    soci::session& sql_;
    bool pg_;
};

}  // namespace

void FleetDb::runs_of_sku(const std::string& sku_key,
                          const std::function<void(model::fleet::FleetRun&&)>& take,
                          std::size_t runs_per_batch) {
    guarded(target_, "read the runs", [&] {
        RowStream stream(*sql_, target_.dialect);
        // The verifications first (a SKU has few beside its runs), so that each run goes to
        // `take` whole as it is read and the SKU's runs are never all held here. Each block is
        // read into its typed form here, on every CPU (a SKU of 100,000 hosts has tens of
        // thousands), and held so until its run is handed out.
        std::map<std::string, std::vector<model::fleet::FleetVerification>> verifications_of;
        {
            std::vector<std::string> run_ids, keys, texts, hosts;
            soci::rowset<soci::row> blocks =
                (sql_->prepare << "SELECT CAST(v.run_id AS TEXT), r.content_hash, v.block_hash,"
                                  " v.block, h.hostname FROM verifications v"
                                  " JOIN runs r ON r.id = v.run_id JOIN hosts h ON h.id = r.host_id"
                                  " JOIN skus s ON s.id = r.sku_id WHERE s.sku_key = :k"
                                  " ORDER BY v.id",
                 soci::use(sku_key));
            for (const auto& row : blocks) {
                run_ids.push_back(row.get<std::string>(0));
                keys.push_back(verification_key(row.get<std::string>(1), row.get<std::string>(2)));
                texts.push_back(row.get<std::string>(3));
                hosts.push_back(row.get<std::string>(4));
            }
            const model::InputSource input{"SKU " + sku_key, "", true};
            std::vector<model::Verification> read(texts.size());
            // Every block read, and of those refused the first in the database's order named,
            // whichever thread came to it first.
            std::vector<std::exception_ptr> refused(texts.size());
            model::parallel_for(texts.size(), model::threads_for(texts.size(), kBlocksPerThread),
                                [&](std::size_t i) {
                                    try {
                                        read[i] = model::fleet::read_stored_verification(
                                            stored_json(texts[i], "verification", keys[i]), keys[i],
                                            hosts[i], input);
                                    } catch (...) {
                                        refused[i] = std::current_exception();
                                    }
                                    std::string().swap(texts[i]);
                                });
            for (const auto& error : refused)
                if (error)
                    std::rethrow_exception(error);
            for (std::size_t i = 0; i < read.size(); ++i)
                verifications_of[run_ids[i]].push_back({std::move(keys[i]), std::move(read[i])});
        }
        // A run's digest stands for its report; the report is read only where the digest is
        // missing or of another version (model/fleet/run_digest.hpp), as the run comes: the
        // runs' rows come a batch at a time (RowStream), and the statement that reads a report
        // runs beside the one that reads them. The digests are read a batch at a time, on
        // every CPU, the runs then handed out in order. Reading one batch while the next is
        // fetched, on a thread either way, saved no time at the same peak memory
        // (docs/measurements/fleet-answer-100k-overlap-2026-12-06.txt).
        // PostgreSQL's rows per fetch, each a run's keys without its digest
        // (tests/cli/lib/fleet.bash groups_suite reads a SKU of more than one fetch).
        constexpr std::size_t kRowsPerFetch = 512;
        std::vector<std::string> ids, digests;
        std::vector<model::fleet::FleetRun> batch;
        // A batch's digests, fetched by run id once its runs are in order: the database then
        // sorts the runs' keys, not their digests (SQLite wrote a sort of whole rows, digests
        // and all, to temporary files and read them back: docs/fleet.md "Answers kept"). The
        // ids go as one bound value: an array in PostgreSQL, a JSON array in SQLite.
        const bool pg = target_.dialect == Dialect::postgresql;
        const std::string digests_of_ids =
            pg ? "SELECT CAST(run_id AS TEXT), digest FROM run_digests"
                 " WHERE run_id = ANY (CAST(:ids AS BIGINT[]))"
               : "SELECT CAST(run_id AS TEXT), digest FROM run_digests"
                 " WHERE run_id IN (SELECT value FROM json_each(:ids))";
        const auto fetch_digests = [&] {
            digests.assign(ids.size(), "");
            // kRowsPerFetch at a time: PostgreSQL's client holds a statement's whole result.
            for (std::size_t from = 0; from < ids.size(); from += kRowsPerFetch) {
                const std::size_t to = std::min(ids.size(), from + kRowsPerFetch);
                std::string list;
                std::map<std::string, std::size_t> at;
                for (std::size_t i = from; i < to; ++i) {
                    list += (i == from ? "" : ",") + ids[i];
                    at.emplace(ids[i], i);
                }
                list = pg ? "{" + list + "}" : "[" + list + "]";
                soci::rowset<soci::row> rows = (sql_->prepare << digests_of_ids, soci::use(list));
                for (const auto& row : rows)
                    if (const auto i = at.find(row.get<std::string>(0)); i != at.end())
                        digests[i->second] = row.get<std::string>(1);
            }
        };
        const auto hand_out = [&] {
            if (batch.empty())
                return;
            fetch_digests();
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
        stream.each(
            "SELECT CAST(r.id AS TEXT), h.hostname, r.content_hash FROM runs r"
            " JOIN hosts h ON h.id = r.host_id JOIN skus s ON s.id = r.sku_id"
            " WHERE s.sku_key = :k ORDER BY h.hostname, r.generated_at, r.id",
            sku_key, kRowsPerFetch, [&](const soci::row& row) {
                batch.push_back({row.get<std::string>(1), row.get<std::string>(2), nullptr});
                ids.push_back(row.get<std::string>(0));
                if (batch.size() >= runs_per_batch)
                    hand_out();
            });
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

std::optional<KeptAnswer> FleetDb::kept_answer(const std::string& sku_key,
                                               const std::string& inputs, bool with_fit) {
    return guarded(target_, "read the kept answers", [&]() -> std::optional<KeptAnswer> {
        KeptAnswer answer;
        *sql_ << std::string("SELECT a.answer, ") + (with_fit ? "a.fit" : "''") +
                     " FROM sku_answers a JOIN skus s ON s.id = a.sku_id"
                     " WHERE s.sku_key = :k AND a.inputs = :i",
            soci::use(sku_key), soci::use(inputs), soci::into(answer.headline),
            soci::into(answer.fit);
        if (!sql_->got_data())
            return std::nullopt;
        return answer;
    });
}

bool FleetDb::keep_answer(const std::string& sku_key, const std::string& inputs,
                          const KeptAnswer& answer) {
    // A reader must not queue behind an ingest for SQLite's write lock: it tries once.
    const bool sqlite = target_.dialect == Dialect::sqlite;
    try {
        if (sqlite)
            *sql_ << "PRAGMA busy_timeout = 0";
        *sql_ << "INSERT INTO sku_answers (sku_id, inputs, answer, fit)"
                 " SELECT id, :i, :a, :f FROM skus WHERE sku_key = :k"
                 " ON CONFLICT (sku_id) DO UPDATE SET inputs = excluded.inputs,"
                 " answer = excluded.answer, fit = excluded.fit",
            soci::use(inputs), soci::use(answer.headline), soci::use(answer.fit),
            soci::use(sku_key);
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
