// Boot records into the fleet database from the host that made them (`hugetune verify
// --fleet-db`, the verify unit's HUGETUNE_FLEET_DB), and a bounded spool for the records a
// host could not send: kept under /var/lib/hugetune/boot-records/ and sent at the next verify
// that reaches the database, or by `verify --flush` (docs/fleet.md "Boots").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "fleet_db/fleet_db.hpp"
#include "tuner/system/root_dir.hpp"

namespace hugetune::cli {

// At most this many records wait in the spool (about 1 kB each): a host that cannot reach the
// database for more boots than this loses its oldest, and says so.
inline constexpr std::size_t kMaxSpooledBootRecords = 1000;
// At most this many spooled files that were no boot record stay set aside (*.bad, each at most
// a document's size): the newest, for their owner to look at; older ones are removed.
inline constexpr std::size_t kMaxSetAsideBootRecords = 20;

// The spool's directory on the machine, reached inside its tree (RootDir: a link in the tree
// never leads the spool out of it).
inline constexpr std::string_view kBootRecordSpool = "/var/lib/hugetune/boot-records";

// --fleet-db, else HUGETUNE_FLEET_DB, else nothing. A connection string that holds a password
// is refused (UsageError naming `flag`): it would stand on a command line or in an environment
// file; the password belongs in a password file (~/.pgpass, PGPASSFILE) or a service file.
std::optional<fleet_db::DbTarget> boot_record_target(const std::string& option_value,
                                                     const std::string& flag);

struct SendResult {
    int sent = 0;                        // stored now
    int stored_before = 0;               // their boot was stored already
    std::size_t left = 0;                // in the spool after
    bool spool_busy = false;             // another verify was sending the spool: left to it
    std::optional<std::string> problem;  // why the database could not take them, when it could not
};

// Sends what the spool holds, oldest first, and then `record` when given; whatever cannot be
// sent (the database unreachable, refusing, or too old for boot records) is kept in the spool.
// A spooled file that is not a boot record is set aside (renamed *.bad, the newest
// kMaxSetAsideBootRecords kept), with a warning. The spool is sent under a lock on its
// directory: a verify that finds it taken sends `record` alone.
SendResult send_boot_records(const fleet_db::DbTarget& target, const RootDir& root,
                             const std::optional<fleet_db::IntakeBoot>& record);

}  // namespace hugetune::cli
