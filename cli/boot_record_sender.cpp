#include "cli/boot_record_sender.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli.hpp"
#include "model/text.hpp"
#include "tuner/system/contained_dir.hpp"
#include "tuner/system/file_lock.hpp"
#include "tuner/system/json_file.hpp"
#include "tuner/system/owned_fd.hpp"

namespace hugetune::cli {
namespace fs = std::filesystem;

namespace {

// The spool's files of one extension, oldest first: their names begin with the time they were
// made. A name that begins with a dot is a writer's temporary file (write_file_atomically's
// ".NAME.tmp.XXXXXX"), not yet a record: never read. A link among them is no record verify kept:
// never followed, so never read.
std::vector<std::string> spooled(const ContainedDir& spool, std::string_view extension = ".json") {
    std::vector<std::string> out;
    for (auto& name : spool.list().value_or(std::vector<std::string>{})) {
        const auto st = name.ends_with(extension) && !name.starts_with(".")
                            ? spool.entry_status(name)
                            : std::nullopt;
        if (st && S_ISREG(st->st_mode))
            out.push_back(std::move(name));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A spooled file that is no boot record, renamed *.bad for its owner to look at; of those only
// the newest kMaxSetAsideBootRecords stay, so a host that keeps making bad ones fills nothing.
void set_aside(const ContainedDir& spool, const std::string& name, const std::string& why) {
    spool.rename_entry(name, fs::path(name).replace_extension(".bad").string());
    print_diagnostic("warning",
                     "set aside a spooled file that is not a boot record hugetune "
                     "reads (" +
                         printable_text(why) + "): renamed *.bad");
    const auto bad = spooled(spool, ".bad");
    for (std::size_t i = 0; i + kMaxSetAsideBootRecords < bad.size(); ++i)
        spool.remove_file(bad[i]);
}

// "20261203T235000Z-<hash of the boot>.json": in time order by name, one file per boot.
std::string spool_name(const fleet_db::IntakeBoot& boot) {
    std::string at;
    for (const char c : boot.record.recorded_at)
        if (c != '-' && c != ':')
            at.push_back(c);
    return at + "-" + fleet_db::content_hash(boot.boot_key) + ".json";
}

void keep(const RootDir& root, const fleet_db::IntakeBoot& boot) {
    const ContainedDir spool = root.make_directories(kBootRecordSpool);
    spool.set_mode(0700);
    auto waiting = spooled(spool);
    for (std::size_t i = 0; waiting.size() - i >= kMaxSpooledBootRecords; ++i) {
        spool.remove_file(waiting[i]);
        print_diagnostic("warning", "the boot record spool " +
                                        printable_text(spool.path().string()) + " holds " +
                                        std::to_string(kMaxSpooledBootRecords) +
                                        " records, the most it keeps: dropped the oldest, " +
                                        printable_text(waiting[i]));
    }
    spool.write_file(spool_name(boot), boot.document + "\n");
}

// The spooled record `name` as the fleet database takes it; throws for a file that is none.
fleet_db::IntakeBoot read_spooled(const ContainedDir& spool, const std::string& name) {
    const OwnedFd fd = spool.open_entry(name, O_RDONLY | O_NONBLOCK);
    auto bytes = fd.valid() ? read_document_fd(fd.get()) : std::nullopt;
    if (!bytes)
        throw UsageError("cannot be read");
    return fleet_db::read_intake_boot((spool.path() / name).string(), std::move(*bytes),
                                      unix_now_seconds());
}

}  // namespace

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

SendResult send_boot_records(const fleet_db::DbTarget& target, const RootDir& root,
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
        const auto spool = root.directory(kBootRecordSpool);
        const auto lock = spool ? spool->try_lock() : std::nullopt;
        result.spool_busy = spool && !lock;
        for (const auto& name : lock ? spooled(*spool) : std::vector<std::string>{}) {
            std::optional<fleet_db::IntakeBoot> boot;
            try {
                boot = read_spooled(*spool, name);
            } catch (const std::exception& e) {  // no database work here: the file itself
                set_aside(*spool, name, e.what());
                continue;
            }
            store(*boot);
            spool->remove_file(name);
        }
        if (record)
            store(*record);
    } catch (const std::exception& e) {
        result.problem = e.what();
        if (record) {
            try {
                keep(root, *record);
            } catch (const std::exception& kept) {  // not root, a full disk: said, not fatal
                print_diagnostic("warning", "the boot record could not wait in the spool " +
                                                printable_text(root.shown(kBootRecordSpool)) +
                                                " either (" + kept.what() + "); it is lost");
            }
        }
    }
    const auto spool = root.directory(kBootRecordSpool);
    result.left = spool ? spooled(*spool).size() : 0;
    return result;
}

}  // namespace hugetune::cli
