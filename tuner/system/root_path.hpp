// Paths on a target tree (--root DIR) resolved as the kernel resolves them for a process
// chrooted into DIR: a symbolic link is followed inside DIR, an absolute link starts again at DIR,
// ".." never climbs above DIR (the rules of openat2()'s RESOLVE_IN_ROOT, docs/kernel-facts.md
// "Resolving paths under a root"). Every reader and writer of a target file takes its host path
// from here (through KernelFs and Effects), so that no link in the tree leads out of it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hugetune {

// Whether the last component of the path is itself followed when it is a link.
enum class LastLink {
    follow,  // a reader: the file the path names, wherever inside the root its links lead
    keep,    // a writer or an lstat(): the entry itself, its directories resolved
};

// The host path of `target_path` (an absolute path on the target; a relative one is taken from
// its root) inside `root` (a host directory). Every directory of the result that exists is a real
// directory inside `root`, reached without a link; what does not exist yet is appended as named.
// Throws RuntimeError naming the path and the root after 40 links (the kernel's ELOOP limit).
// `root` "/" resolves as the running system does, through the same walk.
std::filesystem::path resolve_in_root(const std::filesystem::path& root,
                                      std::string_view target_path,
                                      LastLink last = LastLink::follow);

// The target path of a host path inside `root` ("/etc/default/grub" for ROOT/etc/default/grub),
// taken lexically; nothing when `host_path` is not inside `root`.
std::optional<std::string> target_path_of(const std::filesystem::path& root,
                                          const std::filesystem::path& host_path);

// The first link under `root`/`dir` (a target path) that a lookup from the host leads out of
// `root`, when there is one: for code that opens the tree through the host's own resolution
// (hwloc's HWLOC_FSROOT) and so cannot be given resolve_in_root's paths.
std::optional<std::filesystem::path> link_out_of_root(const std::filesystem::path& root,
                                                      std::string_view dir);

// Whether `path` is absolute and names each part plainly: no "." or ".." part, no empty one
// ("//"), no trailing '/'. Paths hugetune keeps in its files (a ledger's files, a boot sweep's
// kernel and initrd) must be, so that a forged one cannot climb out by itself.
bool is_plain_absolute_path(std::string_view path);

}  // namespace hugetune
