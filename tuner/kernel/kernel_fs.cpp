#include "tuner/kernel/kernel_fs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "model/text.hpp"
#include "tuner/system/errors.hpp"
#include "tuner/system/process.hpp"

namespace hugetune {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

// /dev/kmsg hands out one record per read() and returns EAGAIN at the end when opened
// non-blocking; each record is "prio,seq,usec,flags;text\n" followed by continuation lines.
std::vector<std::string> read_live_kmsg() {
    std::vector<std::string> out;
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return out;
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
        std::string record(buf.data(), static_cast<std::size_t>(n));
        auto nl = record.find('\n');
        out.push_back(strip_kernel_log_prefix(record.substr(0, nl)));
    }
    close(fd);
    return out;
}

}  // namespace

std::string strip_kernel_log_prefix(std::string_view line) {
    // kmsg record: digits ',' digits ',' digits ',' flags ';' text
    auto semi = line.find(';');
    if (semi != std::string_view::npos && semi > 0 &&
        std::isdigit(static_cast<unsigned char>(line[0]))) {
        auto head = line.substr(0, semi);
        if (std::count(head.begin(), head.end(), ',') >= 3)
            return std::string(line.substr(semi + 1));
    }
    // journalctl -k, short or short-iso: "Dec 01 03:00:00 host kernel: text"
    static const std::regex journal(
        R"(^(?:[A-Z][a-z]{2} +\d+ \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+) \S+ kernel: )");
    std::match_results<std::string_view::const_iterator> m;
    if (std::regex_search(line.begin(), line.end(), m, journal))
        return std::string(line.substr(static_cast<std::size_t>(m.length(0))));
    // dmesg / journalctl -o short-monotonic: "[    4.350400] text"
    auto t = trim(line);
    if (!t.empty() && t.front() == '[') {
        auto close_br = t.find(']');
        if (close_br != std::string_view::npos)
            return std::string(trim(t.substr(close_br + 1)));
    }
    return std::string(line);
}

std::vector<std::string> kernel_log_messages(const std::string& text) {
    std::vector<std::string> out;
    for (const auto& line : split_lines(text))
        out.push_back(strip_kernel_log_prefix(line));
    return out;
}

KernelFs::KernelFs(fs::path root) : root_(std::move(root)) {
    std::error_code ec;
    auto canonical = fs::weakly_canonical(root_, ec);
    live_ = !ec && canonical == fs::path("/");
}

fs::path KernelFs::resolve(std::string_view abs) const {
    std::string_view rel = abs;
    while (!rel.empty() && rel.front() == '/')
        rel.remove_prefix(1);
    return root_ / fs::path(rel);
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

std::vector<std::string> KernelFs::kernel_log() const {
    if (!live_) {
        auto text = read("/dev/kmsg");
        return text ? kernel_log_messages(*text) : std::vector<std::string>{};
    }
    auto live = read_live_kmsg();
    if (!live.empty())
        return live;
    if (program_exists("journalctl")) {
        auto r = run_program({"journalctl", "-k", "-b", "--no-pager", "-o", "cat"});
        if (r.exit_code == 0) {
            std::vector<std::string> out;
            for (const auto& line : split_lines(r.out))
                if (!line.starts_with("-- "))
                    out.push_back(line);
            return out;
        }
    }
    return {};
}

}  // namespace hugetune
