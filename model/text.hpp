// How sizes, times, fractions and numbers read in hugetune's output: one format each, so every
// command and report writes the same value the same way.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hugetune {

// The three ways a huge page size is written: for people ("2 MiB", "1 GiB", "64 KiB"); as the
// kernel's command line takes it, memparse() units ("2M", "1G", "64K": hugepagesz=2M); as sysfs
// names a pool, in kB ("2048kB": /sys/kernel/mm/hugepages/hugepages-2048kB).
enum class SizeStyle { people, cmdline, sysfs };

// A huge page size in KiB, in the largest unit that divides it (sysfs: always kB).
std::string page_size_text(std::uint64_t kb, SizeStyle style = SizeStyle::people);

// An amount of memory for people, in MiB below 1 GiB, GiB below 1 TiB, TiB above, to four
// significant digits: memory_text(3 * 2^30) is "3 GiB", memory_text(2^40 * 1.5) "1.5 TiB",
// memory_text(23.66 * 2^30) "23.66 GiB". The one way output sizes memory; a size given in a
// flag's own unit (MiB per node) stays in that unit where the flag is named.
std::string memory_text(double bytes);

// The items one after another with `separator` between them, each as `text` writes it (the item
// itself by default): join(sizes) is "2 MiB, 1 GiB"; join(counts, ",", number) "1,2,4"; nothing
// for no items. The one way a list is written into a message or a line.
template <typename Items, typename Text = std::identity>
std::string join(const Items& items, std::string_view separator = ", ", Text text = {}) {
    std::string out;
    bool first = true;
    for (const auto& item : items) {
        if (!first)
            out += separator;
        out += text(item);
        first = false;
    }
    return out;
}

// Thread counts (or any whole numbers, held as int or double) as a list for a message: "1, 2,
// 4"; each value written whole. The one way a message lists counts.
template <typename Counts>
std::string counts_text(const Counts& counts) {
    return join(counts, ", ", [](auto n) { return std::to_string(static_cast<long long>(n)); });
}

// A number as an option's help and its refusals write it: as short as a stream writes it, "2",
// "0.5", "37.5". The one way a setting's default and its range read.
std::string number_text(double value);

// A duration from a single page fault to hours of boot allocation, in the unit that keeps the
// number short: "0.1 ns", "85.3 us", "32.1 ms", "3.24 s", "12.5 s", "4 min 10 s", "2 h 5 min";
// "0 s" for zero; beyond that range "9e+07 s".
std::string seconds_text(double seconds);

// A fraction as a percentage: percent_text(0.652) is "65%", percent_text(0.0443, 1) "4.4%".
std::string percent_text(double fraction, int decimals = 0);

// A number to a fixed count of decimals ("0.999") or of significant digits ("0.006132").
std::string decimals_text(double value, int decimals);
std::string significant_text(double value, int digits);

// A count with its noun, singular for one: count_text(1, "host") is "1 host", count_text(3,
// "host") "3 hosts", count_text(0, "run") "0 runs"; `plural` for a noun that takes more than an
// "s" (count_text(2, "query", "queries")). The one way output counts things.
std::string count_text(long long n, std::string_view noun, std::string_view plural = {});

// The items of a comma-separated list, as typed, in order: "1,2,4" is {"1", "2", "4"}; an empty
// text has none. An empty item (a comma first, last or doubled) is kept as "" for the reader to
// refuse: every list hugetune reads, from a flag or a stored column, is split here, so a
// trailing comma means the same everywhere.
std::vector<std::string_view> comma_items(std::string_view text);

// s without its leading and trailing ASCII blanks (space, tab, CR, LF, VT, FF).
std::string_view trim(std::string_view s);

// s with its ASCII capitals in lower case, every other byte as it is: how names DNS compares
// and identities hashed (model/hardware_identity.hpp) are made one form, whatever the locale.
std::string ascii_lower(std::string_view s);

// Text from a file, a command line or another machine, safe to print on a terminal: control
// characters (C0, DEL and C1 as UTF-8) become visible escapes ("\x1b", "\r", "\n",
// "\u009b"), so input cannot move the cursor, retitle the window or clear the screen, and so
// do bytes that are not UTF-8 ("\xff"), so the result is valid UTF-8 and fits in any JSON
// string. Tab and every well-formed character are kept; the result escapes to itself, so
// escaping twice changes nothing.
std::string printable_text(std::string_view text);

// Several lines of output, each made printable; the line breaks stay.
std::string printable_lines(std::string_view text);

// ISO 8601 in UTC to the second: "2026-11-30T16:40:00Z".
std::string iso8601_utc(std::chrono::system_clock::time_point t);
// Whether `text` is a time iso8601_utc writes ("2026-12-01T10:00:00Z") that the calendar has:
// month 1 to 12, a day the month has (leap years included), 00:00:00 to 23:59:60.
bool is_iso8601_utc(std::string_view text);
// The unix time of such a text (a leap second reads as the second after it); nothing for a
// text is_iso8601_utc refuses.
std::optional<std::int64_t> unix_seconds_of_iso8601_utc(std::string_view text);

inline std::string utc_now() {
    return iso8601_utc(std::chrono::system_clock::now());
}

inline std::int64_t unix_now_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace hugetune
