// Boot records into the fleet database and their statistics out of it (docs/fleet.md "Boots at
// fleet size"). Inside fleet_db/ only.
#pragma once

#include <soci/soci.h>

#include <memory>
#include <string>
#include <vector>

#include "fleet_db/fleet_db.hpp"
#include "model/fleet/boots.hpp"

namespace hugetune::fleet_db::storage {

// After an ingest that copied this many boot records or more, PostgreSQL vacuums the table and
// makes its statistics again (VACUUM (ANALYZE)): the next SKU's tally is planned for the table as
// it is, not as the last autovacuum saw it, and reads the index alone (its pages marked
// visible), not the rows with their records.
inline constexpr std::size_t kVacuumAfterBootRows = 10000;

// Boot records PostgreSQL takes in one COPY: a few MB, and few enough round trips that the
// server's own work sets the pace.
inline constexpr std::size_t kBootCopyRows = 5000;

// Stores one record with a plain INSERT; false when its boot is stored already. What a host's
// `verify --fleet-db` runs, as the boot writer role (INSERT on boot_records only).
bool insert_boot_record(soci::session& sql, Dialect dialect, const IntakeBoot& boot);

// The boot records of one ingest, in its transaction, each filed in the result as added or
// stored before. SQLite stores each as it comes; PostgreSQL gathers kBootCopyRows and sends them
// with COPY into a temporary table, from which one INSERT ... ON CONFLICT DO NOTHING RETURNING
// says which boots were new. flush() before the transaction commits.
class BootStore {
  public:
    BootStore(soci::session& sql, Dialect dialect, IngestResult& result);
    BootStore(const BootStore&) = delete;
    BootStore& operator=(const BootStore&) = delete;
    ~BootStore();
    void store(const IntakeBoot& boot);
    void flush();
    // The records sent with COPY so far.
    std::size_t copied() const;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// " FROM boot_records WHERE ..." of a SKU's boots whose kernel logged the line, not in a
// virtual machine, whatever their hosts: one value to bind, the SKU's key.
std::string line_boots_condition();

// The SKU's boots of `hosts` (model/fleet/boot_hosts.hpp) tallied where they are stored:
// PostgreSQL's aggregates compute each host's median per value and each value's median pool;
// SQLite's rows are streamed in order and reduced as they come. Either way the same bits as
// model::fleet::tally_boots. `virtual_machines_count`: boots recorded in virtual machines count
// as the others (a SKU whose answer accepts reports measured in them); otherwise they are
// tallied apart, as refused.
model::fleet::BootTally tally_stored_boots(soci::session& sql, Dialect dialect,
                                           const std::string& sku_key,
                                           const model::fleet::BootHosts& hosts,
                                           bool virtual_machines_count = false);

}  // namespace hugetune::fleet_db::storage
