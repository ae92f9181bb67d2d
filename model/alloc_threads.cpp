#include "model/alloc_threads.hpp"

#include <algorithm>
#include <cstdio>

namespace hugetune {

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
