#include "tuner/system/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

Target inspect_target(const fs::path& path) {
    Target target;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0)
        return target;  // absent, or unreachable: creating the temporary file will say why
    if (S_ISLNK(st.st_mode))
        target.refusal = path.string() +
                         " is a symbolic link; hugetune does not write through links: give the "
                         "path of the file itself, or remove the link";
    else if (S_ISDIR(st.st_mode))
        target.refusal = path.string() + " is a directory; give a file name";
    else if (!S_ISREG(st.st_mode))
        target.refusal = path.string() + " is not a regular file; give the path of a regular file";
    else
        target.existing = st;
    return target;
}

// Permission bits only: a report or a sweep has no use for set-id or sticky bits.
FileOwnership resolve_ownership(const FileOwnership& asked,
                                const std::optional<struct stat>& existing) {
    FileOwnership o = asked;
    if (!o.mode)
        o.mode = existing ? static_cast<mode_t>(existing->st_mode & 0777) : mode_t{0644};
    if (existing && running_as_root()) {
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

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view bytes,
                           const FileOwnership& ownership) {
    const Target target = inspect_target(path);
    if (!target.refusal.empty())
        throw UsageError(target.refusal);
    const fs::path dir = directory_of(path);
    std::string tmpl = (dir / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
    int raw = mkostemp(tmpl.data(), O_CLOEXEC);
    if (raw < 0)
        throw RuntimeError("cannot create a temporary file in " + dir.string() + ": " +
                           errno_text());
    Fd fd(raw);
    try {
        fill_temporary(fd.fd, tmpl, bytes, resolve_ownership(ownership, target.existing));
        if (rename(tmpl.c_str(), path.c_str()) != 0)
            throw RuntimeError("cannot rename " + tmpl + " to " + path.string() + ": " +
                               errno_text());
    } catch (...) {
        unlink(tmpl.c_str());
        throw;
    }
    Fd dfd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd.fd >= 0)
        fsync(dfd.fd);
}

void check_writable_path(const fs::path& path, std::string_view option_name) {
    const std::string opt(option_name);
    const fs::path dir = directory_of(path);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw UsageError(opt + ": directory " + dir.string() +
                         " does not exist; create it or choose another path");
    const Target target = inspect_target(path);
    if (!target.refusal.empty())
        throw UsageError(opt + ": " + target.refusal);
    std::string probe = (dir / ".hugetune-write-check.XXXXXX").string();
    Fd fd(mkostemp(probe.data(), O_CLOEXEC));
    if (fd.fd < 0)
        throw UsageError(opt + ": cannot create a file in " + dir.string() + " (" + errno_text() +
                         "); choose a writable directory");
    unlink(probe.c_str());
    // In a sticky directory such as /tmp only a file's owner (or the directory's, or root)
    // may replace it; the rename would fail after the work.
    struct stat dir_st {};
    const uid_t me = geteuid();
    if (target.existing && !running_as_root() && target.existing->st_uid != me &&
        stat(dir.c_str(), &dir_st) == 0 && (dir_st.st_mode & S_ISVTX) && dir_st.st_uid != me)
        throw UsageError(opt + ": " + path.string() + " belongs to another user in " +
                         dir.string() +
                         ", which lets only its owner replace it; choose another "
                         "file name");
}

int remove_stale_temporaries(const fs::path& path) {
    const std::string prefix = "." + path.filename().string() + ".tmp.";
    std::error_code ec;
    int removed = 0;
    for (fs::directory_iterator it(path.parent_path(), ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code type_ec;
        if (name.size() == prefix.size() + 6 && name.starts_with(prefix) &&
            it->symlink_status(type_ec).type() == fs::file_type::regular &&
            fs::remove(it->path(), type_ec))
            ++removed;
    }
    return removed;
}

}  // namespace hugetune
