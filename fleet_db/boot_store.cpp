#include "fleet_db/boot_store.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <type_traits>
#include <utility>

#include "fleet_db/migrations.hpp"
#include "fleet_db/pg_copy.hpp"
#include "fleet_db/session_guard.hpp"
#include "model/documents/boot_record.hpp"
#include "model/fleet/canary.hpp"
#include "model/fleet/fleet.hpp"
#include "model/statistics.hpp"

namespace hugetune::fleet_db::storage {

// A boot record's columns (migration 9), bound by reference to the statement that inserts it.
struct BootRow {
    std::string boot_key, host, sku_key, boot_id, kernel_release, absent_code, recorded_at, record;
    long long pool_pages = 0, page_size_kb = 0, milliseconds = 0;
    int threads = 0, line_present = 0, init_on_alloc = 0, hvo = 0, expected_threads = 0;
    soci::indicator host_ind = soci::i_ok, sku_ind = soci::i_ok, boot_id_ind = soci::i_ok,
                    kernel_ind = soci::i_ok, pool_ind = soci::i_ok, threads_ind = soci::i_ok,
                    ms_ind = soci::i_ok, absent_ind = soci::i_ok, ioa_ind = soci::i_ok,
                    hvo_ind = soci::i_ok, expected_ind = soci::i_ok;
};

namespace {

template <typename T, typename V>
void set_column(T& column, soci::indicator& ind, const std::optional<V>& value) {
    ind = value ? soci::i_ok : soci::i_null;
    column = value ? static_cast<T>(*value) : T{};
}

void bind_boot(BootRow& row, const IntakeBoot& boot) {
    const model::BootRecord& r = boot.record;
    row.boot_key = boot.boot_key;
    row.record = boot.document;
    row.recorded_at = r.recorded_at;
    set_column(row.host, row.host_ind, r.host);
    set_column(row.sku_key, row.sku_ind,
               r.sku ? std::optional<std::string>(model::fleet::to_string(*r.sku)) : std::nullopt);
    set_column(row.boot_id, row.boot_id_ind, r.boot_id);
    set_column(row.kernel_release, row.kernel_ind, r.kernel_release);
    set_column(row.pool_pages, row.pool_ind,
               r.pool ? std::optional<std::uint64_t>(r.pool->pages) : std::nullopt);
    row.page_size_kb = r.pool ? static_cast<long long>(r.pool->page_size_kb) : 0;
    set_column(row.threads, row.threads_ind, r.threads);
    set_column(row.milliseconds, row.ms_ind, r.milliseconds);
    row.line_present = r.allocation_line.present ? 1 : 0;
    set_column(row.absent_code, row.absent_ind,
               r.allocation_line.absent_reason
                   ? std::optional<std::string>(r.allocation_line.absent_reason->code)
                   : std::nullopt);
    set_column(row.init_on_alloc, row.ioa_ind, r.init_on_alloc);
    set_column(row.hvo, row.hvo_ind, r.hvo);
    set_column(row.expected_threads, row.expected_ind, r.expected_threads);
}

// The conflict target is the boot's own key: a record counts as stored before only where a row
// of its key is. On PostgreSQL through the function the boot writer role may call (migration
// 13), which returns 1 for a record added; SQLite has no roles.
soci::statement prepare_boot_insert(soci::session& sql, Dialect dialect, BootRow& row, int& added,
                                    soci::indicator& added_ind) {
    const std::string values =
        "(:key, :host, :sku, :boot, :kernel, :pages, :page_kb, :threads, :ms, :present, :absent,"
        " :ioa, :hvo, :expected, :at, :record)";
    // SQLite's row says itself whether a report names its host, as the trigger that puts a
    // wrong mark right after the insert would (migration 18): then that trigger writes nothing.
    // PostgreSQL's trigger sets the mark before the row is written.
    const std::string text = dialect == Dialect::postgresql
                                 ? std::string("SELECT ") + kAddBootRecordFunction + values
                                 : std::string("INSERT INTO boot_records (") + kBootColumns +
                                       ", reported) VALUES " + values.substr(0, values.size() - 1) +
                                       ", " + boot_reported_sql(":host", ":sku") +
                                       ") ON CONFLICT (boot_key) DO NOTHING RETURNING 1";
    // SQLite binds a name that appears twice once (:host, :sku).
    return (sql.prepare << text, soci::into(added, added_ind), soci::use(row.boot_key),
            soci::use(row.host, row.host_ind), soci::use(row.sku_key, row.sku_ind),
            soci::use(row.boot_id, row.boot_id_ind), soci::use(row.kernel_release, row.kernel_ind),
            soci::use(row.pool_pages, row.pool_ind), soci::use(row.page_size_kb),
            soci::use(row.threads, row.threads_ind), soci::use(row.milliseconds, row.ms_ind),
            soci::use(row.line_present), soci::use(row.absent_code, row.absent_ind),
            soci::use(row.init_on_alloc, row.ioa_ind), soci::use(row.hvo, row.hvo_ind),
            soci::use(row.expected_threads, row.expected_ind), soci::use(row.recorded_at),
            soci::use(row.record));
}

template <typename T>
void copy_field(std::string& out, const T& value, soci::indicator ind, bool last = false) {
    if (ind == soci::i_null)
        copy_null(out, last);
    else if constexpr (std::is_same_v<T, std::string>)
        copy_column(out, std::string_view(value), last);
    else
        copy_column(out, static_cast<long long>(value), last);
}

void copy_row(std::string& out, long long seq, const BootRow& r) {
    copy_field(out, seq, soci::i_ok);
    copy_field(out, r.boot_key, soci::i_ok);
    copy_field(out, r.host, r.host_ind);
    copy_field(out, r.sku_key, r.sku_ind);
    copy_field(out, r.boot_id, r.boot_id_ind);
    copy_field(out, r.kernel_release, r.kernel_ind);
    copy_field(out, r.pool_pages, r.pool_ind);
    copy_field(out, r.page_size_kb, soci::i_ok);
    copy_field(out, r.threads, r.threads_ind);
    copy_field(out, r.milliseconds, r.ms_ind);
    copy_field(out, r.line_present, soci::i_ok);
    copy_field(out, r.absent_code, r.absent_ind);
    copy_field(out, r.init_on_alloc, r.ioa_ind);
    copy_field(out, r.hvo, r.hvo_ind);
    copy_field(out, r.expected_threads, r.expected_ind);
    copy_field(out, r.recorded_at, soci::i_ok);
    copy_field(out, r.record, soci::i_ok, true);
}

// One record's outcome in the result: by name for a file of its own, counted per file for the
// lines of a JSON Lines file.
void file_boot(IngestResult& result, const std::string& name, std::size_t line, bool added) {
    if (line == 0) {
        (added ? result.boots_added : result.boots_skipped).push_back(name);
        return;
    }
    if (result.boot_lines.empty() || result.boot_lines.back().file != name)
        result.boot_lines.push_back({name, 0, 0});
    ++(added ? result.boot_lines.back().added : result.boot_lines.back().stored_before);
}

}  // namespace

bool insert_boot_record(soci::session& sql, Dialect dialect, const IntakeBoot& boot) {
    BootRow row;
    bind_boot(row, boot);
    int added = 0;
    soci::indicator added_ind = soci::i_null;
    soci::statement st = prepare_boot_insert(sql, dialect, row, added, added_ind);
    return st.execute(true) && added_ind == soci::i_ok && added == 1;
}

struct BootStore::State {
    State(soci::session& s, Dialect d, IngestResult& r) : sql(s), dialect(d), result(r) {}
    soci::session& sql;
    Dialect dialect;
    IngestResult& result;
    BootRow row;
    std::optional<soci::statement> insert;  // SQLite's, prepared at the first record
    int added = 0;
    soci::indicator added_ind = soci::i_null;
    // PostgreSQL's: the rows gathered for the next COPY, and who they are.
    struct Pending {
        std::string boot_key, name;
        std::size_t line = 0;
    };
    std::string rows;
    std::vector<Pending> pending;
    long long seq = 0;
    bool table_made = false;
    std::size_t copied = 0;
};

BootStore::BootStore(soci::session& sql, Dialect dialect, IngestResult& result)
    : state_(std::make_unique<State>(sql, dialect, result)) {}

BootStore::~BootStore() = default;

void BootStore::store(const IntakeBoot& boot) {
    State& s = *state_;
    bind_boot(s.row, boot);
    if (s.dialect == Dialect::sqlite) {
        if (!s.insert)
            s.insert.emplace(prepare_boot_insert(s.sql, s.dialect, s.row, s.added, s.added_ind));
        s.added_ind = soci::i_null;
        const bool row = s.insert->execute(true);
        file_boot(s.result, boot.name, boot.line, row && s.added_ind == soci::i_ok);
        return;
    }
    copy_row(s.rows, ++s.seq, s.row);
    s.pending.push_back({boot.boot_key, boot.name, boot.line});
    if (s.pending.size() >= kBootCopyRows)
        flush();
}

void BootStore::flush() {
    State& s = *state_;
    if (s.pending.empty())
        return;
    if (!s.table_made) {
        // Dropped with the transaction; its columns are boot_records' and the order they came.
        s.sql << "CREATE TEMPORARY TABLE boot_intake (seq BIGINT, boot_key TEXT, host TEXT,"
                 " sku_key TEXT, boot_id TEXT, kernel_release TEXT, pool_pages BIGINT,"
                 " page_size_kb BIGINT, threads INTEGER, milliseconds BIGINT,"
                 " line_present INTEGER, absent_code TEXT, init_on_alloc INTEGER, hvo INTEGER,"
                 " expected_threads INTEGER, recorded_at TEXT, record TEXT) ON COMMIT DROP";
        s.table_made = true;
    }
    copy_in(s.sql, std::string("COPY boot_intake (seq, ") + kBootColumns + ") FROM STDIN", s.rows,
            "boot records");
    s.copied += s.pending.size();
    std::set<std::string> added;
    {
        soci::rowset<std::string> keys =
            (s.sql.prepare << std::string("INSERT INTO boot_records (") + kBootColumns +
                                  ") SELECT " + kBootColumns +
                                  " FROM boot_intake ORDER BY seq ON CONFLICT (boot_key) DO"
                                  " NOTHING RETURNING boot_key");
        for (const auto& key : keys)
            added.insert(key);
    }
    s.sql << "TRUNCATE boot_intake";
    // Of one boot twice in the batch, the first is the one added.
    for (const auto& p : s.pending)
        file_boot(s.result, p.name, p.line, added.erase(p.boot_key) > 0);
    s.pending.clear();
    s.rows.clear();
}

namespace {

// The boots a SKU's statistics count, and of them the group compared (its kernel releases and
// HVO setting): a statement's text and its values, bound in the order they appear.
struct BootQuery {
    std::string aliases;   // bound first where the boots' names are joined (BootSource)
    std::string sku_key;   // bound next: the SKU's boots
    bool grouped = false;  // the group's condition follows the counted boots' (BootSource)
    int hvo = -1;          // -1 unknown, 0 off, 1 on
    std::vector<std::string> releases;
    std::string where;
    std::string host = "host";  // a boot's host, as the statement names it

