// The migrations that rewrite data rather than the schema (migrations.hpp names the versions):
// each runs once, inside the migration's transaction, when a database passes its version.
#pragma once

#include <soci/soci.h>

#include <span>
#include <string_view>

namespace hugetune::fleet_db {

// Migration 3's rows of version 2 by their block's hash.
void hash_carried_verifications(soci::session& sql);

// Every stored run's digest written again by this hugetune's reader.
void write_run_digests(soci::session& sql);

// Each run moved to the SKU key the reader now gives its report (migration 5).
void rekey_by_reader(soci::session& sql);

// lz4 for the large texts of `columns` ({table, column}) stored from now on, where PostgreSQL
// has it (migrations 8 and 17).
void compress_with_lz4(soci::session& sql, std::span<const std::string_view[2]> columns);

}  // namespace hugetune::fleet_db
