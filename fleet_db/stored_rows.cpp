#include "fleet_db/stored_rows.hpp"

#include <nlohmann/json.hpp>

#include "fleet_db/fleet_db_error.hpp"
#include "model/input/json_text.hpp"

namespace hugetune::fleet_db {
namespace {

long long id_of(soci::session& sql, const std::string& select, const std::string& value) {
    long long id = 0;
    sql << select, soci::use(value), soci::into(id);
    return id;
}

}  // namespace

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

nlohmann::json stored_json(const std::string& text, const std::string& what,
                           const std::string& key) {
    // The one reader of every document (model/input/json_text.hpp): a stored text, a report's
    // dump(), goes its fast way.
    try {
        return model::parse_json_document(text);
    } catch (const model::JsonTextError&) {
        throw FleetDbError(FleetDbError::Kind::failure,
                           "the stored " + what + " " + key +
                               " is not JSON; the database is damaged: forget it (hugetune "
                               "fleet forget) or restore the database from a backup");
    }
}

}  // namespace hugetune::fleet_db
