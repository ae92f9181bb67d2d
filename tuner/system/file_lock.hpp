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
    // The same on a directory that must exist (a tree under --root, which gets no file of ours).
    static std::optional<FileLock> try_lock_directory(const std::filesystem::path& dir);

    ~FileLock();
    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&&) = delete;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

  private:
    explicit FileLock(int fd) : fd_(fd) {}
    static std::optional<FileLock> lock_open(int fd, const std::filesystem::path& path);
    int fd_ = -1;
};

}  // namespace hugetune
