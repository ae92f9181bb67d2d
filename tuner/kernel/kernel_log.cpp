#include "tuner/kernel/kernel_log.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

#include "model/text.hpp"

namespace hugetune {
namespace {

constexpr std::string_view kBootStart = "Linux version ";

bool digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

// "03:00:00", or with a fraction "03:00:00.123456" (journalctl -o short-precise).
bool clock_time(std::string_view time) {
    if (time.size() > 9 && time[8] == '.' && digits(time.substr(9)))
        time = time.substr(0, 8);
    return time.size() == 8 && time[2] == ':' && time[5] == ':' && digits(time.substr(0, 2)) &&
           digits(time.substr(3, 2)) && digits(time.substr(6, 2));
}

// "[    4.350400]": seconds since boot, as dmesg and journalctl -o short-monotonic print them.
bool monotonic_timestamp(std::string_view t) {
    if (t.size() < 3 || t.front() != '[' || t.back() != ']')
        return false;
    const auto number = trim(t.substr(1, t.size() - 2));
    return !number.empty() && number.find_first_not_of("0123456789.") == std::string_view::npos;
}

// "[    T1]" or "[  C12]": the caller id printk adds with CONFIG_PRINTK_CALLER, a thread or,
// outside task context, a CPU (kernel/printk/printk.c, print_caller()).
std::size_t caller_id_length(std::string_view t) {
    const auto close = t.find(']');
    if (!t.starts_with('[') || close == std::string_view::npos)
        return 0;
    const auto id = trim(t.substr(1, close - 1));
    return id.size() > 1 && (id[0] == 'T' || id[0] == 'C') && digits(id.substr(1)) ? close + 1 : 0;
}

// "Dec 01 03:00:00" or "Dec  1 03:00:00" (journalctl -o short), the time possibly with a
// fraction (-o short-precise).
bool short_timestamp(std::string_view t) {
    if (t.size() < 14 || !std::isupper(static_cast<unsigned char>(t[0])) ||
        !std::islower(static_cast<unsigned char>(t[1])) ||
        !std::islower(static_cast<unsigned char>(t[2])) || t[3] != ' ')
        return false;
    t.remove_prefix(3);
    while (!t.empty() && t.front() == ' ')
        t.remove_prefix(1);
    const auto space = t.find(' ');
    if (space == std::string_view::npos || !digits(t.substr(0, space)))
        return false;
    return clock_time(t.substr(space + 1));
}

// "2026-12-01T03:00:04+00:00" (journalctl -o short-iso): a date, 'T', then anything unblank.
bool iso_timestamp(std::string_view t) {
    return t.size() > 11 && digits(t.substr(0, 4)) && t[4] == '-' && digits(t.substr(5, 2)) &&
           t[7] == '-' && digits(t.substr(8, 2)) && t[10] == 'T' &&
           t.find(' ') == std::string_view::npos;
}

// The length of a journalctl -k prefix "<timestamp> <host> kernel: ", or 0: -o short,
// short-precise, short-iso, short-monotonic.
std::size_t journal_prefix_length(std::string_view line) {
    constexpr std::string_view marker = " kernel: ";
    const auto at = line.find(marker);
    if (at == std::string_view::npos)
        return 0;
    const auto head = line.substr(0, at);
    const auto host = head.rfind(' ');
    if (host == std::string_view::npos || host + 1 == head.size())
        return 0;
    const auto stamp = head.substr(0, host);
    return short_timestamp(stamp) || iso_timestamp(stamp) || monotonic_timestamp(stamp)
               ? at + marker.size()
               : 0;
}

// The seconds since boot a kmsg record ("prio,seq,usec,flags;") or a dmesg line ("[ 4.350400]")
// carries; nothing for a line without them (journalctl's formats, a bare message).
// "   12.000001]" after a dmesg line's '[', read by hand: every line of a log of any size is
// asked, so no allocation, no locale, no second pass.
std::optional<double> bracket_seconds(std::string_view t) {
    std::size_t i = 0;
    while (i < t.size() && t[i] == ' ')
        ++i;
    std::uint64_t whole = 0, fraction = 0, scale = 1;
    bool any = false, dot = false;
    for (; i < t.size() && t[i] != ']' && t[i] != ' '; ++i) {
        const char c = t[i];
        if (c == '.' && !dot) {
            dot = true;
            continue;
        }
        if (c < '0' || c > '9' || whole > 1'000'000'000'000)
            return std::nullopt;
        any = true;
        if (!dot)
            whole = whole * 10 + static_cast<std::uint64_t>(c - '0');
        else if (scale < 1'000'000'000) {
            fraction = fraction * 10 + static_cast<std::uint64_t>(c - '0');
            scale *= 10;
        }
    }
    while (i < t.size() && t[i] == ' ')
        ++i;
    if (!any || i == t.size() || t[i] != ']')
        return std::nullopt;
    return static_cast<double>(whole) + static_cast<double>(fraction) / static_cast<double>(scale);
}

// Every line is asked (verify reads logs of any size): no allocation, no locale.
std::optional<double> boot_seconds(std::string_view line) {
    const auto semi = !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))
                          ? line.find(';')
                          : std::string_view::npos;
    if (semi != std::string_view::npos) {
        const auto head = line.substr(0, semi);
        const auto first = head.find(',');
        const auto second = head.find(',', first + 1);
        const auto third = head.find(',', second + 1);
        std::uint64_t usec = 0;
        if (third != std::string_view::npos &&
            digits(head.substr(second + 1, third - second - 1)) &&
            std::from_chars(head.data() + second + 1, head.data() + third, usec).ec == std::errc())
            return static_cast<double>(usec) / 1e6;
    }
    const auto open = line.find_first_not_of(' ');
    if (open != std::string_view::npos && line[open] == '[')
        return bracket_seconds(line.substr(open + 1));
    return std::nullopt;
}

