#include "fleet_db/session_guard.hpp"

#include <string>

#include "fleet_db/fleet_db_error.hpp"

namespace hugetune::fleet_db {

[[noreturn]] void rethrow(const DbTarget& target, std::string_view action,
                          const soci::soci_error& e) {
    std::string what = e.get_error_message();
    // SOCI puts its own function in front ("sqlite3_statement_backend::loadOne: ..."): ours
    // says where instead.
    if (const auto colon = what.find(": ");
        colon != std::string::npos && what.substr(0, colon).find("::") != std::string::npos)
        what.erase(0, colon + 2);
    // libpq's lines as one line, and whatever of the connection string it quotes without the
    // password (an unparsable URL is quoted whole; a bad %-escape quotes the password itself).
    for (auto p = what.find('\n'); p != std::string::npos; p = what.find('\n', p))
        what.replace(p, 1, p + 1 < what.size() ? " " : "");
    while (!what.empty() && (what.back() == ' ' || what.back() == '\n'))
        what.pop_back();
    what = masked(what, target.secrets);
    if (what.find("file is not a database") != std::string::npos ||
        what.find("database disk image is malformed") != std::string::npos)
        throw FleetDbError(FleetDbError::Kind::usage,
                           target.display + ": not a usable SQLite database (" + what +
                               "); point " + Flag{"db"} +
                               " at a hugetune fleet database or a new file");
    Message fix;
    if (what.find("readonly") != std::string::npos || what.find("read-only") != std::string::npos)
        fix = "; the database cannot be written: check its and its directory's permissions";
    else if (what.find("lock timeout") != std::string::npos)
        fix =
            "; another session holds a lock this needs (another hugetune ingest, or a session "
            "writing the same rows): run it again when that one ends, or set lock_timeout in "
            "the connection string (options=-c lock_timeout=...)";
    else if (target.dialect == Dialect::postgresql && action == "connect")
        fix = "; check the server is running and the connection string (" + Flag{"db"} +
              " or HUGETUNE_DB)";
    throw FleetDbError(FleetDbError::Kind::failure,
                       target.display + ": " + std::string(action) + ": " + what + fix);
}

}  // namespace hugetune::fleet_db
