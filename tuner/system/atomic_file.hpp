// Files hugetune writes (reports, sweep results, state, bootloader configuration) are replaced
// atomically: temporary file in the same directory, fsync, rename, fsync of the directory.
#pragma once

#include <sys/types.h>
#include <filesystem>
#include <optional>
#include <string_view>

namespace hugetune {

struct FileOwnership {
    mode_t mode = 0644;
    std::optional<uid_t> uid;  // unset: the writer's
    std::optional<gid_t> gid;
};

// Throws RuntimeError naming the path on any failure; the target is then untouched and no
// temporary file is left behind.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes,
                           const FileOwnership& ownership = {});

// Checks, without writing anything, that `path` could be written by write_file_atomically:
// its directory exists and is writable, and the path is not a directory. Throws UsageError
// naming the problem (used before long work so a bad path fails in the first second).
void check_writable_path(const std::filesystem::path& path, std::string_view option_name);

}  // namespace hugetune
