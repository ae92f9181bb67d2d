// An exclusive flock(2) held for as long as the object lives: the sweep's run lock and the boot
// configuration's lock are both one. The kernel drops a flock when its process dies, so a crash
// never leaves a stale lock.
#pragma once

#include <filesystem>
#include <optional>

namespace hugetune {

class FileLock {
  public:
    // Locks `path` without waiting, creating the file (0644) and its directory when missing.
    // Nothing when another process holds it; RuntimeError when it cannot be created, opened or
    // locked.
    static std::optional<FileLock> try_lock(const std::filesystem::path& path);
    // The same on a descriptor the caller opened (a tree's top directory, RootDir::try_lock),
    // which the lock then owns; `shown` names it in an error.
    static std::optional<FileLock> try_lock_descriptor(int fd, const std::filesystem::path& shown);

    ~FileLock();
    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&&) = delete;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

  private:
    explicit FileLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace hugetune
