// The kernel log read as a stream of lines, whatever its form (kmsg records, dmesg, journalctl
// -k): each line's prefix stripped, only the last boot kept, and of it at most a bounded start,
// so that a journal of months or a file of any size costs one pass and bounded memory (README
// "Input size"). The boot allocation lines come within a boot's first seconds, so the start is
// what verify needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune {

// How much of the last boot is kept. A large server's whole boot logs a few thousand messages,
// one per CPU and device at most; 100,000 is twenty times that. The kernel's records are at
// most 1 KiB of text (kernel/printk/internal.h, PRINTKRB_RECORD_MAX), so a longer line is no
// kernel message and is cut: a file without newlines costs no more memory than a short one.
inline constexpr std::size_t kMaxBootLogMessages = 100'000;
inline constexpr std::size_t kMaxBootLogBytes = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxLogLineBytes = 8 * 1024;

struct KernelLog {
    std::vector<std::string> messages;  // the last boot's first messages, oldest first
    std::uint64_t left_out = 0;         // that boot's later messages, past the bounds
    std::uint64_t cut_lines = 0;        // lines longer than kMaxLogLineBytes, cut there
};

// Takes the log a piece at a time. A "Linux version" message starts a boot (docs/kernel-facts.md
// "What a boot log says about itself") and drops what was kept before it, and so do journalctl's
// "-- Boot ID --" line and a clock that steps back a second or more (a later boot whose start
// is lost); journalctl's other "-- ..." lines are passed over.
class KernelLogReader {
  public:
    // One line without its newline.
    void add_line(std::string_view line);
    // Bytes as they come, split at newlines; a line left open waits for the next piece.
    void add_text(std::string_view text);
    // What was kept, the line still open included.
    KernelLog finish();

  private:
    void start_boot();

    std::vector<std::string> kept_;  // the current boot's lines, prefixes still on
    std::size_t kept_bytes_ = 0;
    KernelLog log_;
    std::string open_line_;
    bool open_line_cut_ = false;
    std::optional<double> last_seconds_;  // the time since boot of the last line that had one
};

// Reads `in` to its end; the caller checks in.bad().
KernelLog read_kernel_log(std::istream& in);

// A saved kernel log as text, the same way.
KernelLog read_kernel_log(std::string_view text);

// One sentence on the bounds `log` hit, or "" when it hit none.
std::string kernel_log_bounds_note(const KernelLog& log);

// Parses one kernel log line in kmsg ("6,123,456,-;text"), dmesg ("[  1.23] text", also with
// printk's caller id "[  1.23] [    T1] text") or journalctl -k form ("Dec 01 03:00:00 host
// kernel: text"; -o short, short-precise, short-iso, short-monotonic) and returns the text;
// other lines come back unchanged.
std::string strip_kernel_log_prefix(std::string_view line);

}  // namespace hugetune