    void bind(soci::statement& st) {
        if (!aliases.empty())
            st.exchange(soci::use(aliases));
        st.exchange(soci::use(sku_key));
        if (!grouped)
            return;
        st.exchange(soci::use(hvo));
        for (auto& release : releases)
            st.exchange(soci::use(release));
    }
};

// The memory PostgreSQL may sort a SKU's boots in (work_mem) before it spills to disk.
constexpr int kTallyWorkMemMb = 64;

// A SKU's boots with the kernel's line: the condition, and a statement's WHERE of it.
constexpr const char* kSkuLineBoots =
    " sku_key = :k AND line_present = 1 AND host IS NOT NULL AND threads >= 1 AND"
    " milliseconds IS NOT NULL AND pool_pages > 0";
std::string line_boots_where() {
    return std::string(" WHERE") + kSkuLineBoots;
}

std::string not_in_vm() {
    return " AND COALESCE(virtualization, '" + std::string(model::kBareMetal) + "') = '" +
           std::string(model::kBareMetal) + "'";
}
std::string in_vm() {
    return " AND virtualization <> '" + std::string(model::kBareMetal) + "'";
}

// The boots of the hosts a SKU's reports name, under their hosts' names (model/fleet/
// boot_hosts.hpp): a boot under a name a report carries is that name's; where some names are
// another host's (a short name and its FQDN, one machine reported under two names) or
// ambiguous, those names are joined in with their hosts (a JSON object, `aliases`), null where
// ambiguous, and a boot under any of them is its host's.
struct BootSource {
    std::string aliases;  // empty: every name counted is its own host's
    std::string sku_key;
    std::string from;       // " FROM ... WHERE ..." of the boots counted, VMs among them
    std::string ambiguous;  // the same of the boots under an ambiguous name
    std::string host = "host";

