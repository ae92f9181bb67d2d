// A directory held open by its descriptor, whose entries are reached one plain name at a time
// without following a symbolic link (openat() with O_NOFOLLOW, fstatat(), renameat() and
// unlinkat() on the descriptor): a link planted inside it cannot lead a write or a removal out of
// it, whatever a path kept in a file names, and a directory swapped for a link after it was
// opened changes nothing. For outputs that are a whole directory (`fleet export --out DIR`) and
// for every directory of a tree hugetune writes in (RootDir, tuner/system/root_dir.hpp).
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/system/atomic_file.hpp"
#include "tuner/system/file_lock.hpp"
#include "tuner/system/owned_fd.hpp"

namespace hugetune {

class RootDir;

class ContainedDir {
  public:
    // `path`, created (mode 0755) when absent. Throws UsageError "OPTION: problem; fix" when it
    // is a symbolic link or not a directory, RuntimeError naming it on any other failure.
    static ContainedDir open(const std::filesystem::path& path, std::string_view option_name);

    ContainedDir(ContainedDir&& other) noexcept = default;
    ContainedDir& operator=(ContainedDir&&) noexcept = default;
    ContainedDir(const ContainedDir&) = delete;
    ContainedDir& operator=(const ContainedDir&) = delete;
    ~ContainedDir() = default;

    // Its path as shown in messages (under a root, the tree's directory and the target path).
    const std::filesystem::path& path() const { return path_; }
    int fd() const { return fd_.get(); }

    // The subdirectory `name` (one plain name), created when absent. Throws UsageError naming
    // it and the option of open() when it is a symbolic link or not a directory.
    ContainedDir subdirectory(const std::string& name) const;
    // The subdirectory `name` as it stands: nothing when it is absent, a link or no directory.
    std::optional<ContainedDir> existing_subdirectory(const std::string& name) const;

    // write_file_atomically of the entry `name`, in this directory.
    void write_file(const std::string& name, std::string_view bytes,
                    const FileOwnership& ownership = {}) const;
    // The bytes of the regular file `name`; nothing when it is absent, a link or not a regular
    // file.
    std::optional<std::string> read_file(const std::string& name) const;
    // The entry `name` opened with `flags` and O_NOFOLLOW (a link there: ELOOP); an invalid
    // descriptor with errno set when that fails.
    OwnedFd open_entry(const std::string& name, int flags) const;
    // Removes the entry `name` when it is a regular file (never a link, never through one):
    // whether it did. Throws RuntimeError naming it when the removal fails.
    bool remove_file(const std::string& name) const;
    // Removes the entry `name` itself, a file or a link (never what a link names, never a
    // directory): whether there was one. Throws RuntimeError naming it when the removal fails.
    bool remove_entry(const std::string& name) const;
    // Removes the subdirectory `name` when it is an empty directory: whether it did.
    bool remove_empty_subdirectory(const std::string& name) const;
    // Renames the entry `from` to `to`, both in this directory; throws RuntimeError naming it when
    // that fails.
    void rename_entry(const std::string& from, const std::string& to) const;
    // Sets the directory's own permission bits; throws RuntimeError naming it when that fails.
    void set_mode(mode_t mode) const;
    // A flock of the directory (FileLock) on a descriptor of its own; nothing when another
    // process holds it.
    std::optional<FileLock> try_lock() const;
    // Removes the temporary files a killed writer of the entry `name` left (is_temporary_of in
    // atomic_file.hpp; regular files only): only for a caller that holds the lock of every
    // writer of it. How many it removed.
    int remove_stale_temporaries(const std::string& name) const;

    // The entry `name` itself as lstat() gives it; nothing when it is absent.
    std::optional<struct stat> entry_status(const std::string& name) const;
    // The names of its entries ("." and ".." left out), unsorted; nothing, with errno set, when
    // it cannot be read.
    std::optional<std::vector<std::string>> list() const;

  private:
    friend class RootDir;
    ContainedDir(OwnedFd fd, std::filesystem::path path, std::string option_name)
        : fd_(std::move(fd)), path_(std::move(path)), option_name_(std::move(option_name)) {}
    OwnedFd fd_;
    std::filesystem::path path_;
    std::string option_name_;  // named in a refusal
};

// The parts of `relative_path` ("group_vars/x.yml": "group_vars", "x.yml") when every one is a
// plain name: not empty, not "." or "..", no leading or trailing '/'; nothing otherwise.
std::optional<std::vector<std::string>> plain_parts(std::string_view relative_path);

}  // namespace hugetune
