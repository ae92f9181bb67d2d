#include "tuner/system/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "model/errors.hpp"

namespace hugetune {

namespace fs = std::filesystem;

std::optional<FileLock> FileLock::try_lock(const fs::path& path) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
        throw RuntimeError("cannot create " + path.parent_path().string() + ": " + ec.message());
    return try_lock_descriptor(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644), path);
}

std::optional<FileLock> FileLock::try_lock_descriptor(int fd, const fs::path& path) {
    if (fd < 0)
        throw RuntimeError("cannot open " + path.string() + ": " + std::strerror(errno));
    int rc;
    do {
        rc = flock(fd, LOCK_EX | LOCK_NB);
    } while (rc != 0 && errno == EINTR);
    if (rc == 0)
        return FileLock(fd);
    const int saved = errno;
    close(fd);
    if (saved == EWOULDBLOCK)
        return std::nullopt;
    throw RuntimeError("cannot lock " + path.string() + ": " + std::strerror(saved));
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(other.fd_) {
    other.fd_ = -1;
}

FileLock::~FileLock() {
    if (fd_ >= 0)
        close(fd_);
}

}  // namespace hugetune