    // The boots whose hosts a report of the SKU names (boot_records.reported, which the
    // database keeps: migration 18) are one range of the tally's index.
    BootSource(Dialect dialect, std::string sku, std::string joined)
        : aliases(std::move(joined)), sku_key(std::move(sku)) {
        if (aliases.empty()) {
            from = " FROM boot_records" + line_boots_where() + " AND reported = 1";
            return;
        }
        const std::string names = dialect == Dialect::postgresql
                                      ? " (SELECT key AS name, value AS machine FROM"
                                        " json_each_text(CAST(:a AS json))) a ON a.name = host"
                                      : " (SELECT key AS name, value AS machine FROM"
                                        " json_each(:a)) a ON a.name = host";
        const std::string boots = std::string(" AND") + kSkuLineBoots;
        from = " FROM boot_records LEFT JOIN" + names +
               " WHERE (a.machine IS NOT NULL OR (a.name IS NULL AND reported = 1))" + boots;
        ambiguous = " FROM boot_records JOIN" + names + " WHERE a.machine IS NULL" + boots;
        host = "COALESCE(a.machine, host)";
    }

    // Of those, the boots that count: on bare metal, or not known to be in a virtual machine (a
    // record of before records said it). Where the answer accepts reports measured in virtual
    // machines (its SKU is one of VMs), their boots count too, and none is set aside.
    BootQuery counted(bool virtual_machines_count) const {
        return query(virtual_machines_count ? from : from + not_in_vm(), host);
    }
    BootQuery virtual_machines() const { return query(from + in_vm(), host); }
    // Under each ambiguous name as it is.
    BootQuery ambiguous_names() const { return query(ambiguous, "host"); }

