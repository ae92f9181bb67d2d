#include "tuner/kernel/kernel_fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "model/errors.hpp"
#include "model/text.hpp"
#include "tuner/system/process.hpp"

namespace hugetune {
namespace fs = std::filesystem;

namespace {

// /dev/kmsg hands out one record per read() and returns EAGAIN at the end when opened
// non-blocking; each record is "prio,seq,usec,flags;text\n" followed by continuation lines.
KernelLog read_live_kmsg() {
    KernelLogReader reader;
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return reader.finish();
    std::vector<char> buf(16384);
    for (;;) {
        ssize_t n = read(fd, buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPIPE)
                continue;  // records overwritten while reading: skip ahead
            break;
        }
        if (n == 0)
            break;
        const std::string_view record(buf.data(), static_cast<std::size_t>(n));
        reader.add_line(record.substr(0, record.find('\n')));
    }
    close(fd);
    return reader.finish();
}

enum class ReadEnd { end, bound, failed };

// Hands what `fd` reads to `take` a piece at a time, to its end or past `bound` bytes. EAGAIN is
// an end: a device or FIFO opened non-blocking has nothing more to give now.
ReadEnd read_pieces(int fd, std::size_t bound, const std::function<void(std::string_view)>& take) {
    std::vector<char> buffer(1 << 16);
    for (std::size_t have = 0; have <= bound;) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && errno == EAGAIN))
            return ReadEnd::end;
        if (n < 0)
            return ReadEnd::failed;
        have += static_cast<std::size_t>(n);
        take(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    }
    return ReadEnd::bound;
}

// What kind of file `st` is, for a refusal.
std::string file_kind(const struct stat& st) {
    if (S_ISFIFO(st.st_mode))
        return "a FIFO";
    if (S_ISCHR(st.st_mode))
        return "a character device";
    if (S_ISBLK(st.st_mode))
        return "a block device";
    if (S_ISSOCK(st.st_mode))
        return "a socket";
    return "not a regular file";
}

}  // namespace

KernelFs::KernelFs(const fs::path& root) : root_(RootDir::open(root)) {}

OwnedFd KernelFs::open(std::string_view abs, int flags) const {
    OwnedFd fd = root_.open_path(abs, flags);
    // The kernel gives up after 40 links in one lookup (MAXSYMLINKS, include/linux/namei.h), and
    // refuses a /proc magic link (RESOLVE_NO_MAGICLINKS): a tree that is broken, not a file
    // that is missing.
    if (!fd.valid() && errno == ELOOP)
        throw RuntimeError(root_.shown(abs) +
                           ": more than 40 symbolic links on the way (a loop?), or a /proc "
                           "magic link; fix the links in that tree");
    return fd;
}

bool KernelFs::exists(std::string_view abs) const {
    return open(abs, O_PATH).valid();
}

std::optional<std::string> KernelFs::read(std::string_view abs) const {
    // O_NONBLOCK: a FIFO planted in a tree is refused by its type instead of waited on.
    const OwnedFd fd = open(abs, O_RDONLY | O_NONBLOCK);
    if (!fd.valid())
        return std::nullopt;
    struct stat st {};
    if (fstat(fd.get(), &st) != 0 || S_ISDIR(st.st_mode))
        return std::nullopt;  // a directory reads as nothing, as read() fails on it (EISDIR)
    // /proc and /sys files are regular files too; anything else here (a FIFO, a copy of
    // /dev/zero) would be waited on or read without end.
    if (!S_ISREG(st.st_mode))
        throw RuntimeError(root_.shown(abs) + " is " + file_kind(st) +
                           ", where a regular file belongs; replace it with the file itself");
    std::string text;
    const ReadEnd end = read_pieces(fd.get(), kMaxTreeFileBytes,
                                    [&text](std::string_view piece) { text += piece; });
    if (end == ReadEnd::bound)
        throw RuntimeError(root_.shown(abs) + " holds more than " +
                           std::to_string(kMaxTreeFileBytes >> 20) +
                           " MiB, more than any file hugetune reads whole; check what wrote it");
    if (end == ReadEnd::failed)
        return std::nullopt;
    return text;
}

std::optional<std::string> KernelFs::read_line(std::string_view abs) const {
    auto text = read(abs);
    if (!text)
        return std::nullopt;
    auto nl = text->find('\n');
    return std::string(trim(std::string_view(*text).substr(0, nl)));
}

std::optional<std::uint64_t> KernelFs::read_u64(std::string_view abs) const {
    auto line = read_line(abs);
    if (!line || line->empty())
        return std::nullopt;
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(line->data(), line->data() + line->size(), value);
    if (ec != std::errc() || ptr != line->data() + line->size())
        return std::nullopt;
    return value;
}

std::vector<std::string> KernelFs::list(std::string_view abs_dir) const {
    const auto dir = root_.directory(abs_dir);
    if (!dir)
        return {};
    // A directory that is there but cannot be read (no permission, an I/O error) is not an
    // empty one: a grub.d read as empty hides the drop-in that sets the value.
    auto names = dir->list();
    if (!names)
        throw RuntimeError("cannot list " + root_.shown(abs_dir) + ": " + std::strerror(errno) +
                           "; hugetune needs every file in it to know what the system boots with");
    std::sort(names->begin(), names->end());
    return std::move(*names);
}

void KernelFs::write_u64(std::string_view abs, std::uint64_t value) const {
    const std::string shown = root_.shown(abs);
    // A tree's FIFO without a reader refuses a non-blocking open (ENXIO) instead of waiting.
    const OwnedFd fd = open(abs, O_WRONLY | (is_live() ? 0 : O_TRUNC | O_NONBLOCK));
    if (!fd.valid())
        throw RuntimeError("cannot open " + shown + " for writing: " + std::strerror(errno));
    std::string text = std::to_string(value) + "\n";
    ssize_t n;
    do {
        n = ::write(fd.get(), text.data(), text.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        throw RuntimeError("the kernel refused " + std::to_string(value) + " for " + shown + ": " +
                           std::strerror(errno));
}

KernelLog KernelFs::tree_kernel_log() const {
    // A tree's log is a file of kmsg records or dmesg lines, read whole within the reader's
    // bounds. Where the tree holds a device or FIFO there (a real system's /dev/kmsg is a character
    // device), at most kMaxTreeFileBytes of it are read, so that a copy of /dev/zero ends too.
    KernelLogReader reader;
    const OwnedFd fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
    struct stat st {};
    if (!fd.valid() || fstat(fd.get(), &st) != 0 || S_ISDIR(st.st_mode))
        return {};
    const std::size_t bound =
        S_ISREG(st.st_mode) ? std::numeric_limits<std::size_t>::max() : kMaxTreeFileBytes;
    if (read_pieces(fd.get(), bound, [&reader](std::string_view piece) {
            reader.add_text(piece);
        }) == ReadEnd::failed)
        return {};
    return reader.finish();
}

KernelLog KernelFs::kernel_log() const {
    if (!is_live())
        return tree_kernel_log();
    auto live = read_live_kmsg();
    if (!live.messages.empty())
        return live;
    if (program_exists("journalctl")) {
        KernelLogReader reader;
        auto r = run_program({"journalctl", "-k", "-b", "--no-pager", "-o", "cat"},
                             [&reader](std::string_view piece) { reader.add_text(piece); });
        if (r.exit_code == 0)
            return reader.finish();
    }
    return {};
}

}  // namespace hugetune
