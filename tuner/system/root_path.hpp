// Checks of paths on a target tree (--root DIR) as strings, for what cannot be given a
// descriptor: hwloc's own lookups, and the paths hugetune keeps in its files. Every file hugetune
// itself opens in a tree is opened through its RootDir (tuner/system/root_dir.hpp), never by a
// path made here.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hugetune {

// The first link at or under `root`/`dir` (`dir` a target path, "/sys") that a lookup from the
// host leads out of `root`, when there is one: for code that opens the tree through the host's
// own resolution (hwloc's HWLOC_FSROOT) and so cannot be given a descriptor (RootDir). Each link
// is followed physically, as the host's lookup will follow it, `root`/`dir` itself included. A
// check before the reading, not a bound on it: a link swapped in afterwards is not seen.
std::optional<std::filesystem::path> link_out_of_root(const std::filesystem::path& root,
                                                      std::string_view dir);

// Whether `path` is absolute and names each part plainly: no "." or ".." part, no empty one
// ("//"), no trailing '/'. Paths hugetune keeps in its files (a ledger's files, a boot sweep's
// kernel and initrd) must be, so that a forged one cannot climb out by itself.
bool is_plain_absolute_path(std::string_view path);

}  // namespace hugetune