  private:
    BootQuery query(std::string where, std::string host_of) const {
        BootQuery q;
        q.aliases = aliases;
        q.sku_key = sku_key;
        q.where = std::move(where);
        q.host = std::move(host_of);
        return q;
    }
};

// Rows fetched this many at a time into vectors: one round trip per batch, and memory of one
// batch, whatever the SKU's count of boots.
constexpr std::size_t kFetchRows = 10000;

template <typename... Columns>
void resize_all(Columns&... columns) {
    (columns.resize(kFetchRows), ...);
}

// Runs `select` + the group's condition + `tail`, calling `each(i)` for every row of every
// batch fetched into `columns`.
template <typename F, typename... Columns>
void fetch_rows(soci::session& sql, BootQuery& q, const std::string& select,
                const std::string& tail, F&& each, std::vector<Columns>&... columns) {
    resize_all(columns...);
    soci::statement st(sql);
    q.bind(st);
    (st.exchange(soci::into(columns)), ...);
    st.alloc();
    st.prepare(select + q.where + tail);
    st.define_and_bind();
    st.execute(false);
    while (st.fetch()) {
        const std::size_t n = std::get<0>(std::tie(columns...)).size();
        for (std::size_t i = 0; i < n; ++i)
            each(i);
        resize_all(columns...);
    }
}

// PostgreSQL: each host's median per value and each value's median pool by the server's own
// percentile_cont; one row per host and value comes back, not one per boot. Hosts are grouped
// by their bytes (COLLATE "C"), not by the database's collation, which sorts slower and is not
// what the client's tally compares.
void tally_in_server(soci::session& sql, BootQuery& q, model::fleet::BootTally& t) {
    std::vector<int> threads;
    std::vector<std::string> hosts;
    std::vector<long long> boots;
    std::vector<double> medians;
    fetch_rows(
        sql, q,
        "SELECT threads, " + q.host +
            " COLLATE \"C\", COUNT(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY"
            " CAST(milliseconds AS DOUBLE PRECISION) * 1000 / CAST(pool_pages AS DOUBLE"
            " PRECISION))",
        " GROUP BY threads, " + q.host + " COLLATE \"C\" ORDER BY threads",
        [&](std::size_t i) {
            t.host_medians.push_back(
                {std::move(hosts[i]), threads[i], static_cast<int>(boots[i]), medians[i]});
        },
        threads, hosts, boots, medians);
    std::vector<double> pools;
    fetch_rows(
        sql, q,
        "SELECT threads, percentile_cont(0.5) WITHIN GROUP (ORDER BY"
        " CAST(pool_pages AS DOUBLE PRECISION))",
        " GROUP BY threads ORDER BY threads",
        [&](std::size_t i) { t.pool_pages.emplace_back(threads[i], pools[i]); }, threads, pools);
}

// SQLite: the boots in value and host order, each host's and each value's reduced as soon as
// the next begins; only one value's pools are held at a time.
void tally_streamed(soci::session& sql, BootQuery& q, model::fleet::BootTally& t) {
    std::vector<int> threads;
    std::vector<std::string> hosts;
    std::vector<long long> milliseconds, pages;
    std::vector<double> host_values, value_pools;
    model::fleet::HostBootMedian current;
    const auto end_host = [&] {
        if (host_values.empty())
            return;
        current.boots = static_cast<int>(host_values.size());
        current.ms_per_1000_pages = model::quantile(host_values, 0.5);
        t.host_medians.push_back(std::move(current));
        host_values.clear();
    };
    const auto end_value = [&] {
        end_host();
        if (!value_pools.empty())
            t.pool_pages.emplace_back(current.threads, model::quantile(value_pools, 0.5));
        value_pools.clear();
    };
    fetch_rows(
        sql, q, "SELECT threads, " + q.host + ", milliseconds, pool_pages",
        " ORDER BY threads, " + q.host,
        [&](std::size_t i) {
            if (threads[i] != current.threads || value_pools.empty())
                end_value();
            else if (hosts[i] != current.host)
                end_host();
            current.threads = threads[i];
            if (host_values.empty())
                current.host = hosts[i];
            host_values.push_back(static_cast<double>(milliseconds[i]) * 1000.0 /
                                  static_cast<double>(pages[i]));
            value_pools.push_back(static_cast<double>(pages[i]));
        },
        threads, hosts, milliseconds, pages);
    end_value();
}

// Every value the SKU's canary plans tried, open or ended.
std::vector<int> plan_values(soci::session& sql, const std::string& sku_key) {
    std::vector<int> out;
    soci::rowset<std::string> rows =
        (sql.prepare << "SELECT arm_values FROM canary_plans WHERE sku_key = :k",
         soci::use(sku_key));
    for (const auto& values : rows)
        for (const int v : model::fleet::arm_values_of(values))
            out.push_back(v);
    return out;
}

// The names the SKU's boots are under that are not their own host's, as BootSource joins them
// in: those the reports carry joined into another host (or ambiguous), and those no report
// carries that BootHosts places all the same (a short name, its FQDN). Empty when none.
std::string joined_names(soci::session& sql, const std::string& sku_key,
                         const model::fleet::BootHosts& hosts) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, host] : hosts.joined())
        out[name] = host ? nlohmann::json(*host) : nlohmann::json(nullptr);
    BootQuery q;
    q.sku_key = sku_key;
    q.where = " FROM boot_records" + line_boots_where() + " AND reported = 0";
    std::vector<std::string> names;
    fetch_rows(
        sql, q, "SELECT DISTINCT host", "",
        [&](std::size_t i) {
            const auto of = hosts.of(names[i]);
            if (of.kind == model::fleet::BootHost::Kind::host)
                out[names[i]] = of.host;
            else if (of.kind == model::fleet::BootHost::Kind::ambiguous)
                out[names[i]] = nullptr;
        },
        names);
    return out.empty() ? std::string() : out.dump();
}

