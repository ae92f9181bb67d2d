#include "tuner/boot/file_changes.hpp"

#include <filesystem>

#include "tuner/system/atomic_file.hpp"
#include "tuner/system/errors.hpp"

namespace hugetune::boot {
namespace {

struct WrittenFile {
    const PlannedFile* planned = nullptr;
    std::string backup;  // target path, empty when none was made
    bool replaced = false;
};

std::filesystem::path host_path_of_backup(const PlannedFile& p, const std::string& backup) {
    return p.file.host_path.parent_path() / std::filesystem::path(backup).filename();
}

// Puts one file back as it was read and removes its backup; returns what went wrong, if
// anything, as a clause for the error line.
std::string undo_one(const WrittenFile& w) {
    const PlannedFile& p = *w.planned;
    if (w.replaced) {
        try {
            write_file_atomically(p.file.host_path, p.file.text,
                                  FileOwnership{p.file.mode, p.file.uid, p.file.gid});
        } catch (const Error& e) {
            return "could not put back " + p.file.target_path + " (" + e.what() +
                   "): restore it from " + (w.backup.empty() ? "the ledger" : w.backup) +
                   " by hand";
        }
    }
    std::error_code ec;
    if (!w.backup.empty() && !std::filesystem::remove(host_path_of_backup(p, w.backup), ec) && ec)
        return "could not remove the backup " + w.backup + " (" + ec.message() + ")";
    return {};
}

std::string undo_all(const std::vector<WrittenFile>& written) {
    std::string problems;
    for (auto it = written.rbegin(); it != written.rend(); ++it) {
        std::string problem = undo_one(*it);
        if (!problem.empty())
            problems += "; " + problem;
    }
    return problems.empty() ? "; nothing was changed" : problems;
}

std::string verb_of(const PlannedFile& p) {
    return p.restores_original ? "restored" : "edited";
}

}  // namespace

void write_changes(const std::vector<PlannedFile>& files, const RecordChange& record,
                   std::ostream& out) {
    std::string stamp = backup_timestamp();
    std::vector<WrittenFile> written;
    std::string step;
    try {
        for (const auto& p : files) {
            step = "cannot write " + p.file.target_path;
            written.push_back({&p, {}, false});
            if (!p.restores_original)
                written.back().backup = back_up(p.file, stamp);
            replace_config_file(p.file, p.new_text);
            written.back().replaced = true;
        }
        step = "cannot record the change";
        std::vector<std::string> backups;
        for (const auto& w : written)
            backups.push_back(w.backup);
        record(backups);
    } catch (const Error& e) {
        throw Error(e.code(), step + ": " + e.what() + undo_all(written));
    }
    for (const auto& w : written) {
        if (!w.backup.empty())
            out << "backed up " << w.planned->file.target_path << " to " << w.backup << "\n";
        out << verb_of(*w.planned) << " " << w.planned->file.target_path << "\n";
    }
}

}  // namespace hugetune::boot
