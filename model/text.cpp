#include "model/text.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

namespace hugetune {
namespace {

std::string fixed_text(double value, int decimals, const char* suffix) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f%s", decimals, value, suffix);
    return buf;
}

// Whether value still prints below limit at this many decimals: 999.96 prints as "1000.0",
// which reads better as the next unit.
bool prints_below(double value, double limit, int decimals) {
    return value < limit - 0.5 * std::pow(10.0, -decimals);
}

// Beyond a hundred minutes hours read better; beyond a million seconds (11 days) and below
// a twentieth of a nanosecond no allocation is plausible, so the number is only kept readable.
constexpr long long kHourSeconds = 3600;

std::string scientific_text(double seconds) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g s", seconds);
    return buf;
}

}  // namespace

std::string page_size_text(std::uint64_t kb, SizeStyle style) {
    if (style == SizeStyle::sysfs)
        return std::to_string(kb) + "kB";
    const bool people = style == SizeStyle::people;
    if (kb != 0 && kb % (1024 * 1024) == 0)
        return std::to_string(kb / 1024 / 1024) + (people ? " GiB" : "G");
    if (kb != 0 && kb % 1024 == 0)
        return std::to_string(kb / 1024) + (people ? " MiB" : "M");
    return std::to_string(kb) + (people ? " KiB" : "K");
}

std::string memory_text(double bytes) {
    constexpr int kDigits = 4;
    constexpr double kMib = 1024.0 * 1024;
    constexpr double kGib = kMib * 1024;
    constexpr double kTib = kGib * 1024;
    if (bytes >= kTib)
        return significant_text(bytes / kTib, kDigits) + " TiB";
    if (bytes >= kGib)
        return significant_text(bytes / kGib, kDigits) + " GiB";
    return significant_text(bytes / kMib, kDigits) + " MiB";
}

std::string seconds_text(double seconds) {
    if (!std::isfinite(seconds))
        return fixed_text(seconds, 0, " s");
    if (seconds < 0)
        return "-" + seconds_text(-seconds);
    if (seconds == 0)
        return "0 s";
    if (seconds < 0.05e-9 || seconds >= 1e6)
        return scientific_text(seconds);
    if (seconds < 0.05e-6)
        return fixed_text(seconds * 1e9, 1, " ns");
    if (prints_below(seconds * 1e6, 1000, 1))
        return fixed_text(seconds * 1e6, 1, " us");
    if (prints_below(seconds * 1e3, 1000, 1))
        return fixed_text(seconds * 1e3, 1, " ms");
    if (prints_below(seconds, 10, 2))
        return fixed_text(seconds, 2, " s");
    if (prints_below(seconds, 60, 1))
        return fixed_text(seconds, 1, " s");
    const long long whole = std::llround(seconds);
    if (whole < kHourSeconds * 5 / 3)
        return std::to_string(whole / 60) + " min " + std::to_string(whole % 60) + " s";
    const long long minutes = std::llround(seconds / 60);
    return std::to_string(minutes / 60) + " h " + std::to_string(minutes % 60) + " min";
}

std::string percent_text(double fraction, int decimals) {
    return fixed_text(fraction * 100, decimals, "%");
}

std::string decimals_text(double value, int decimals) {
    return fixed_text(value, decimals, "");
}

std::string significant_text(double value, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    return buf;
}

std::string count_text(long long n, std::string_view noun, std::string_view plural) {
    std::string out = std::to_string(n) + " ";
    if (n == 1)
        return out.append(noun);
    if (!plural.empty())
        return out.append(plural);
    return out.append(noun).append("s");
}

