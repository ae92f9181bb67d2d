#include "tuner/boot/file_changes.hpp"

#include <filesystem>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/boot/ledger.hpp"
#include "tuner/boot/token_edit.hpp"
#include "tuner/system/atomic_file.hpp"

namespace hugetune::boot {
namespace {

struct WrittenFile {
    const PlannedFile* planned = nullptr;
    std::string backup;  // target path, empty when none was made
    bool replaced = false;
};

// Puts one file back as it was read and removes its backup; returns what went wrong, if
// anything, as a clause for the error line.
std::string undo_one(const WrittenFile& w, Effects& effects) {
    const PlannedFile& p = *w.planned;
    if (w.replaced) {
        try {
            effects.write_file(p.file.target_path, p.file.text,
                               FileOwnership{p.file.mode, p.file.uid, p.file.gid});
        } catch (const Error& e) {
            return "could not put back " + p.file.target_path + " (" + e.what() +
                   "): restore it from " + (w.backup.empty() ? "the ledger" : w.backup) +
                   " by hand";
        }
    }
    try {
        if (!w.backup.empty())
            effects.remove_file(w.backup);
    } catch (const Error& e) {
        return "could not remove the backup " + w.backup + " (" + e.what() + ")";
    }
    return {};
}

std::string undo_all(const std::vector<WrittenFile>& written, Effects& effects) {
    std::string problems;
    for (auto it = written.rbegin(); it != written.rend(); ++it) {
        std::string problem = undo_one(*it, effects);
        if (!problem.empty())
            problems += "; " + problem;
    }
    return problems.empty() ? "; nothing was changed" : problems;
}

std::string verb_of(const PlannedFile& p) {
    return p.restores_original ? "restored" : "edited";
}

}  // namespace

void write_changes(const std::vector<PlannedFile>& files, const RecordChange& intent,
                   const RecordChange& record, Effects& effects, std::ostream& out) {
    const std::string stamp = backup_timestamp();
    std::vector<std::string> backups;
    for (const auto& p : files)
        backups.push_back(p.restores_original ? std::string()
                                              : backup_path(effects.root(), p.file, stamp));
    std::vector<WrittenFile> written;
    std::string step = "cannot record the change before writing it";
    try {
        intent(backups);
        for (std::size_t i = 0; i < files.size(); ++i) {
            const PlannedFile& p = files[i];
            step = "cannot write " + p.file.target_path;
            written.push_back({&p, {}, false});
            if (!backups[i].empty() && write_backup(effects, p.file, backups[i], p.file.text))
                written.back().backup = backups[i];
            written.back().replaced = replace_config_file(effects, p.file, p.new_text);
        }
        step = "cannot record the change";
        record(backups);
    } catch (const Error& e) {
        throw Error(e.code(), step + ": " + e.message() + undo_all(written, effects));
    }
    for (const auto& w : written) {
        if (!w.replaced)
            continue;
        if (!w.backup.empty())
            out << "backed up " << printable_text(w.planned->file.target_path) << " to "
                << printable_text(w.backup) << "\n";
        out << verb_of(*w.planned) << " " << printable_text(w.planned->file.target_path) << "\n";
    }
}

std::vector<PendingWrite> pending_writes(const std::vector<PlannedFile>& files,
                                         const std::vector<std::string>& backups) {
    std::vector<PendingWrite> pending;
    for (std::size_t i = 0; i < files.size(); ++i)
        pending.push_back(
            {files[i].file.target_path, backups.at(i), files[i].file.text, files[i].new_text});
    return pending;
}

namespace {

// Each pending file as it is now, holding its bytes from before or after the interrupted apply
// `what`; throws RuntimeError naming the first that holds neither, or is gone.
std::vector<ConfigFile> pending_files_now(const KernelFs& root,
                                          const std::vector<PendingWrite>& pending,
                                          const std::string& what) {
    std::vector<ConfigFile> files;
    for (const PendingWrite& w : pending) {
        auto now = read_config_file(root, w.path);
        if (!now || (now->text != w.from && now->text != w.to))
            throw RuntimeError(
                w.path + (now ? " holds other bytes than" : " is gone since") + " the " + what +
                " that was interrupted while writing it; compare it with " +
                (w.backup.empty() ? std::string("its backup") : w.backup) +
                ", put back the version you want, and remove " + std::string(kLedgerPath));
        files.push_back(std::move(*now));
    }
    return files;
}

}  // namespace

bool finish_interrupted_apply(const KernelFs& root, Effects& effects, const TargetOptions& target,
                              std::ostream& err) {
    // A killed apply or rollback leaves its temporary files beside the files it was writing;
    // the caller holds the boot configuration lock, so no writer of them is alive.
    const auto remove_temporaries = [&](const std::string& path) {
        if (!path.empty())
            effects.remove_stale_temporaries_of(path);
    };
    remove_temporaries(std::string(kLedgerPath));
    auto ledger = read_ledger(root);
    if (!ledger)
        return false;
    for (const LedgerFile& f : ledger->files) {
        remove_temporaries(f.path);
        remove_temporaries(f.backup);
    }
    for (const PendingWrite& w : ledger->pending)
        remove_temporaries(w.backup);  // a second apply's backup is not the one its file records
    if (ledger->pending.empty())
        return false;
    const std::string what = std::string(kAllocThreadsParam) + "=" + ledger->value + " (apply of " +
                             printable_text(ledger->applied_at) + ")";
    // Checked with --dry-run as without, so that a dry run refuses what the real run refuses.
    const std::vector<ConfigFile> now = pending_files_now(root, ledger->pending, what);
    if (effects.dry_run()) {
        err << "hugetune: warning: " << what
            << " was interrupted while writing; apply or rollback without "
            << target.words("dry_run") << " completes it first\n";
        return true;
    }
    for (std::size_t i = 0; i < now.size(); ++i) {
        const PendingWrite& w = ledger->pending[i];
        if (now[i].text == w.to)
            continue;  // written: its backup came before it
        // The file holds the bytes the ledger says it had: a forged entry's bytes never become
        // a backup.
        if (!w.backup.empty() && !root.exists(w.backup))
            write_backup(effects, now[i], w.backup, w.from);
        replace_config_file(effects, now[i], w.to);
    }
    ledger->pending.clear();
    write_ledger(effects, *ledger);
    err << "hugetune: note: completed " << what
        << ", which was interrupted while writing; its boot entries may need rebuilding\n";
    return true;
}

}  // namespace hugetune::boot
