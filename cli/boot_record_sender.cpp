#include "cli/boot_record_sender.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "cli/cli.hpp"
#include "model/text.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/json_file.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune::cli {
namespace fs = std::filesystem;

namespace {

// The spool's records, oldest first: their names begin with the time they were made.
std::vector<fs::path> spooled(const fs::path& spool) {
    std::vector<fs::path> out;
    std::error_code ec;
    // A link among them is no record verify kept: never followed, so never read.
    for (const auto& entry : fs::directory_iterator(spool, ec))
        if (entry.path().extension() == ".json" && entry.is_regular_file(ec) &&
            !entry.is_symlink(ec))
            out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
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
        for (const auto& path : spooled(spool)) {
            std::optional<fleet_db::IntakeBoot> boot;
            try {
                auto bytes = read_document_file(path);
                if (!bytes)
                    throw UsageError("cannot be read");
                boot = fleet_db::read_intake_boot(path.string(), std::move(*bytes),
                                                  unix_now_seconds());
            } catch (const std::exception& e) {  // no database work here: the file itself
                std::error_code ec;
                fs::rename(path, fs::path(path).replace_extension(".bad"), ec);
                print_diagnostic("warning", std::string("set aside a spooled file that is not a "
                                                        "boot record hugetune reads (") +
                                                e.what() + "): renamed *.bad");
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
