#include "fleet_db/data_migrations.hpp"

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet_db/migrations.hpp"
#include "fleet_db/report_intake.hpp"
#include "fleet_db/stored_rows.hpp"
#include "model/fleet/run_digest.hpp"
#include "model/input/json_text.hpp"

namespace hugetune::fleet_db {

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

// On PostgreSQL: lz4 for the large texts stored from now on, where the server has it
// (PostgreSQL 14 and later, built with lz4, as Debian's is); pglz, the default, stays where it
// does not. A value already stored keeps its compression until it is written again.
void compress_with_lz4(soci::session& sql, std::span<const std::string_view[2]> columns) {
    int available = 0;
    sql << "SELECT COUNT(*) FROM pg_settings WHERE name = 'default_toast_compression' AND"
           " 'lz4' = ANY(enumvals)",
        soci::into(available);
    if (available == 0)
        return;
    for (const auto& [table, column] : columns)
        sql << "ALTER TABLE " + std::string(table) + " ALTER COLUMN " + std::string(column) +
                   " SET COMPRESSION lz4";
}

}  // namespace hugetune::fleet_db
