// The database's schema, as numbered migrations: version N is what migrations 1..N create.
// Applied on open, each in the transaction that records its number; a database whose number is
// above the last one here was written by a newer hugetune and is refused, never altered.
#pragma once

#include <string>
#include <vector>

namespace hugetune::fleet_db {

enum class Dialect { sqlite, postgresql };

// The statements of migration `version` (1-based) for `dialect`.
std::vector<std::string> migration_statements(int version, Dialect dialect);
// The newest schema this hugetune knows.
int latest_schema_version();

}  // namespace hugetune::fleet_db
