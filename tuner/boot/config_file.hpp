// Reading and replacing the configuration files hugetune edits: regular files only (a
// symlink could point anywhere, e.g. into a package-owned location), a timestamped backup
// next to the original, and an atomic replacement that keeps the owner and mode, written
// through the command's Effects (tuner/system/effects.hpp), which --dry-run turns into the diff.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/kernel/kernel_fs.hpp"
#include "tuner/system/effects.hpp"

namespace hugetune::boot {

struct ConfigFile {
    std::string target_path;  // as on the target machine, e.g. "/etc/default/grub"
    std::string text;
    mode_t mode = 0644;
    uid_t uid = 0;
    gid_t gid = 0;
};

// The most hugetune reads of one boot configuration file (/etc/default/grub, a drop-in, a boot
// entry, /etc/kernel/cmdline): real ones are a few KiB, and a bound taken before parsing keeps a
// huge file from costing memory, also with --dry-run.
inline constexpr std::size_t kMaxConfigBytes = 1024 * 1024;

// `target_path` in `root`, opened inside it (RootDir) without following a link at its name.
// Nothing when the path does not exist; throws UsageError for a symlink, anything but a regular
// file or one above kMaxConfigBytes, RuntimeError when it cannot be read.
std::optional<ConfigFile> read_config_file(const KernelFs& root, const std::string& target_path);

// The current UTC time as strftime writes it with `format`.
std::string utc_timestamp(const char* format);

// "20260314T101500Z" (UTC), for backup names.
std::string backup_timestamp();

// The target path of a backup of the file: "<path>.hugetune-<timestamp>.bak" (a name that
// grub's "*.cfg" glob does not pick up), with "-N" before ".bak" when that name is taken.
std::string backup_path(const RootDir& root, const ConfigFile& file, const std::string& timestamp);
// Whether `name` is the file name backup_path gives a backup of the file named `file_name`:
// "<file_name>.hugetune-<...>.bak".
bool is_backup_name(std::string_view name, std::string_view file_name);
// The backups beside the file at `target_path` in `root`, as target paths, sorted by name
// (after the file's name, the UTC time each was made, to the second).
std::vector<std::string> backups_beside(const KernelFs& root, const std::string& target_path);
// Writes `bytes` to the backup `backup` (a target path beside the file) with the file's owner
// and mode; part of the file's change, so --dry-run shows nothing of its own. Returns whether
// it was written.
bool write_backup(Effects& effects, const ConfigFile& file, const std::string& backup,
                  const std::string& bytes);

// Replaces the file with `text` atomically, keeping owner and mode, in the tree of `effects`;
// --dry-run shows the unified diff instead. Refuses when the file changed since it was read
// (another editor at work).
// Returns whether it was written.
bool replace_config_file(Effects& effects, const ConfigFile& file, const std::string& text);

}  // namespace hugetune::boot
