#include "tuner/kernel/kernel_fs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

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

}  // namespace

KernelFs::KernelFs(fs::path root) : root_(std::move(root)) {
    std::error_code ec;
    auto canonical = fs::weakly_canonical(root_, ec);
    live_ = !ec && canonical == fs::path("/");
}

fs::path KernelFs::resolve(std::string_view abs, LastLink last) const {
    if (live_) {
        // The running system's own lookup from "/" is the walk resolve_in_root would do.
        std::string_view rel = abs;
        while (!rel.empty() && rel.front() == '/')
            rel.remove_prefix(1);
        return root_ / fs::path(rel);
    }
    return resolve_in_root(root_, abs, last);
}

bool KernelFs::exists(std::string_view abs) const {
    std::error_code ec;
    return fs::exists(resolve(abs), ec);
}

std::optional<std::string> KernelFs::read(std::string_view abs) const {
    std::ifstream in(resolve(abs), std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        return std::nullopt;
    return text.str();
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
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(resolve(abs_dir), ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

void KernelFs::write_u64(std::string_view abs, std::uint64_t value) const {
    auto path = resolve(abs);
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | (live_ ? 0 : O_TRUNC));
    if (fd < 0)
        throw RuntimeError("cannot open " + path.string() +
                           " for writing: " + std::strerror(errno));
    std::string text = std::to_string(value) + "\n";
    ssize_t n;
    do {
        n = ::write(fd, text.data(), text.size());
    } while (n < 0 && errno == EINTR);
    int saved = errno;
    close(fd);
    if (n < 0)
        throw RuntimeError("the kernel refused " + std::to_string(value) + " for " + path.string() +
                           ": " + std::strerror(saved));
}

KernelLog KernelFs::kernel_log() const {
    if (!live_) {
        std::ifstream in(resolve("/dev/kmsg"), std::ios::binary);
        return in ? read_kernel_log(in) : KernelLog{};
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
