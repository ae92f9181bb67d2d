// What several parts of the fleet database write and read alike: a SKU's row, a stored
// document read back, and how long SQLite waits for another writer.
#pragma once

#include <soci/soci.h>

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/fleet/fleet.hpp"

namespace hugetune::fleet_db {

// SQLite waits this long for another writer (a second ingest) before giving up.
inline constexpr int kSqliteBusySeconds = 60;

// The id of `sku`'s row, made when the database has none.
long long stored_sku(soci::session& sql, const model::fleet::SkuKey& sku);

// A document the database holds, parsed; one that is not JSON is damage, named by its run.
nlohmann::json stored_json(const std::string& text, const std::string& what,
                           const std::string& key);

}  // namespace hugetune::fleet_db
