#include "tuner/system/root_dir.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "model/errors.hpp"

namespace hugetune {
namespace fs = std::filesystem;

namespace {

std::atomic<int> pretend_no_openat2{0};

// RESOLVE_IN_ROOT: every "/" and ".." on the way, in the path and in each link, is scoped to the
// root's descriptor; RESOLVE_NO_MAGICLINKS: no /proc/PID/fd/N-style link, which would jump to a
// file wherever it is (docs/kernel-facts.md "openat2 and RESOLVE_IN_ROOT").
constexpr std::uint64_t kResolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

// The kernel answers EAGAIN when a rename or mount anywhere raced a ".." of the lookup, which it
// then cannot vouch for; a lookup is retried this often before the error stands.
constexpr int kAgainRetries = 1000;

int openat2_in_root(int root_fd, const char* path, int flags, mode_t mode) {
    if (pretend_no_openat2.load() > 0) {
        errno = ENOSYS;
        return -1;
    }
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags);
    how.mode = (flags & (O_CREAT | O_TMPFILE)) != 0 ? mode : 0;
    how.resolve = kResolve;
    for (int attempt = 0;; ++attempt) {
        const long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof how);
        if (fd >= 0 || errno != EAGAIN || attempt >= kAgainRetries)
            return static_cast<int>(fd);
    }
}

// ENOSYS: a kernel before 5.6; EPERM: a seccomp filter of a sandbox that does not know the call
// (container runtimes' older default profiles). An open of "." cannot fail otherwise.
bool has_openat2(int root_fd) {
    OwnedFd probe(openat2_in_root(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0));
    return probe.valid() || (errno != ENOSYS && errno != EPERM);
}

// The path relative to the root's descriptor, as openat() from it takes it.
std::string relative(std::string_view target_path) {
    while (!target_path.empty() && target_path.front() == '/')
        target_path.remove_prefix(1);
    return target_path.empty() ? "." : std::string(target_path);
}

[[noreturn]] void refuse_root(const fs::path& dir, const std::string& why) {
    throw SettingError("root", dir.string() + " " + why);
}

constexpr int kTargetDirectoryFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;

}  // namespace

RootDir RootDir::open(const fs::path& dir) {
    OwnedFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid())
        refuse_root(dir, errno == ENOTDIR
                             ? "is not a directory; give the root of a tree"
                             : std::string("cannot be opened: ") + std::strerror(errno));
    std::error_code ec;
    const bool live = fs::weakly_canonical(dir, ec) == fs::path("/") && !ec;
    const bool contained = has_openat2(fd.get());
    if (!contained && !live)
        throw UnsupportedError(
            Message(Flag{"root"}) + " " + dir.string() +
            ": this kernel has no openat2() (Linux 5.6 and later have it, unless a sandbox "
            "refuses it), and hugetune opens a tree only through it, so that no link in the tree "
            "leads out of it; run hugetune on Linux 5.6 or later, or inside the tree (chroot)");
    return RootDir(std::move(fd), dir, live, contained);
}

std::string RootDir::shown(std::string_view target_path) const {
    if (live_)
        return std::string(target_path);
    std::string dir = path_.string();
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    if (target_path.empty() || target_path.front() != '/')
        dir += '/';
    return dir + std::string(target_path);
}

OwnedFd RootDir::open_path(std::string_view target_path, int flags, mode_t mode) const {
    const std::string path = relative(target_path);
    if (contained_)
        return OwnedFd(openat2_in_root(fd_.get(), path.c_str(), flags | O_CLOEXEC, mode));
    // This machine's "/" on a kernel without openat2(): the plain lookup from "/" is the one
    // RESOLVE_IN_ROOT would make, and magic links are this machine's own.
    return OwnedFd(openat(fd_.get(), path.c_str(), flags | O_CLOEXEC, mode));
}

OwnedFd RootDir::open_directory(std::string_view target_dir) const {
    OwnedFd fd = open_path(target_dir, kTargetDirectoryFlags);
    // A directory one may write but not list (0300) opens only as O_PATH, which serves the *at()
    // calls of a writer.
    if (!fd.valid() && errno == EACCES)
        fd = open_path(target_dir, O_PATH | O_DIRECTORY);
    return fd;
}

std::optional<ContainedDir> RootDir::directory(std::string_view target_dir) const {
    OwnedFd fd = open_directory(target_dir);
    if (fd.valid())
        return ContainedDir(std::move(fd), shown(target_dir), "");
    if (errno == ENOENT || errno == ENOTDIR)
        return std::nullopt;
    throw RuntimeError("cannot open " + shown(target_dir) + ": " + std::strerror(errno));
}

ContainedDir RootDir::make_directories(std::string_view target_dir) const {
    if (auto dir = directory(target_dir))
        return std::move(*dir);
    const auto split = split_target_path(target_dir);
    if (!split) {
        // "a/..", "a/.": the directory before it is made, and the kernel then climbs from there.
        const std::string path(target_dir);
        const std::size_t slash = path.find_last_of('/');
        make_directories(slash == std::string::npos ? "/" : path.substr(0, slash));
        if (auto dir = directory(target_dir))
            return std::move(*dir);
        throw RuntimeError("cannot create " + shown(target_dir) + ": " + std::strerror(errno));
    }
    const ContainedDir parent = make_directories(split->first);
    if (mkdirat(parent.fd(), split->second.c_str(), 0755) != 0 && errno != EEXIST)
        throw RuntimeError("cannot create " + shown(target_dir) + ": " + std::strerror(errno));
    // Opened again from the root: what stands there now, a link included, is resolved inside the
    // tree.
    if (auto dir = directory(target_dir))
        return std::move(*dir);
    throw RuntimeError("cannot create " + shown(target_dir) + ": " + std::strerror(errno) +
                       (errno == ENOENT ? " (a link on the way that leads to nothing)" : ""));
}

std::optional<FileLock> RootDir::try_lock() const {
    const auto top = directory("/");
    if (!top)
        throw RuntimeError("cannot open " + path_.string() + ": " + std::strerror(errno));
    return top->try_lock();
}

std::optional<std::pair<std::string, std::string>> split_target_path(std::string_view target_path) {
    const std::size_t slash = target_path.find_last_of('/');
    const std::string_view name =
        slash == std::string_view::npos ? target_path : target_path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..")
        return std::nullopt;
    std::string dir(slash == std::string_view::npos ? std::string_view()
                                                    : target_path.substr(0, slash));
    if (dir.empty())
        dir = "/";
    return std::make_pair(std::move(dir), std::string(name));
}

PretendNoOpenat2ForTests::PretendNoOpenat2ForTests() {
    ++pretend_no_openat2;
}

PretendNoOpenat2ForTests::~PretendNoOpenat2ForTests() {
    --pretend_no_openat2;
}

}  // namespace hugetune
