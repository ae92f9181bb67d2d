#include "tuner/system/contained_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "model/errors.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune {
namespace fs = std::filesystem;

namespace {

constexpr int kEntryDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// Why the entry `name` of `dir_fd` (`path`) could not be opened as a directory. O_NOFOLLOW with
// O_DIRECTORY gives ENOTDIR for a link as for any other file, so the entry itself tells.
[[noreturn]] void refuse_directory(int dir_fd, const char* name, const fs::path& path,
                                   std::string_view option_name) {
    const int err = errno;
    const std::string opt = std::string(option_name) + ": ";
    struct stat st {};
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        throw UsageError(opt + path.string() +
                         " is a symbolic link; hugetune writes only into the directory itself: "
                         "remove the link");
    if (err == ENOTDIR)
        throw UsageError(opt + path.string() + " is not a directory; remove it");
    throw RuntimeError("cannot open " + path.string() + " (" + std::string(option_name) +
                       "): " + std::strerror(err));
}

// Every entry is one plain name: with a '/' in it, openat() would walk more than one directory
// and follow the links on the way.
const std::string& plain(const std::string& name) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos)
        throw RuntimeError("'" + name + "' is not a plain file name");
    return name;
}

}  // namespace

ContainedDir ContainedDir::open(const fs::path& path, std::string_view option_name) {
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        throw RuntimeError("cannot create " + path.string() + " (" + std::string(option_name) +
                           "): " + std::strerror(errno));
    OwnedFd fd(::open(path.c_str(), kEntryDirectoryFlags));
    if (!fd.valid())
        refuse_directory(AT_FDCWD, path.c_str(), path, option_name);
    return ContainedDir(std::move(fd), path, std::string(option_name));
}

ContainedDir ContainedDir::subdirectory(const std::string& name) const {
    const fs::path path = path_ / name;
    if (mkdirat(fd(), plain(name).c_str(), 0755) != 0 && errno != EEXIST)
        throw RuntimeError("cannot create " + path.string() + " (" + option_name_ +
                           "): " + std::strerror(errno));
    OwnedFd fd(openat(this->fd(), name.c_str(), kEntryDirectoryFlags));
    if (!fd.valid())
        refuse_directory(this->fd(), name.c_str(), path, option_name_);
    return ContainedDir(std::move(fd), path, option_name_);
}

std::optional<ContainedDir> ContainedDir::existing_subdirectory(const std::string& name) const {
    OwnedFd fd(openat(this->fd(), plain(name).c_str(), kEntryDirectoryFlags));
    if (!fd.valid())
        return std::nullopt;
    return ContainedDir(std::move(fd), path_ / name, option_name_);
}

void ContainedDir::write_file(const std::string& name, std::string_view bytes,
                              const FileOwnership& ownership) const {
    write_file_atomically_at(fd(), plain(name), path_ / name, bytes, ownership);
}

OwnedFd ContainedDir::open_entry(const std::string& name, int flags) const {
    return OwnedFd(openat(fd(), plain(name).c_str(), flags | O_NOFOLLOW | O_CLOEXEC));
}

std::optional<std::string> ContainedDir::read_file(const std::string& name) const {
    OwnedFd held = open_entry(name, O_RDONLY | O_NONBLOCK);
    if (!held.valid())
        return std::nullopt;
    const int fd = held.release();
    struct stat st {};
    std::optional<std::string> out;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        out.emplace();
        char buffer[65536];
        for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) != 0;) {
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                out.reset();
                break;
            }
            out->append(buffer, static_cast<std::size_t>(n));
        }
    }
    close(fd);
    return out;
}

bool ContainedDir::remove_file(const std::string& name) const {
    const auto st = entry_status(name);
    return st && S_ISREG(st->st_mode) && remove_entry(name);
}

bool ContainedDir::remove_entry(const std::string& name) const {
    if (unlinkat(fd(), plain(name).c_str(), 0) == 0)
        return true;
    if (errno == ENOENT)
        return false;
    throw RuntimeError("cannot remove " + (path_ / name).string() + ": " + std::strerror(errno));
}

bool ContainedDir::remove_empty_subdirectory(const std::string& name) const {
    // rmdir of a link fails (ENOTDIR), of a directory with entries too (ENOTEMPTY).
    return unlinkat(fd(), plain(name).c_str(), AT_REMOVEDIR) == 0;
}

void ContainedDir::rename_entry(const std::string& from, const std::string& to) const {
    if (renameat(fd(), plain(from).c_str(), fd(), plain(to).c_str()) != 0)
        throw RuntimeError("cannot rename " + (path_ / from).string() + " to " + to + ": " +
                           std::strerror(errno));
}

void ContainedDir::set_mode(mode_t mode) const {
    if (fchmod(fd(), mode) != 0)
        throw RuntimeError("cannot set the mode of " + path_.string() + ": " +
                           std::strerror(errno));
}

std::optional<FileLock> ContainedDir::try_lock() const {
    // A flock belongs to one open of the directory: this one's own descriptor would share it.
    const int fd = openat(this->fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throw RuntimeError("cannot open " + path_.string() + ": " + std::strerror(errno));
    return FileLock::try_lock_descriptor(fd, path_);
}

int ContainedDir::remove_stale_temporaries(const std::string& name) const {
    int removed = 0;
    for (const auto& entry : list().value_or(std::vector<std::string>{})) {
        const auto st = is_temporary_of(entry, plain(name)) ? entry_status(entry) : std::nullopt;
        if (st && S_ISREG(st->st_mode) && unlinkat(fd(), entry.c_str(), 0) == 0)
            ++removed;
    }
    return removed;
}

std::optional<struct stat> ContainedDir::entry_status(const std::string& name) const {
    struct stat st {};
    if (fstatat(fd(), plain(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return std::nullopt;
    return st;
}

std::optional<std::vector<std::string>> ContainedDir::list() const {
    // A fresh descriptor for fdopendir(), which takes it over and reads from its offset.
    const int fd = openat(this->fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* listing = fd < 0 ? nullptr : fdopendir(fd);
    if (listing == nullptr) {
        const int err = errno;
        if (fd >= 0)
            close(fd);
        errno = err;
        return std::nullopt;
    }
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* entry = readdir(listing)) {
        const std::string_view entry_name = entry->d_name;
        if (entry_name != "." && entry_name != "..")
            names.emplace_back(entry_name);
    }
    const int err = errno;
    closedir(listing);
    errno = err;
    if (err != 0)
        return std::nullopt;
    return names;
}

std::optional<std::vector<std::string>> plain_parts(std::string_view relative_path) {
    if (!is_plain_absolute_path("/" + std::string(relative_path)))
        return std::nullopt;
    std::vector<std::string> parts;
    for (std::size_t i = 0; i <= relative_path.size();) {
        const std::size_t slash = std::min(relative_path.find('/', i), relative_path.size());
        parts.emplace_back(relative_path.substr(i, slash - i));
        i = slash + 1;
    }
    return parts;
}

}  // namespace hugetune