// The counted boots by host, kernel release and HVO setting, one row each: the hosts of each
// family, and (summed over the hosts) the boots of each release and setting, ordered as
// model::fleet::tally_boots orders them.
void tally_groups_and_families(soci::session& sql, BootQuery& q, model::fleet::BootTally& t) {
    std::vector<std::string> hosts, releases, hvos;
    std::vector<long long> boots;
    model::fleet::BootFamilyCounter families;
    std::map<std::pair<std::string, int>, long long> groups;
    fetch_rows(
        sql, q,
        "SELECT " + q.host +
            ", COALESCE(kernel_release, ''), COALESCE(CAST(hvo AS TEXT), ''), COUNT(*)",
        " GROUP BY " + q.host + ", kernel_release, hvo ORDER BY 1",
        [&](std::size_t i) {
            const std::optional<bool> hvo =
                hvos[i].empty() ? std::nullopt : std::optional<bool>(hvos[i] == "1");
            families.add(hosts[i], releases[i], hvo);
            groups[{releases[i], hvo ? (*hvo ? 1 : 0) : -1}] += boots[i];
        },
        hosts, releases, hvos, boots);
    t.families = families.families();
    for (const auto& [key, count] : groups)
        t.groups.push_back({key.first,
                            key.second < 0 ? std::nullopt : std::optional<bool>(key.second == 1),
                            static_cast<int>(count)});
}

