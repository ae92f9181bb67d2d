#include "tuner/boot/boot_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tuner/system/errors.hpp"

namespace hugetune::boot {

namespace fs = std::filesystem;

namespace {

int open_lock_target(const KernelFs& root, fs::path& path) {
    if (!root.is_live()) {
        path = root.root();
        return open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    path = kBootLockPath;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
        throw RuntimeError("cannot create " + path.parent_path().string() + ": " + ec.message());
    return open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

}  // namespace

BootConfigLock::BootConfigLock(const KernelFs& root) {
    fs::path path;
    fd_ = open_lock_target(root, path);
    if (fd_ < 0)
        throw RuntimeError("cannot open " + path.string() + ": " + std::strerror(errno));
    int rc;
    do {
        rc = flock(fd_, LOCK_EX | LOCK_NB);
    } while (rc != 0 && errno == EINTR);
    if (rc == 0)
        return;
    const int saved = errno;
    close(fd_);
    if (saved == EWOULDBLOCK)
        throw BusyError(
            "another hugetune apply or rollback is changing this system's boot "
            "configuration: " +
            path.string() + " is locked; wait for it to finish and run again");
    throw RuntimeError("cannot lock " + path.string() + ": " + std::strerror(saved));
}

BootConfigLock::~BootConfigLock() {
    close(fd_);
}

}  // namespace hugetune::boot