// A kmsg record's priority holds its facility above the level: 0 is the kernel's; a program
// writing to /dev/kmsg gets another (printk_ringbuffer's LOG_USER for a plain write).
bool from_user_space(std::string_view line) {
    const auto comma = line.find(',');
    const auto semi = line.find(';');
    if (comma == std::string_view::npos || semi == std::string_view::npos || comma > semi ||
        !digits(line.substr(0, comma)))
        return false;
    return std::stoul(std::string(line.substr(0, comma))) >= 8;
}

// The kernel's banner starts a boot: the first message, logged before the clock runs, so at
// 0 s where the line says when (docs/kernel-facts.md "What a boot log says about itself"). A
// "Linux version" message later in a boot (a device's name, a message written to /dev/kmsg)
// starts nothing.
bool starts_boot(std::string_view line, std::optional<double> seconds) {
    if (line.find(kBootStart) == std::string_view::npos ||
        !strip_kernel_log_prefix(line).starts_with(kBootStart))
        return false;
    return !seconds || *seconds < 1.0;
}

// journalctl's own line between two boots' messages: "-- Boot <id> --" (older releases
// "-- Reboot --").
bool journal_boot_separator(std::string_view line) {
    return line.starts_with("-- Boot ") || line.starts_with("-- Reboot --");
}

// Within a boot the time since boot only grows; records of different CPUs may be stored a
// little out of order, but never a second apart. A line a second or more before the one ahead
// of it is a later boot whose first messages, its banner among them, are not in the log: a
// concatenated or rotated log (docs/kernel-facts.md "What a boot log says about itself").
constexpr double kClockStepBackSeconds = 1.0;

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
    if (const auto journal = journal_prefix_length(line))
        return std::string(line.substr(journal));
    // dmesg: "[    4.350400] text", with printk's caller id "[    4.350400] [    T1] text"
    auto t = trim(line);
    if (!t.empty() && t.front() == '[') {
        auto close_br = t.find(']');
        if (close_br != std::string_view::npos) {
            t = trim(t.substr(close_br + 1));
            return std::string(trim(t.substr(caller_id_length(t))));
        }
    }
    return std::string(line);
}

void KernelLogReader::add_line(std::string_view line) {
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    if (line.starts_with("-- ")) {
        if (journal_boot_separator(line))
            start_boot();
        return;
    }
    if (from_user_space(line))
        return;
    const auto seconds = boot_seconds(line);
    if (starts_boot(line, seconds) ||
        (seconds && last_seconds_ && *seconds <= *last_seconds_ - kClockStepBackSeconds))
        start_boot();
    if (seconds)
        last_seconds_ = seconds;
    if (kept_.size() < kMaxBootLogMessages && kept_bytes_ + line.size() <= kMaxBootLogBytes) {
        kept_.emplace_back(line);
        kept_bytes_ += line.size();
    } else {
        ++log_.left_out;
    }
}

void KernelLogReader::start_boot() {
    kept_.clear();
    kept_bytes_ = 0;
    log_.left_out = 0;
    last_seconds_.reset();
}

void KernelLogReader::add_text(std::string_view text) {
    while (!text.empty()) {
        const auto nl = text.find('\n');
        const auto piece = text.substr(0, nl);
        const auto room = kMaxLogLineBytes - std::min(kMaxLogLineBytes, open_line_.size());
        open_line_.append(piece.substr(0, room));
        open_line_cut_ = open_line_cut_ || piece.size() > room;
        if (nl == std::string_view::npos)
            return;
        add_line(open_line_);
        log_.cut_lines += open_line_cut_ ? 1 : 0;
        open_line_.clear();
        open_line_cut_ = false;
        text.remove_prefix(nl + 1);
    }
}

KernelLog KernelLogReader::finish() {
    if (!open_line_.empty()) {
        add_line(open_line_);
        log_.cut_lines += open_line_cut_ ? 1 : 0;
        open_line_.clear();
        open_line_cut_ = false;
    }
    KernelLog out = log_;
    out.messages.reserve(kept_.size());
    for (const auto& line : kept_)
        out.messages.push_back(strip_kernel_log_prefix(line));
    return out;
}

KernelLog read_kernel_log(std::istream& in) {
    KernelLogReader reader;
    std::array<char, 1 << 16> buffer;
    while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0)
        reader.add_text({buffer.data(), static_cast<std::size_t>(in.gcount())});
    return reader.finish();
}

KernelLog read_kernel_log(std::string_view text) {
    KernelLogReader reader;
    reader.add_text(text);
    return reader.finish();
}

std::string kernel_log_bounds_note(const KernelLog& log) {
    std::string note;
    if (log.left_out > 0)
        note = "only the first " + std::to_string(log.messages.size()) +
               " messages of its last boot were read (at most " +
               std::to_string(kMaxBootLogMessages) + " messages or " +
               std::to_string(kMaxBootLogBytes / (1024 * 1024)) + " MiB of a boot are kept); the " +
               std::to_string(log.left_out) +
               " after them were left out, as the kernel logs the boot allocation within a "
               "boot's first seconds";
    if (log.cut_lines > 0)
        note += std::string(note.empty() ? "" : "; ") + std::to_string(log.cut_lines) +
                " lines longer than " + std::to_string(kMaxLogLineBytes / 1024) +
                " KiB, which no kernel message is, were cut there";
    return note;
}

}  // namespace hugetune
