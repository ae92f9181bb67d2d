// What every statement of the fleet database shares: SOCI's errors as FleetDbError naming the
// database, and the one kind of write transaction. Inside fleet_db/ only.
#pragma once

#include <soci/soci.h>

#include <string_view>

#include "fleet_db/fleet_db.hpp"

namespace hugetune::fleet_db {

// The database's own words for a failure, and what the user can do about it: a FleetDbError
// naming the database and `action`.
[[noreturn]] void rethrow(const DbTarget& target, std::string_view action,
                          const soci::soci_error& e);

template <class F>
auto guarded(const DbTarget& target, std::string_view action, F&& f) {
    try {
        return f();
    } catch (const soci::soci_error& e) {
        rethrow(target, action, e);
    }
}

// SQLite: take the write lock at the start, so two ingests queue instead of deadlocking on
// the upgrade from a read lock. PostgreSQL: see
// FleetDb::ingest.
class Transaction {
  public:
    Transaction(soci::session& sql, Dialect dialect) : sql_(sql) {
        sql_ << (dialect == Dialect::sqlite ? "BEGIN IMMEDIATE" : "BEGIN");
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit() {
        sql_ << "COMMIT";
        open_ = false;
    }
    ~Transaction() {
        if (open_)
            try {
                sql_ << "ROLLBACK";
            } catch (const soci::soci_error&) {  // the connection is gone: so is the transaction
            }
    }

  private:
    soci::session& sql_;
    bool open_ = true;
};

}  // namespace hugetune::fleet_db
