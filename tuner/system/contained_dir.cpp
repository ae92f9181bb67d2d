#include "tuner/system/contained_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "model/errors.hpp"
#include "tuner/system/atomic_file.hpp"
#include "tuner/system/root_path.hpp"

namespace hugetune {
namespace fs = std::filesystem;

namespace {

constexpr int kDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

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

}  // namespace

ContainedDir ContainedDir::open(const fs::path& path, std::string_view option_name) {
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        throw RuntimeError("cannot create " + path.string() + " (" + std::string(option_name) +
                           "): " + std::strerror(errno));
    const int fd = ::open(path.c_str(), kDirectoryFlags);
    if (fd < 0)
        refuse_directory(AT_FDCWD, path.c_str(), path, option_name);
    return ContainedDir(fd, path, std::string(option_name));
}

ContainedDir::ContainedDir(ContainedDir&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      option_name_(std::move(other.option_name_)) {}

ContainedDir::~ContainedDir() {
    if (fd_ >= 0)
        close(fd_);
}

ContainedDir ContainedDir::subdirectory(const std::string& name) const {
    const fs::path path = path_ / name;
    if (mkdirat(fd_, name.c_str(), 0755) != 0 && errno != EEXIST)
        throw RuntimeError("cannot create " + path.string() + " (" + option_name_ +
                           "): " + std::strerror(errno));
    const int fd = openat(fd_, name.c_str(), kDirectoryFlags);
    if (fd < 0)
        refuse_directory(fd_, name.c_str(), path, option_name_);
    return ContainedDir(fd, path, option_name_);
}

std::optional<ContainedDir> ContainedDir::existing_subdirectory(const std::string& name) const {
    const int fd = openat(fd_, name.c_str(), kDirectoryFlags);
    if (fd < 0)
        return std::nullopt;
    return ContainedDir(fd, path_ / name, option_name_);
}

void ContainedDir::write_file(const std::string& name, std::string_view bytes) const {
    write_file_atomically_at(fd_, name, path_ / name, bytes);
}

std::optional<std::string> ContainedDir::read_file(const std::string& name) const {
    const int fd = openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
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
    struct stat st {};
    if (fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return false;
    if (unlinkat(fd_, name.c_str(), 0) != 0) {
        if (errno == ENOENT)
            return false;
        throw RuntimeError("cannot remove " + (path_ / name).string() + ": " +
                           std::strerror(errno));
    }
    return true;
}

bool ContainedDir::remove_empty_subdirectory(const std::string& name) const {
    // rmdir of a link fails (ENOTDIR), of a directory with entries too (ENOTEMPTY).
    return unlinkat(fd_, name.c_str(), AT_REMOVEDIR) == 0;
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
