#include "tuner/system/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tuner/system/errors.hpp"

namespace hugetune {
namespace fs = std::filesystem;

namespace {

std::string errno_text() {
    return std::strerror(errno);
}

struct Fd {
    int fd;
    explicit Fd(int f) : fd(f) {}
    ~Fd() {
        if (fd >= 0)
            close(fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
};

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view bytes,
                           const FileOwnership& ownership) {
    fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    std::string tmpl = (dir / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
    int raw = mkostemp(tmpl.data(), O_CLOEXEC);
    if (raw < 0)
        throw RuntimeError("cannot create a temporary file in " + dir.string() + ": " +
                           errno_text());
    Fd fd(raw);
    auto fail = [&](const std::string& what) {
        std::string message = what + " " + tmpl + ": " + errno_text();
        unlink(tmpl.c_str());
        throw RuntimeError(message);
    };
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = write(fd.fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail("cannot write");
        }
        done += static_cast<std::size_t>(n);
    }
    if (fchmod(fd.fd, ownership.mode) != 0)
        fail("cannot set the mode of");
    if (ownership.uid || ownership.gid) {
        if (fchown(fd.fd, ownership.uid.value_or(static_cast<uid_t>(-1)),
                   ownership.gid.value_or(static_cast<gid_t>(-1))) != 0)
            fail("cannot set the owner of");
    }
    if (fsync(fd.fd) != 0)
        fail("cannot fsync");
    if (rename(tmpl.c_str(), path.c_str()) != 0) {
        std::string message =
            "cannot rename " + tmpl + " to " + path.string() + ": " + errno_text();
        unlink(tmpl.c_str());
        throw RuntimeError(message);
    }
    Fd dfd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd.fd >= 0)
        fsync(dfd.fd);
}

void check_writable_path(const fs::path& path, std::string_view option_name) {
    std::string opt(option_name);
    fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw UsageError(opt + ": directory " + dir.string() +
                         " does not exist; create it or choose another path");
    if (fs::is_directory(path, ec))
        throw UsageError(opt + ": " + path.string() + " is a directory; give a file name");
    if (access(dir.c_str(), W_OK | X_OK) != 0)
        throw UsageError(opt + ": cannot write in " + dir.string() + " (" + errno_text() +
                         "); choose a writable directory");
}

}  // namespace hugetune
