#include "model/text.hpp"

#include <ctime>

namespace hugetune {

std::string page_size_text(std::uint64_t kb) {
    if (kb >= 1024 * 1024 && kb % (1024 * 1024) == 0)
        return std::to_string(kb / 1024 / 1024) + " GiB";
    if (kb >= 1024 && kb % 1024 == 0)
        return std::to_string(kb / 1024) + " MiB";
    return std::to_string(kb) + " KiB";
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
