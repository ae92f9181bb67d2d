#include "tuner/kernel/kernel_fs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <functional>
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

// Hands what `fd` reads to `take` a piece at a time, to its end: false when a read fails.
bool read_pieces(int fd, const std::function<void(std::string_view)>& take) {
    std::vector<char> buffer(1 << 16);
    for (;;) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n == 0;
        take(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    }
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
    // O_NONBLOCK: a FIFO planted in a tree answers at once instead of waiting for a writer.
    const OwnedFd fd = open(abs, O_RDONLY | O_NONBLOCK);
    std::string text;
    if (!fd.valid() || !read_pieces(fd.get(), [&text](std::string_view piece) { text += piece; }))
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
    auto names =
        dir ? dir->list().value_or(std::vector<std::string>{}) : std::vector<std::string>{};
    std::sort(names.begin(), names.end());
    return names;
}

void KernelFs::write_u64(std::string_view abs, std::uint64_t value) const {
    const std::string shown = root_.shown(abs);
    const OwnedFd fd = open(abs, O_WRONLY | (is_live() ? 0 : O_TRUNC));
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

KernelLog KernelFs::kernel_log() const {
    if (!is_live()) {
        // A tree's log is a file of kmsg records or dmesg lines, read within the reader's bounds.
        KernelLogReader reader;
        const OwnedFd fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
        if (!fd.valid() ||
            !read_pieces(fd.get(), [&reader](std::string_view piece) { reader.add_text(piece); }))
            return {};
        return reader.finish();
    }
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