std::vector<model::fleet::SetAsideBoots> tally_set_aside(soci::session& sql, BootQuery q) {
    std::vector<model::fleet::SetAsideBoots> out;
    std::vector<int> threads;
    std::vector<long long> hosts, boots;
    fetch_rows(
        sql, q, "SELECT threads, COUNT(DISTINCT " + q.host + "), COUNT(*)",
        " GROUP BY threads ORDER BY threads",
        [&](std::size_t i) {
            out.push_back({threads[i], static_cast<int>(hosts[i]), static_cast<int>(boots[i])});
        },
        threads, hosts, boots);
    return out;
}

}  // namespace

std::string line_boots_condition() {
    return " FROM boot_records" + line_boots_where() + not_in_vm();
}

std::size_t BootStore::copied() const {
    return state_->copied;
}

model::fleet::BootTally tally_stored_boots(soci::session& sql, Dialect dialect,
                                           const std::string& sku_key,
                                           const model::fleet::BootHosts& hosts,
                                           bool virtual_machines_count) {
    std::optional<Transaction> read;
    if (dialect == Dialect::postgresql) {
        // One snapshot for every statement, and room to sort a SKU's boots in memory rather
        // than on disk (work_mem's default is 4 MB): for this transaction only.
        read.emplace(sql, dialect);
        sql << "SET LOCAL work_mem = '" + std::to_string(kTallyWorkMemMb) + "MB'";
    }
    const BootSource source(dialect, sku_key, joined_names(sql, sku_key, hosts));
    model::fleet::BootTally t;
    BootQuery q = source.counted(virtual_machines_count);
    tally_groups_and_families(sql, q, t);
    if (!virtual_machines_count)
        t.virtual_boots = tally_set_aside(sql, source.virtual_machines());
    if (!source.aliases.empty())
        t.ambiguous_boots = tally_set_aside(sql, source.ambiguous_names());
    t.plan_values = plan_values(sql, sku_key);
    const auto compared = model::fleet::choose_boot_group(t.families, t.groups);
    if (!compared)
        return t;
    t.compared = *compared;
    q.grouped = true;
    q.hvo = t.compared.hvo ? (*t.compared.hvo ? 1 : 0) : -1;
    q.releases = t.compared.kernel_releases;
    q.where += " AND COALESCE(hvo, -1) = :hvo AND COALESCE(kernel_release, '') IN (";
    for (std::size_t i = 0; i < q.releases.size(); ++i)
        q.where += (i == 0 ? ":r" : ", :r") + std::to_string(i);
    q.where += ")";
    if (read) {
        tally_in_server(sql, q, t);
        read->commit();
    } else {
        tally_streamed(sql, q, t);
    }
    return t;
}

}  // namespace hugetune::fleet_db::storage
