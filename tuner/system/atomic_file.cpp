#include "tuner/system/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include "model/errors.hpp"
#include "tuner/system/privilege.hpp"

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

fs::path directory_of(const fs::path& path) {
    return path.parent_path().empty() ? fs::path(".") : path.parent_path();
}

// What stands at the target: nothing, or a regular file whose mode and owner a replacement
// keeps. A rename would replace a link or a device node itself (as root, /dev/null), and
// writing through a link reaches a file the user did not name, so both are refused.
struct Target {
    std::optional<struct stat> existing;
    std::string refusal;  // empty: the target may be replaced
};

// The entry `name` of the directory open as `dir_fd` (AT_FDCWD: `name` is a path), named
// `shown` in the refusal.
Target inspect_target(int dir_fd, const char* name, const fs::path& shown) {
    Target target;
    struct stat st {};
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return target;  // absent, or unreachable: creating the temporary file will say why
    if (S_ISLNK(st.st_mode))
        target.refusal = shown.string() +
                         " is a symbolic link; hugetune does not write through links: give the "
                         "path of the file itself, or remove the link";
    else if (S_ISDIR(st.st_mode))
        target.refusal = shown.string() + " is a directory; give a file name";
    else if (!S_ISREG(st.st_mode))
        target.refusal = shown.string() + " is not a regular file; give the path of a regular file";
    else
        target.existing = st;
    return target;
}

Target inspect_target(const fs::path& path) {
    return inspect_target(AT_FDCWD, path.c_str(), path);
}

// Permission bits only: a report or a sweep has no use for set-id or sticky bits.
FileOwnership resolve_ownership(const FileOwnership& asked,
                                const std::optional<struct stat>& existing) {
    FileOwnership o = asked;
    if (!o.mode)
        o.mode = existing ? static_cast<mode_t>(existing->st_mode & 0777) : mode_t{0644};
    if (!running_as_root()) {
        // Only root may give a file away, or to a group its user is not in (chown(2)): another
        // user's file is replaced by one of the writer's own, as README.md "Safety" says.
        o.uid.reset();
        o.gid.reset();
    } else if (existing) {
        o.uid = o.uid.value_or(existing->st_uid);
        o.gid = o.gid.value_or(existing->st_gid);
    }
    return o;
}

void write_all(int fd, std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw std::system_error(errno, std::generic_category());
        }
        done += static_cast<std::size_t>(n);
    }
}

// Content, mode, owner and fsync of the temporary file; throws RuntimeError naming `what`.
void fill_temporary(int fd, const std::string& name, std::string_view bytes,
                    const FileOwnership& o) {
    auto fail = [&](const std::string& what, int err) {
        throw RuntimeError(what + " " + name + ": " + std::strerror(err));
    };
    try {
        write_all(fd, bytes);
    } catch (const std::system_error& e) {
        fail("cannot write", e.code().value());
    }
    if (fchmod(fd, *o.mode) != 0)
        fail("cannot set the mode of", errno);
    if ((o.uid || o.gid) && fchown(fd, o.uid.value_or(static_cast<uid_t>(-1)),
                                   o.gid.value_or(static_cast<gid_t>(-1))) != 0)
        fail("cannot set the owner of", errno);
    if (fsync(fd) != 0)
        fail("cannot fsync", errno);
}

// mkostemp's names, ".NAME.tmp.XXXXXX", made in a directory given by descriptor (mkostemp takes
// only a path). O_EXCL makes each a new file, as mkostemp's are.
int create_temporary_at(int dir_fd, const std::string& name, std::string& temporary) {
    static constexpr std::string_view kChars =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
        temporary = "." + name + ".tmp.";
        for (int i = 0; i < 6; ++i)
            temporary += kChars[random() % kChars.size()];
        const int fd = openat(dir_fd, temporary.c_str(),
                              O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

// A directory one may write but not list (mode 0300) opens only as O_PATH, which serves the
// *at() calls but not the directory's fsync.
int open_directory(const fs::path& dir) {
    int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == EACCES)
        fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd;
}

}  // namespace

