// The record of what `hugetune apply` changed (/var/lib/hugetune/applied.json on the target),
// from which `hugetune rollback` restores the files byte for byte.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/system/effects.hpp"

namespace hugetune::boot {

inline constexpr std::string_view kLedgerPath = "/var/lib/hugetune/applied.json";
// 2 added boot-entry files and `forced`; a version 1 ledger is read as one without them. 3 added
// the bootloader "ostree" (its default deployment's previous value in bls_entries), which an
// older hugetune must not read as grub. 4 added `pending`, the edit in progress, which an older
// hugetune must not take for a finished one.
inline constexpr int kLedgerSchemaVersion = 4;

// boot_entry: a type #1 entry of systemd-boot (tuner/boot/boot_entries.hpp).
enum class FileKind { grub, kernel_cmdline, boot_entry };

struct LedgerFile {
    std::string path;  // target path
    FileKind kind = FileKind::grub;
    std::string backup;    // target path of the backup made before the first change
    std::string original;  // bytes before hugetune first changed the file
    std::string applied;   // bytes hugetune wrote
    // hugepage_alloc_threads= in force before (for grub: over all its files), nothing if none
    std::optional<std::string> previous_value;
};

// The value each boot loader entry had before `grubby --update-kernel=ALL` changed it; on
// ostree, the one entry of the default deployment before `rpm-ostree kargs` staged a new one.
struct LedgerBlsEntry {
    std::string entry;   // /boot/loader/entries/<id>.conf
    std::string kernel;  // its `linux` path, which grubby --update-kernel= accepts
    std::optional<std::string> previous_value;
};

// One file an apply is about to change, recorded with the ledger and synced before the first
// byte of any boot file changes (README.md "Safety"): apply and rollback, finding one, complete
// the edit before anything else (finish_interrupted_apply in file_changes.hpp).
struct PendingWrite {
    std::string path;
    std::string backup;  // target path of the backup of `from` to make; empty for none
    std::string from;    // the bytes apply read
    std::string to;      // the bytes apply writes
};

struct Ledger {
    std::string applied_at;  // ISO 8601 UTC
    std::string value;
    std::string bootloader;  // "grub", "grubby", "kernel-cmdline" or "ostree"
    std::vector<LedgerFile> files;
    std::vector<LedgerBlsEntry> bls_entries;
    // Why the report was not fit to apply, when the user applied it anyway.
    std::vector<std::string> forced;
    // While not empty, the files are being written: the ledger already says what they will be.
    std::vector<PendingWrite> pending;

    const LedgerFile* file(std::string_view path) const;
};

// The kind of boot configuration file hugetune edits at `path`, nothing for any other path:
// /etc/default/grub and grub.d/*.cfg (no dot file), /etc/kernel/cmdline, and a boot entry
// loader/entries/*.conf under /efi, /boot or /boot/efi. A ledger may name no other file.
std::optional<FileKind> managed_file_kind(std::string_view path);

// The ledger as the JSON value its file holds (and `--json` results show).
nlohmann::json ledger_to_json(const Ledger& ledger);
// Throws model::InputError about `where` (a failure: hugetune wrote the ledger) naming the
// field when the document is not a ledger this version can read, and RuntimeError naming
// `where` when it names a file hugetune does not manage (managed_file_kind) or a backup beside
// another file: rollback writes where a ledger says, so a forged one must not choose the place.
Ledger ledger_from_json(const nlohmann::json& document, const std::string& where);

// Nothing when there is no ledger, or when it cannot be read (a user without root); the errors
// of read_json_file (tuner/system/json_file.hpp) and ledger_from_json otherwise.
std::optional<Ledger> read_ledger(const KernelFs& root);
// Through `effects` (in its tree), as part of the change the ledger records: --dry-run shows
// nothing of its own for them. Returns whether the ledger was written.
bool write_ledger(Effects& effects, const Ledger& ledger);
void remove_ledger(Effects& effects);
// The ledger as it was before a change that failed: `before` written back, or none.
void put_back_ledger(Effects& effects, const std::optional<Ledger>& before);

std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace hugetune::boot
