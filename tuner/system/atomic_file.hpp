// Files hugetune writes (reports, sweep results, plots, state, ledger, bootloader
// configuration) are replaced atomically: temporary file in the same directory, fsync, rename,
// fsync of the directory. A symbolic link or anything but a regular file at the target is
// refused, never replaced or written through (README.md "Safety").
#pragma once

#include <sys/types.h>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hugetune {

// Unset fields keep what the replaced file had: its mode (permission bits only), and, when
// hugetune runs as root, its owner and group. A new file gets 0644 and the writer's owner. Owner
// and group, set or kept, are applied only as root; any other user's file is its own.
struct FileOwnership {
    std::optional<mode_t> mode;
    std::optional<uid_t> uid;
    std::optional<gid_t> gid;
};

// Throws UsageError naming the path and the fix for a symbolic link or a non-regular file at
// `path`, RuntimeError naming the path on any other failure; the target is then untouched and
// no temporary file is left behind.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes,
                           const FileOwnership& ownership = {});
// As above, for the entry `name` (one plain name) of the directory open as `dir_fd`: the file
// lands in that directory whatever its path leads to by now. `shown` is its path in messages.
void write_file_atomically_at(int dir_fd, const std::string& name,
                              const std::filesystem::path& shown, std::string_view bytes,
                              const FileOwnership& ownership = {});

// Whether the directory entry `entry` is a temporary file write_file_atomically makes for the
// file `name` beside it (".NAME.tmp.XXXXXX"), which a writer killed between creating and renaming
// it leaves behind (ContainedDir::remove_stale_temporaries removes them).
bool is_temporary_of(std::string_view entry, std::string_view name);

// Checks, before long work, that `path` can be written by write_file_atomically: its
// directory exists and a file can be created there (one is created and removed, since
// permission bits do not tell: root passes them in /proc and on read-only mounts), and the
// path is neither a directory, a symbolic link nor another non-regular file. Throws UsageError
// "OPTION: problem; fix" with `option_name` given by the command line.
void check_writable_path(const std::filesystem::path& path, std::string_view option_name);
// The same for the entry `name` of the directory open as `dir_fd`, shown as `shown`.
void check_writable_at(int dir_fd, const std::string& name, const std::filesystem::path& shown,
                       std::string_view option_name);

}  // namespace hugetune