void write_file_atomically_at(int dir_fd, const std::string& name, const fs::path& shown,
                              std::string_view bytes, const FileOwnership& ownership) {
    const Target target = inspect_target(dir_fd, name.c_str(), shown);
    if (!target.refusal.empty())
        throw UsageError(target.refusal);
    const fs::path dir = directory_of(shown);
    std::string temporary;
    Fd fd(create_temporary_at(dir_fd, name, temporary));
    if (fd.fd < 0)
        throw RuntimeError("cannot create a temporary file in " + dir.string() + ": " +
                           errno_text());
    const std::string shown_temporary = (dir / temporary).string();
    try {
        fill_temporary(fd.fd, shown_temporary, bytes,
                       resolve_ownership(ownership, target.existing));
        if (renameat(dir_fd, temporary.c_str(), dir_fd, name.c_str()) != 0)
            throw RuntimeError("cannot rename " + shown_temporary + " to " + shown.string() + ": " +
                               errno_text());
    } catch (...) {
        unlinkat(dir_fd, temporary.c_str(), 0);
        throw;
    }
    fsync(dir_fd);
}

void write_file_atomically(const fs::path& path, std::string_view bytes,
                           const FileOwnership& ownership) {
    // Refused by its path first: a path such as "dir/" names no entry of its directory.
    const Target target = inspect_target(path);
    if (!target.refusal.empty())
        throw UsageError(target.refusal);
    const fs::path dir = directory_of(path);
    Fd dir_fd(open_directory(dir));
    if (dir_fd.fd < 0)
        throw RuntimeError("cannot create a temporary file in " + dir.string() + ": " +
                           errno_text());
    write_file_atomically_at(dir_fd.fd, path.filename().string(), path, bytes, ownership);
}

void check_writable_path(const fs::path& path, std::string_view option_name) {
    const fs::path dir = directory_of(path);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw UsageError(std::string(option_name) + ": directory " + dir.string() +
                         " does not exist; create it or choose another path");
    Fd dir_fd(open_directory(dir));
    if (dir_fd.fd < 0)
        throw UsageError(std::string(option_name) + ": cannot create a file in " + dir.string() +
                         " (" + errno_text() + "); choose a writable directory");
    // Refused by its path first: a path such as "dir/" names no entry of its directory.
    const Target target = inspect_target(path);
    if (!target.refusal.empty())
        throw UsageError(std::string(option_name) + ": " + target.refusal);
    check_writable_at(dir_fd.fd, path.filename().string(), path, option_name);
}

void check_writable_at(int dir_fd, const std::string& name, const fs::path& shown,
                       std::string_view option_name) {
    const std::string opt(option_name);
    const fs::path dir = directory_of(shown);
    const Target target = inspect_target(dir_fd, name.c_str(), shown);
    if (!target.refusal.empty())
        throw UsageError(opt + ": " + target.refusal);
    std::string probe;
    Fd fd(create_temporary_at(dir_fd, "hugetune-write-check", probe));
    if (fd.fd < 0)
        throw UsageError(opt + ": cannot create a file in " + dir.string() + " (" + errno_text() +
                         "); choose a writable directory");
    unlinkat(dir_fd, probe.c_str(), 0);
    // In a sticky directory such as /tmp only a file's owner (or the directory's, or root)
    // may replace it; the rename would fail after the work.
    struct stat dir_st {};
    const uid_t me = geteuid();
    if (target.existing && !running_as_root() && target.existing->st_uid != me &&
        fstat(dir_fd, &dir_st) == 0 && (dir_st.st_mode & S_ISVTX) && dir_st.st_uid != me)
        throw UsageError(opt + ": " + shown.string() + " belongs to another user in " +
                         dir.string() +
                         ", which lets only its owner replace it; choose another "
                         "file name");
}

bool is_temporary_of(std::string_view entry, std::string_view name) {
    const std::string prefix = "." + std::string(name) + ".tmp.";
    return entry.size() == prefix.size() + 6 && entry.starts_with(prefix);
}

}  // namespace hugetune
