#include "model/alloc_threads.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "model/text.hpp"

namespace hugetune {
namespace {

// Decimal digits only, as large as an int holds: from_chars alone would take a minus sign.
std::optional<int> decimal_count(std::string_view text) {
    if (text.empty() || text.front() < '0' || text.front() > '9')
        return std::nullopt;
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end)
        return std::nullopt;
    return value;
}

}  // namespace

std::optional<std::uint64_t> parse_thread_count(std::string_view text) {
    const auto count = decimal_count(text);
    if (!count || *count < 1 || static_cast<std::uint64_t>(*count) > kMaxAllocThreads)
        return std::nullopt;
    return static_cast<std::uint64_t>(*count);
}

ThreadCountList parse_thread_counts(std::string_view list) {
    ThreadCountList parsed;
    for (const std::string_view item : comma_items(list)) {
        const auto count = decimal_count(item);
        if (!count)
            return {{}, std::string(item)};
        parsed.counts.push_back(*count);
    }
    return parsed;
}

std::string alloc_threads_setting(std::uint64_t threads) {
    return "hugepage_alloc_threads=" + std::to_string(threads);
}

bool release_supports_alloc_threads(int major, int minor) {
    return major > 6 || (major == 6 && minor >= 15);
}

std::optional<bool> release_honours_alloc_threads(const std::string& release) {
    int major = 0, minor = 0;
    if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2)
        return std::nullopt;
    return release_supports_alloc_threads(major, minor);
}

int kernel_default_alloc_threads(int online_cpus) {
    return std::max(1, online_cpus / 4);
}

}  // namespace hugetune
