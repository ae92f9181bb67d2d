#include "model/boot_plausibility.hpp"

#include <algorithm>
#include <cmath>

#include "model/text.hpp"

namespace hugetune::model {

double least_zeroing_ms(std::uint64_t pages, std::uint64_t page_size_kb, std::uint64_t writers) {
    const double bytes = static_cast<double>(pages) * static_cast<double>(page_size_kb) * 1024.0;
    const double ceiling = kZeroingCeilingBytesPerSecondPerNode *
                           static_cast<double>(std::max<std::uint64_t>(writers, 1));
    return bytes / ceiling * 1000.0;
}

std::optional<std::string> faster_than_zeroing(std::uint64_t measured_ms, std::uint64_t pages,
                                               std::uint64_t page_size_kb, std::uint64_t writers) {
    const double least_ms = least_zeroing_ms(pages, page_size_kb, writers);
    if (static_cast<double>(measured_ms) + static_cast<double>(kCoarsestJiffyMs) >= least_ms)
        return std::nullopt;
    const double gib =
        static_cast<double>(pages) * static_cast<double>(page_size_kb) / (1024.0 * 1024.0);
    return "the kernel logged " + std::to_string(measured_ms) + " ms for " + std::to_string(pages) +
           " pages of " + page_size_text(page_size_kb) + " (" +
           decimals_text(gib, gib < 10 ? 1 : 0) +
           " GiB) zeroed as they were allocated (init_on_alloc), " + "which takes at least " +
           seconds_text(least_ms / 1000.0) + " at " +
           decimals_text(kZeroingCeilingBytesPerSecondPerNode / std::pow(1024.0, 4), 0) +
           " TiB/s for each of " + std::to_string(std::max<std::uint64_t>(writers, 1)) +
           " writing nodes or threads";
}

std::optional<std::string> implausible_ratio(double ratio) {
    if (ratio >= kMinPlausibleRatio && ratio <= kMaxPlausibleRatio)
        return std::nullopt;
    return "measured/predicted is " + significant_text(ratio, 3) + ", outside the " +
           significant_text(kMinPlausibleRatio, 3) + " to " +
           significant_text(kMaxPlausibleRatio, 3) + " any boot of the predicted pool can give";
}

}  // namespace hugetune::model
