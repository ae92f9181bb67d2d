// What apply and rollback share once they know what to change: the target, the planned file
// contents and rebuild commands, and the steps that show and rebuild (file_changes.hpp writes).
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/errors.hpp"
#include "tuner/boot/config_file.hpp"
#include "tuner/boot/ledger.hpp"
#include "tuner/boot/regenerate.hpp"
#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/system/effects.hpp"

namespace hugetune::boot {

struct TargetOptions {
    std::filesystem::path root = "/";
    std::optional<Bootloader> bootloader;  // nothing: decide from what exists under root
    bool dry_run = false;
    bool regenerate = true;         // false: print the rebuild commands instead of running them
    bool force_regenerate = false;  // root not "/": run the root's own commands by chroot
    // How what is printed names these options ("root", "dry_run", "regenerate" for its
    // switch-off, "force_regenerate"): the command line's flags.
    SettingWords words;
};

struct PlannedFile {
    ConfigFile file;  // as read, before the change
    FileKind kind = FileKind::grub;
    std::string new_text;
    std::optional<std::string> previous_value;
    bool in_place = false;           // rollback: a token edit instead of the original bytes
    bool restores_original = false;  // rollback: the bytes from before apply, so no backup
};

struct BootChange {
    std::vector<PlannedFile> files;  // only files whose text changes
    std::vector<Argv> commands;      // rebuild the boot entries afterwards
    std::vector<std::string> notes;  // for the user, printed before anything is written
    std::vector<std::string> warnings;
};

// Throws NotRootError when a non-root user would change the running machine.
void require_root(const KernelFs& root, const TargetOptions& target, std::string_view command);

// The notes, then the warnings, one line each on `err`.
void print_messages(const BootChange& change, std::ostream& err);

// Runs the rebuild commands through `effects` (printed under --dry-run), or says why not and
// how to run them. Returns the commands not run (empty: the boot entries are up to date).
std::vector<Argv> rebuild_boot_entries(const KernelFs& root, const TargetOptions& target,
                                       const std::vector<Argv>& commands, Effects& effects,
                                       std::ostream& out, std::ostream& err);

// "" when nothing is left to run, else "; the boot entries are not rebuilt yet: run CMD[; CMD]
// before rebooting", for the line that ends apply and rollback.
std::string pending_rebuild_clause(const std::vector<Argv>& not_run);

}  // namespace hugetune::boot