std::string number_text(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

std::vector<std::string_view> comma_items(std::string_view text) {
    std::vector<std::string_view> items;
    if (text.empty())
        return items;
    for (std::size_t at = 0;;) {
        const std::size_t comma = text.find(',', at);
        items.push_back(text.substr(at, comma - at));  // to the end when there is no comma
        if (comma == std::string_view::npos)
            return items;
        at = comma + 1;
    }
}

std::string_view trim(std::string_view s) {
    constexpr std::string_view blanks = " \t\r\n\v\f";
    const auto first = s.find_first_not_of(blanks);
    if (first == std::string_view::npos)
        return {};
    return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

std::string ascii_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

namespace {

// The length of the well-formed UTF-8 sequence at text[i] (Unicode 15, table 3-7), or 0 when
// the byte there begins none: a lone continuation byte, an overlong form, a surrogate, a code
// point above U+10FFFF, or a sequence cut short.
std::size_t utf8_sequence_bytes(std::string_view text, std::size_t i) {
    const auto at = [&](std::size_t k) -> unsigned char {
        return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
    };
    const unsigned char lead = at(0);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xbf;  // the second byte's range
    if (lead >= 0xc2 && lead <= 0xdf)
        length = 2;
    else if (lead >= 0xe0 && lead <= 0xef)
        length = 3;
    else if (lead >= 0xf0 && lead <= 0xf4)
        length = 4;
    else
        return 0;
    if (lead == 0xe0)
        low = 0xa0;
    else if (lead == 0xed)
        high = 0x9f;
    else if (lead == 0xf0)
        low = 0x90;
    else if (lead == 0xf4)
        high = 0x8f;
    if (at(1) < low || at(1) > high)
        return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (at(k) < 0x80 || at(k) > 0xbf)
            return 0;
    return length;
}

}  // namespace

std::string printable_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        char buf[8];
        if (byte == '\t' || (byte >= 0x20 && byte < 0x7f)) {
            out += text[i];
        } else if (byte == '\n') {
            out += "\\n";
        } else if (byte == '\r') {
            out += "\\r";
        } else if (const std::size_t length = byte >= 0x80 ? utf8_sequence_bytes(text, i) : 0;
                   length == 2 && byte == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            // U+0080 to U+009F, the C1 controls, are 0xC2 0x80..0x9F in UTF-8.
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
            out += buf;
            ++i;
        } else if (length > 0) {
            out.append(text.substr(i, length));
            i += length - 1;
        } else {
            std::snprintf(buf, sizeof buf, "\\x%02x", byte);
            out += buf;
        }
    }
    return out;
}

std::string printable_lines(std::string_view text) {
    std::string out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto nl = text.find('\n', start);
        out += printable_text(text.substr(start, nl == std::string_view::npos ? nl : nl - start));
        if (nl == std::string_view::npos)
            break;
        out += '\n';
        start = nl + 1;
    }
    return out;
}

bool is_iso8601_utc(std::string_view t) {
    static constexpr std::string_view shape = "dddd-dd-ddTdd:dd:ddZ";
    if (t.size() != shape.size())
        return false;
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != shape[i])
            return false;
    const auto number = [&](std::size_t at, std::size_t len) {
        int v = 0;
        for (std::size_t i = at; i < at + len; ++i)
            v = v * 10 + (t[i] - '0');
        return v;
    };
    const int year = number(0, 4), month = number(5, 2), day = number(8, 2);
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > days[month - 1] + (month == 2 && leap ? 1 : 0))
        return false;
    return number(11, 2) <= 23 && number(14, 2) <= 59 && number(17, 2) <= 60;
}

std::optional<std::int64_t> unix_seconds_of_iso8601_utc(std::string_view t) {
    if (!is_iso8601_utc(t))
        return std::nullopt;
    const auto number = [&](std::size_t at, std::size_t len) {
        std::int64_t v = 0;
        for (std::size_t i = at; i < at + len; ++i)
            v = v * 10 + (t[i] - '0');
        return v;
    };
    // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    std::int64_t y = number(0, 4);
    const std::int64_t m = number(5, 2), d = number(8, 2);
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = y / 400;
    const std::int64_t yoe = y - era * 400;
    const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const std::int64_t days = era * 146097 + doe - 719468;
    return days * 86400 + number(11, 2) * 3600 + number(14, 2) * 60 + number(17, 2);
}

std::string iso8601_utc(std::chrono::system_clock::time_point t) {
    std::time_t secs = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace hugetune
