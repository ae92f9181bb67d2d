#include "cli/boot_record_sender.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "cli/cli.hpp"
#include "model/text.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/file_lock.hpp"
#include "tuner/system/json_file.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune::cli {
namespace fs = std::filesystem;

namespace {

// The spool's files of one extension, oldest first: their names begin with the time they were
// made. A name that begins with a dot is a writer's temporary file (write_file_atomically's
// ".NAME.tmp.XXXXXX"), not yet a record: never read. A link among them is no record verify kept:
// never followed, so never read.
std::vector<fs::path> spooled(const fs::path& spool, std::string_view extension = ".json") {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(spool, ec))
        if (entry.path().extension() == extension &&
            !entry.path().filename().string().starts_with(".") && entry.is_regular_file(ec) &&
            !entry.is_symlink(ec))
            out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

// A spooled file that is no boot record, renamed *.bad for its owner to look at; of those only
// the newest kMaxSetAsideBootRecords stay, so a host that keeps making bad ones fills nothing.
void set_aside(const fs::path& spool, const fs::path& path, const std::string& why) {
    std::error_code ec;
    fs::rename(path, fs::path(path).replace_extension(".bad"), ec);
    print_diagnostic("warning",
                     "set aside a spooled file that is not a boot record hugetune "
                     "reads (" +
                         printable_text(why) + "): renamed *.bad");
    const auto bad = spooled(spool, ".bad");
    for (std::size_t i = 0; i + kMaxSetAsideBootRecords < bad.size(); ++i)
        fs::remove(bad[i], ec);
}

// "20261203T235000Z-<hash of the boot>.json": in time order by name, one file per boot.
std::string spool_name(const fleet_db::IntakeBoot& boot) {
    std::string at;
    for (const char c : boot.record.recorded_at)
        if (c != '-' && c != ':')
            at.push_back(c);
    return at + "-" + fleet_db::content_hash(boot.boot_key) + ".json";
}

void keep(const fs::path& spool, const fleet_db::IntakeBoot& boot) {
    std::error_code ec;
    fs::create_directories(spool, ec);
    fs::permissions(spool, fs::perms::owner_all, fs::perm_options::replace, ec);
    auto waiting = spooled(spool);
    for (std::size_t i = 0; waiting.size() - i >= kMaxSpooledBootRecords; ++i) {
        fs::remove(waiting[i], ec);
        print_diagnostic("warning", "the boot record spool " + printable_text(spool.string()) +
                                        " holds " + std::to_string(kMaxSpooledBootRecords) +
                                        " records, the most it keeps: dropped the oldest, " +
                                        printable_text(waiting[i].filename().string()));
    }
    write_file_atomically(spool / spool_name(boot), boot.document + "\n");
}

}  // namespace

fs::path boot_record_spool(const fs::path& root) {
    return resolve_in_root(root, "/var/lib/hugetune/boot-records");
}

std::optional<fleet_db::DbTarget> boot_record_target(const std::string& option_value,
                                                     const std::string& flag) {
    std::string value = option_value;
    std::string named = flag;
    if (value.empty())
        if (const char* env = std::getenv("HUGETUNE_FLEET_DB"); env && *env) {
            value = env;
            named = "HUGETUNE_FLEET_DB";
        }
    if (value.empty())
        return std::nullopt;
    auto target = fleet_db::parse_db_target(value);
    if (target.dialect == fleet_db::Dialect::postgresql && !target.secrets.empty())
        throw UsageError(named + ": " + printable_text(target.display) +
                         " holds a password, which would stand on a command line or in an "
                         "environment file; leave it out and keep it in a password file "
                         "(~/.pgpass or PGPASSFILE) or a service file (PGSERVICEFILE)");
    return target;
}

SendResult send_boot_records(const fleet_db::DbTarget& target, const fs::path& spool,
                             const std::optional<fleet_db::IntakeBoot>& record) {
    SendResult result;
    std::optional<fleet_db::FleetDb> db;
    const auto store = [&](const fleet_db::IntakeBoot& boot) {
        if (!db)
            db.emplace(fleet_db::FleetDb::open_for_boot_records(target));
        ++(db->store_boot_record(boot) ? result.sent : result.stored_before);
    };
    try {
        // One verify sends the spool at a time; another that finds it locked sends its own
        // record alone, and leaves the spool to the one sending it, which may have sent and
        // removed what the other listed.
        std::error_code ec;
        const auto lock =
            fs::is_directory(spool, ec) ? FileLock::try_lock_directory(spool) : std::nullopt;
        result.spool_busy = !lock && fs::is_directory(spool, ec);
        for (const auto& path : lock ? spooled(spool) : std::vector<fs::path>{}) {
            std::optional<fleet_db::IntakeBoot> boot;
            try {
                auto bytes = read_document_file(path);
                if (!bytes)
                    throw UsageError("cannot be read");
                boot = fleet_db::read_intake_boot(path.string(), std::move(*bytes),
                                                  unix_now_seconds());
            } catch (const std::exception& e) {  // no database work here: the file itself
                set_aside(spool, path, e.what());
                continue;
            }
            store(*boot);
            fs::remove(path);
        }
        if (record)
            store(*record);
    } catch (const std::exception& e) {
        result.problem = e.what();
        if (record) {
            try {
                keep(spool, *record);
            } catch (const std::exception& kept) {  // not root, a full disk: said, not fatal
                print_diagnostic("warning", "the boot record could not wait in the spool " +
                                                printable_text(spool.string()) + " either (" +
                                                kept.what() + "); it is lost");
            }
        }
    }
    result.left = spooled(spool).size();
    return result;
}

}  // namespace hugetune::cli
