// How sizes and times read in hugetune's output.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace hugetune {

// A huge page size in KiB as people write it: "2 MiB", "1 GiB", "64 KiB".
std::string page_size_text(std::uint64_t kb);

// ISO 8601 in UTC to the second: "2026-11-30T16:40:00Z".
std::string iso8601_utc(std::chrono::system_clock::time_point t);
inline std::string utc_now() {
    return iso8601_utc(std::chrono::system_clock::now());
}

}  // namespace hugetune
