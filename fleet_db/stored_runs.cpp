// The stored runs as people list and forget them (`fleet runs`, `fleet forget`): selected by
// the table's columns, never by reading the reports (docs/fleet.md "Listing and forgetting").
#include <algorithm>
#include <cassert>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "fleet_db/fleet_db.hpp"
#include "fleet_db/fleet_db_error.hpp"
#include "fleet_db/session_guard.hpp"
#include "model/text.hpp"

namespace hugetune::fleet_db {
namespace {

// Every selector is bound, an absent one as its flag 0, so one statement serves every choice.
constexpr const char* kSelected =
    " JOIN hosts h ON h.id = r.host_id JOIN skus s ON s.id = r.sku_id"
    " WHERE (:hf = 0 OR h.hostname = :h) AND (:sf = 0 OR s.sku_key = :s)"
    " AND (:bf = 0 OR r.generated_at < :b) AND (:kf = 0 OR r.kernel_release = :k)"
    " AND (:tf = 0 OR r.tool_version = :t)";

struct Bound {
    int host_on = 0, sku_on = 0, before_on = 0, kernel_on = 0, tool_on = 0;
    std::string host, sku, before, kernel, tool;
};

Bound bound(const RunSelection& s) {
    Bound b;
    const auto set = [](const std::optional<std::string>& from, int& on, std::string& to) {
        on = from ? 1 : 0;
        to = from.value_or("");
    };
    set(s.host, b.host_on, b.host);
    set(s.sku, b.sku_on, b.sku);
    set(s.before, b.before_on, b.before);
    set(s.kernel_release, b.kernel_on, b.kernel);
    set(s.tool_version, b.tool_on, b.tool);
    return b;
}

// "SELECT <columns> FROM <from>" of the selected runs' rows, in `order`; `from` names the
// runs `r`.
soci::rowset<soci::row> select(soci::session& sql, const std::string& columns,
                               const std::string& from, const std::string& order, const Bound& b) {
    return (sql.prepare << "SELECT " + columns + " FROM " + from + kSelected + " ORDER BY " + order,
            soci::use(b.host_on), soci::use(b.host), soci::use(b.sku_on), soci::use(b.sku),
            soci::use(b.before_on), soci::use(b.before), soci::use(b.kernel_on),
            soci::use(b.kernel), soci::use(b.tool_on), soci::use(b.tool));
}

std::optional<std::string> optional_text(const soci::row& row, std::size_t at) {
    if (row.get_indicator(at) != soci::i_ok)
        return std::nullopt;
    return row.get<std::string>(at);
}

std::vector<std::string> split_codes(const std::string& text) {
    std::vector<std::string> codes;
    for (const std::string_view code : comma_items(text))
        codes.emplace_back(code);
    return codes;
}

struct SelectedRun {
    long long id = 0, host_id = 0, sku_id = 0;
    StoredRun run;
};

struct SelectedVerification {
    long long id = 0, run_id = 0, sku_id = 0;
    std::string sku;
    StoredVerification verification;
};

// The id columns as text: an INTEGER in SQLite and a BIGINT in PostgreSQL come back as
// different C++ types.
long long id_column(const soci::row& row, std::size_t at) {
    return std::stoll(row.get<std::string>(at));
}

StoredVerification verification_of(const soci::row& row, std::size_t run_key_at) {
    StoredVerification v;
    v.key =
        verification_key(row.get<std::string>(run_key_at), row.get<std::string>(run_key_at + 1));
    v.boot_id = optional_text(row, run_key_at + 2);
    v.verified = row.get<std::string>(run_key_at + 3) == "1";
    if (row.get_indicator(run_key_at + 4) == soci::i_ok)
        v.ratio = row.get<double>(run_key_at + 4);
    return v;
}

constexpr const char* kVerificationColumns =
    "r.content_hash, v.block_hash, v.boot_id, CAST(v.verified AS TEXT), v.ratio";

// The selected runs, by host then time, each with its verifications.
std::vector<SelectedRun> selected_runs(soci::session& sql, const RunSelection& selection) {
    const Bound b = bound(selection);
    std::vector<SelectedRun> runs;
    std::map<long long, std::size_t> index_of;
    soci::rowset<soci::row> rows =
        select(sql,
               "CAST(r.id AS TEXT), CAST(r.host_id AS TEXT), CAST(r.sku_id AS TEXT),"
               " r.content_hash, h.hostname, s.sku_key, r.generated_at, r.tool_version,"
               " r.kernel_release, r.warnings",
               "runs r", "h.hostname, r.generated_at, r.id", b);
    for (const auto& row : rows) {
        SelectedRun s;
        s.id = id_column(row, 0);
        s.host_id = id_column(row, 1);
        s.sku_id = id_column(row, 2);
        s.run.run_key = row.get<std::string>(3);
        s.run.host = row.get<std::string>(4);
        s.run.sku = row.get<std::string>(5);
        s.run.generated_at = row.get<std::string>(6);
        s.run.tool_version = row.get<std::string>(7);
        s.run.kernel_release = optional_text(row, 8);
        s.run.warning_codes = split_codes(row.get<std::string>(9));
        index_of[s.id] = runs.size();
        runs.push_back(std::move(s));
    }
    soci::rowset<soci::row> verifications =
        select(sql, std::string("CAST(v.run_id AS TEXT), ") + kVerificationColumns,
               "verifications v JOIN runs r ON r.id = v.run_id", "v.id", b);
    for (const auto& row : verifications)
        if (const auto at = index_of.find(id_column(row, 0)); at != index_of.end())
            runs[at->second].run.verifications.push_back(verification_of(row, 1));
    return runs;
}

int count_of(soci::session& sql, const std::string& select, long long id) {
    int n = 0;
    sql << select, soci::use(id), soci::into(n);
    return n;
}

// Ingests and forgets take turns (as SQLite's write lock makes them on SQLite): a report of a
// host being forgotten is stored after, or forgotten with it.
void take_write_turn(soci::session& sql, Dialect dialect) {
    if (dialect != Dialect::postgresql)
        return;
    int one = 0;
    sql << "SELECT 1 FROM (SELECT pg_advisory_xact_lock(4712)) AS l", soci::into(one);
}

int count_of_text(soci::session& sql, const std::string& select, const std::string& value) {
    int n = 0;
    sql << select, soci::use(value), soci::into(n);
    return n;
}

// The boot records a run selection names: every selector given, as a WHERE clause of four
// parameters (host, SKU, time, kernel; one not given matches all). `any` is false when a
// selector no boot has (a tool version) is given.
struct BootSelection {
    bool any = true;
    std::string where, host, sku, before, kernel;
};

BootSelection boot_selection(const RunSelection& s) {
    BootSelection b;
    b.any = !s.tool_version.has_value();
    b.host = s.host.value_or("");
    b.sku = s.sku.value_or("");
    b.before = s.before.value_or("");
    b.kernel = s.kernel_release.value_or("");
    b.where =
        " WHERE (:h = '' OR host = :h2) AND (:s = '' OR sku_key = :s2) AND"
        " (:b = '' OR recorded_at < :b2) AND (:k = '' OR kernel_release = :k2)";
    return b;
}

// `statement` (one id bound) prepared once, run for each id.
void delete_each(soci::session& sql, const std::string& statement,
                 const std::vector<long long>& ids) {
    long long id = 0;
    soci::statement st = (sql.prepare << statement, soci::use(id));
    for (const long long each : ids) {
        id = each;
        st.execute(true);
    }
}

}  // namespace

std::string verification_key(const std::string& run_key, const std::string& block_hash) {
    return run_key + ":" + block_hash;
}

std::vector<StoredRun> FleetDb::list_runs(const RunSelection& selection) {
    return guarded(target_, "read the runs", [&] {
        std::vector<StoredRun> runs;
        for (auto& s : selected_runs(*sql_, selection))
            runs.push_back(std::move(s.run));
        return runs;
    });
}

ForgetResult FleetDb::forget_runs(const RunSelection& selection, bool dry_run) {
    assert(selection.host || selection.sku || selection.before || selection.kernel_release ||
           selection.tool_version);
    return guarded(target_, dry_run ? "read the runs" : "forget", [&] {
        std::optional<Transaction> t;
        if (!dry_run) {
            t.emplace(*sql_, target_.dialect);
            take_write_turn(*sql_, target_.dialect);
        }
        const std::vector<SelectedRun> runs = selected_runs(*sql_, selection);
        ForgetResult out;
        std::vector<long long> run_ids;
        std::map<long long, std::pair<std::string, int>> hosts, skus;  // id: name, runs selected
        for (const auto& s : runs) {
            run_ids.push_back(s.id);
            out.runs.push_back(s.run);
            for (const auto& v : s.run.verifications)
                out.verifications.push_back(v);
            auto& host = hosts[s.host_id];
            host = {s.run.host, host.second + 1};
            auto& sku = skus[s.sku_id];
            sku = {s.run.sku, sku.second + 1};
        }
        std::vector<long long> hosts_gone, skus_gone, skus_touched;
        std::set<std::string> host_names, sku_names, answer_names;
        for (const auto& [id, host] : hosts)
            if (count_of(*sql_, "SELECT COUNT(*) FROM runs WHERE host_id = :h", id) ==
                host.second) {
                hosts_gone.push_back(id);
                host_names.insert(host.first);
            }
        for (const auto& [id, sku] : skus) {
            skus_touched.push_back(id);
            if (count_of(*sql_, "SELECT COUNT(*) FROM runs WHERE sku_id = :s", id) == sku.second) {
                skus_gone.push_back(id);
                sku_names.insert(sku.first);
            }
            if (count_of(*sql_, "SELECT COUNT(*) FROM sku_answers WHERE sku_id = :s", id) > 0)
                answer_names.insert(sku.first);
        }
        out.hosts.assign(host_names.begin(), host_names.end());
        out.skus.assign(sku_names.begin(), sku_names.end());
        out.answers_dropped.assign(answer_names.begin(), answer_names.end());
        // The boots the same selectors name (a boot has no tool version: that selector names
        // none), and the open plans of the SKUs left without runs, or of the SKU named.
        const BootSelection boots = boot_selection(selection);
        if (boots.any) {
            soci::statement count =
                (sql_->prepare << "SELECT COUNT(*) FROM boot_records" + boots.where,
                 soci::use(boots.host), soci::use(boots.host), soci::use(boots.sku),
                 soci::use(boots.sku), soci::use(boots.before), soci::use(boots.before),
                 soci::use(boots.kernel), soci::use(boots.kernel), soci::into(out.boot_records));
            count.execute(true);
        }
        std::set<std::string> plan_skus(sku_names);
        if (selection.sku)
            plan_skus.insert(*selection.sku);
        for (const auto& sku : plan_skus)
            if (count_of_text(*sql_,
                              "SELECT COUNT(*) FROM canary_plans WHERE sku_key = :k AND"
                              " ended_at IS NULL",
                              sku) > 0)
                out.plans_ended.push_back(sku);
        if (dry_run)
            return out;
        if (boots.any) {
            soci::statement gone =
                (sql_->prepare << "DELETE FROM boot_records" + boots.where, soci::use(boots.host),
                 soci::use(boots.host), soci::use(boots.sku), soci::use(boots.sku),
                 soci::use(boots.before), soci::use(boots.before), soci::use(boots.kernel),
                 soci::use(boots.kernel));
            gone.execute(true);
        }
        for (const auto& sku : out.plans_ended) {
            const std::string reason = "forgotten",
                              at = iso8601_utc(std::chrono::system_clock::now());
            *sql_ << "UPDATE canary_plans SET ended_at = :t, end_reason = :r WHERE sku_key = :k"
                     " AND ended_at IS NULL",
                soci::use(at), soci::use(reason), soci::use(sku);
        }
        // Each row before the rows it refers to.
        delete_each(*sql_, "DELETE FROM verifications WHERE run_id = :r", run_ids);
        delete_each(*sql_, "DELETE FROM run_digests WHERE run_id = :r", run_ids);
        delete_each(*sql_, "DELETE FROM runs WHERE id = :r", run_ids);
        delete_each(*sql_, "DELETE FROM sku_answers WHERE sku_id = :s", skus_touched);
        delete_each(*sql_, "DELETE FROM hosts WHERE id = :h", hosts_gone);
        delete_each(*sql_, "DELETE FROM skus WHERE id = :s", skus_gone);
        t->commit();
        return out;
    });
}

ForgetResult FleetDb::forget_verification(const std::string& key, bool dry_run) {
    return guarded(target_, dry_run ? "read the verifications" : "forget", [&] {
        std::optional<Transaction> t;
        if (!dry_run) {
            t.emplace(*sql_, target_.dialect);
            take_write_turn(*sql_, target_.dialect);
        }
        const auto colon = key.find(':');
        const std::string run_key = key.substr(0, colon);
        const std::string rest = colon == std::string::npos ? "" : key.substr(colon + 1);
        std::vector<SelectedVerification> found;
        soci::rowset<soci::row> rows =
            (sql_->prepare << std::string("SELECT CAST(v.id AS TEXT), CAST(r.sku_id AS TEXT),"
                                          " s.sku_key, ") +
                                  kVerificationColumns +
                                  " FROM verifications v JOIN runs r ON r.id = v.run_id"
                                  " JOIN skus s ON s.id = r.sku_id WHERE r.content_hash = :r"
                                  " AND (v.block_hash = :x OR v.boot_id = :b) ORDER BY v.id",
             soci::use(run_key), soci::use(rest), soci::use(rest));
        for (const auto& row : rows)
            found.push_back({id_column(row, 0), 0, id_column(row, 1), row.get<std::string>(2),
                             verification_of(row, 3)});
        if (found.empty())
            throw FleetDbError(FleetDbError::Kind::usage,
                               Flag{"verification"} + ": no verification '" + key +
                                   "' in the database; 'hugetune fleet runs' lists each one's key");
        if (found.size() > 1)
            throw FleetDbError(FleetDbError::Kind::usage,
                               Flag{"verification"} + ": '" + key + "' names " +
                                   std::to_string(found.size()) +
                                   " verifications (one boot verified more than once); give "
                                   "one's key as 'hugetune fleet runs' prints it");
        const SelectedVerification& v = found.front();
        ForgetResult out;
        out.verifications.push_back(v.verification);
        if (count_of(*sql_, "SELECT COUNT(*) FROM sku_answers WHERE sku_id = :s", v.sku_id) > 0)
            out.answers_dropped.push_back(v.sku);
        if (dry_run)
            return out;
        delete_each(*sql_, "DELETE FROM verifications WHERE id = :v", {v.id});
        delete_each(*sql_, "DELETE FROM sku_answers WHERE sku_id = :s", {v.sku_id});
        t->commit();
        return out;
    });
}

}  // namespace hugetune::fleet_db
