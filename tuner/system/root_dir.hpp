// The tree a command reads and writes: this machine's "/", or a directory given as --root (an
// image, a container's root file system, a tree gathered from another machine). It is held open
// by one descriptor, and every file in it is reached from that descriptor alone:
//   - a path on the tree (a "target path", as the tree's own system names it:
//     "/etc/default/grub") is opened with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS): the
//     kernel resolves it as for a process chrooted into the tree, so an absolute link starts
//     again at the tree's root, ".." stops there, and no link, also one swapped in while
//     hugetune runs, leads out of it (docs/kernel-facts.md "Resolving paths under a root");
//   - a file is created, renamed and removed in its directory held by descriptor (ContainedDir),
//     by one plain name, so that a directory replaced by a link meanwhile changes nothing.
// No host path of a file in the tree is ever made: callers give target paths, and shown() is
// for messages alone.
//
// A kernel without openat2() (before Linux 5.6, or a sandbox that refuses the call) cannot keep
// a lookup inside a directory. There this machine's own "/" is opened with plain openat() from
// its descriptor, which resolves exactly as RESOLVE_IN_ROOT would there, and any other tree is
// refused (docs/kernel-facts.md "openat2 and RESOLVE_IN_ROOT").
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "tuner/system/contained_dir.hpp"
#include "tuner/system/file_lock.hpp"
#include "tuner/system/owned_fd.hpp"

namespace hugetune {

class RootDir {
  public:
    // `dir`: "/" for this machine, else the tree's directory. Throws SettingError("root") when it
    // cannot be opened as a directory, and UnsupportedError for a tree other than "/" on a kernel
    // without openat2().
    static RootDir open(const std::filesystem::path& dir);

    // Whether the tree is this machine's own "/" (the directory given resolves to it).
    bool is_live() const { return live_; }
    // The directory as given: for messages, and for the programs that take it (chroot DIR,
    // systemctl --root=DIR). hugetune itself opens nothing by it after open().
    const std::filesystem::path& path() const { return path_; }
    // `target_path` as one finds it from this machine, for messages: DIR/etc/default/grub, or
    // the target path itself for "/". The links on the way are not followed.
    std::string shown(std::string_view target_path) const;

    // `target_path` opened with `flags` (O_CLOEXEC is added), resolved inside the tree; an
    // invalid descriptor with errno set when that fails. With O_NOFOLLOW a link at the end is not
    // followed: ELOOP, or with O_PATH the link itself.
    OwnedFd open_path(std::string_view target_path, int flags, mode_t mode = 0) const;

    // The directory `target_dir`, held by descriptor; nothing when it does not exist or is no
    // directory. Throws RuntimeError naming it on any other failure (a link loop, EACCES).
    std::optional<ContainedDir> directory(std::string_view target_dir) const;
    // The same, its missing directories created first (0755), each inside the tree. Throws
    // RuntimeError naming the one that cannot be made.
    ContainedDir make_directories(std::string_view target_dir) const;

    // The tree's lock: a flock on a descriptor of its top directory (FileLock), so that a tree
    // gets no file of ours. Nothing when another process holds it.
    std::optional<FileLock> try_lock() const;

  private:
    RootDir(OwnedFd fd, std::filesystem::path path, bool live, bool contained)
        : fd_(std::move(fd)), path_(std::move(path)), live_(live), contained_(contained) {}
    OwnedFd open_directory(std::string_view target_dir) const;

    OwnedFd fd_;  // O_PATH
    std::filesystem::path path_;
    bool live_;
    bool contained_;  // openat2() works here; false only for "/" on a kernel without it
};

// A target path split into its directory and last name ("/var/lib/x.json": "/var/lib" and
// "x.json"; "x.json": "/" and "x.json"); nothing when the last part is empty, "." or "..", which
// name no entry a writer could replace.
std::optional<std::pair<std::string, std::string>> split_target_path(std::string_view target_path);

// For tests alone: while one lives, RootDir::open acts as on a kernel without openat2().
class PretendNoOpenat2ForTests {
  public:
    PretendNoOpenat2ForTests();
    ~PretendNoOpenat2ForTests();
    PretendNoOpenat2ForTests(const PretendNoOpenat2ForTests&) = delete;
    PretendNoOpenat2ForTests& operator=(const PretendNoOpenat2ForTests&) = delete;
};

}  // namespace hugetune
